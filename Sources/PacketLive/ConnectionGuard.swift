import NIOCore
import PacketKit

/// The first handler of every accepted WebSocket server connection (after
/// TLS). It counts what the connection holds against the listener's
/// budget, the bytes read and not yet whole frames and the bytes written
/// and not yet taken by the peer, and it stops reading while the peer
/// takes nothing (back-pressure: a client that floods pings and reads no
/// pongs is not read any further, so its pongs cannot pile up). It cuts a
/// connection whose HTTP request head (or TLS handshake) is not whole in
/// time, and an upgraded one that sends no whole frame for
/// `--idle-timeout`, so slow and silent clients cannot hold sockets (and
/// open files) for ever. Each cut is one line on stderr and counted in
/// the summary.
final class ConnectionGuard: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// How long a cut connection's last words (a 408, a close frame) may take
  /// to reach a peer that reads nothing before the socket is closed anyway.
  static let lastWordsSeconds: Int64 = 1

  private let session: ListenSession
  private let isTLS: Bool
  private var context: ChannelHandlerContext?
  private var headTimer: Scheduled<Void>?
  private var idleTimer: Scheduled<Void>?
  /// When the client's last whole frame came (monotonic nanoseconds).
  private var lastFrame: UInt64 = 0
  private var upgraded = false
  /// Whether bytes came through TLS (its handshake is done), so an answer can go back.
  private var handshaken = false
  private var isCut = false
  /// Whether what it holds still counts against the budget (until it is cut or closed).
  private var counted = true
  /// A read the pipeline asked for while the peer was not taking what was written.
  private var heldRead = false
  private var peer = "?"
  /// Bytes read and not yet passed on as whole frames (or held by the
  /// frame aggregator as fragments of a message).
  package private(set) var buffered = 0
  /// Bytes written to the connection and not yet taken by the socket.
  package private(set) var queued = 0

  package init(session: ListenSession, isTLS: Bool) {
    self.session = session
    self.isTLS = isTLS
  }

  private var budget: ConnectionBudget { session.budget }

  /// What this connection holds, as the budget weighs it.
  package var holding: Int { buffered + queued }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    peer = EndpointText.of(context.channel.remoteAddress) ?? "?"
    budget.register(self)
    if context.channel.isActive { startHeadTimer(context) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    forget()
    self.context = nil
  }

  func channelActive(context: ChannelHandlerContext) {
    startHeadTimer(context)
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    forget()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !isCut, counted else { return }
    // Bytes behind TLS come only once its handshake is done.
    handshaken = true
    let bytes = Self.unwrapInboundIn(data).readableBytes
    buffered += bytes
    budget.charge(bytes)
    // Charging may have cut this very connection: its bytes go no further.
    guard !isCut else { return }
    context.fireChannelRead(data)
  }

  /// A TLS handshake that failed (a client that does not trust the
  /// certificate, or speaks plain ws to wss) is one line; the socket closes.
  func errorCaught(context: ChannelHandlerContext, error: Error) {
    guard !isCut, TLSFailure.isTLS(error) else { return context.fireErrorCaught(error) }
    isCut = true
    session.warn("ws \(peer): TLS handshake failed: \(TLSFailure.server(error))")
    forget()
    context.close(promise: nil)
  }

  // MARK: Back-pressure

  /// Counts what is written until the socket has taken it.
  package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    guard counted else { return context.write(data, promise: promise) }
    let bytes = Self.unwrapOutboundIn(data).readableBytes
    queued += bytes
    let written = promise ?? context.eventLoop.makePromise()
    written.futureResult.assumeIsolated().whenComplete { _ in
      guard self.counted else { return }
      self.queued -= bytes
      self.budget.release(bytes)
    }
    context.write(data, promise: written)
    budget.charge(bytes)
  }

  /// Reads only while the peer takes what is written to it.
  package func read(context: ChannelHandlerContext) {
    guard context.channel.isWritable else {
      heldRead = true
      return
    }
    context.read()
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable, heldRead {
      heldRead = false
      context.read()
    }
    context.fireChannelWritabilityChanged()
  }

  // MARK: From the handlers behind it

  /// The request head was read whole (upgraded or answered): the head
  /// timer stops, the idle timer starts, and the head's bytes are no
  /// longer held.
  func headArrived(upgraded: Bool) {
    headTimer?.cancel()
    headTimer = nil
    self.upgraded = upgraded
    consumed(buffered)
    guard upgraded else { return }
    frameArrived()
    scheduleIdleCheck(after: budget.idleTimeoutNanoseconds)
  }

  /// A whole frame came from the client: it is not idle. Only the time is
  /// noted (no timer per frame); the one timer looks at it when it fires.
  func frameArrived() {
    lastFrame = monotonicNanoseconds()
  }

  /// Cuts the connection if no frame came for the idle timeout by then,
  /// else looks again when the timeout after the last frame runs out.
  private func scheduleIdleCheck(after wait: UInt64) {
    guard let context, !isCut else { return }
    idleTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(wait))) {
      let timeout = self.budget.idleTimeoutNanoseconds
      let quiet = monotonicNanoseconds() &- self.lastFrame
      guard quiet >= timeout else { return self.scheduleIdleCheck(after: timeout - quiet) }
      self.cut(
        .idle, "no whole frame from it in \(DurationText.of(Double(timeout) / 1e9)) (--idle-timeout)",
        closeCode: 1001)
    }
  }

  /// Bytes that left the decoders as a whole frame.
  package func consumed(_ bytes: Int) {
    guard counted else { return }
    let freed = min(bytes, buffered)
    buffered -= freed
    budget.release(freed)
  }

  /// Bytes a decoder behind keeps (fragments of a message not yet whole).
  package func held(_ bytes: Int) {
    guard !isCut, counted else { return }
    buffered += bytes
    budget.charge(bytes)
  }

  // MARK: Cuts

  func cutOverBudget(total: Int, limit: Int, connections: Int) {
    let what =
      queued > buffered
      ? "\(ByteCountArgument.text(queued)) written to it and not taken (it reads nothing)"
      : "\(ByteCountArgument.text(holding))"
    cut(
      .overBudget,
      "it held \(what) of the \(ByteCountArgument.text(total)) held by "
        + "\(connections) connection\(connections == 1 ? "" : "s") (--max-buffered \(ByteCountArgument.text(limit)))",
      closeCode: 1013)
  }

  /// Fails the connection: a close frame with `closeCode` once upgraded
  /// (RFC 6455 §7.1.7), a 408 to a slow request head, nothing before a
  /// TLS handshake is done (it could not be sent); then the TCP connection
  /// is closed, at once when those words are taken, or after
  /// `lastWordsSeconds` from a peer that takes nothing.
  package func cut(_ kind: ConnectionBudget.Cut, _ why: String, closeCode: UInt16?) {
    guard !isCut, let context else { return }
    isCut = true
    budget.count(kind)
    var line = "ws \(peer): connection cut: \(why)"
    var bytes: [UInt8] = []
    if isTLS && !handshaken {
      // Nothing can be written before the handshake: the socket is closed.
    } else if upgraded, let closeCode {
      line += "; closed with \(closeCode)"
      bytes = [0x88, 2, UInt8(closeCode >> 8), UInt8(closeCode & 0xFF)]
    } else if kind == .slowHead {
      bytes = Array("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".utf8)
    }
    session.warn(line)
    forget()
    let channel = context.channel
    guard !bytes.isEmpty else { return channel.close(promise: nil) }
    context.writeAndFlush(Self.wrapOutboundOut(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
      channel.close(promise: nil)
    }
    context.eventLoop.scheduleTask(in: .seconds(Self.lastWordsSeconds)) { channel.close(promise: nil) }
  }

  private func startHeadTimer(_ context: ChannelHandlerContext) {
    guard headTimer == nil, !upgraded, !isCut else { return }
    let timeout = budget.headTimeoutNanoseconds
    headTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(timeout))) {
      let what =
        self.isTLS && !self.handshaken ? "TLS handshake was not done" : "HTTP request head was not whole"
      self.cut(
        .slowHead, "its \(what) after \(DurationText.of(Double(timeout) / 1e9)) (--head-timeout)",
        closeCode: nil)
    }
  }

  /// Gives back every byte this connection held (what is queued is dropped
  /// when the socket closes), and leaves the budget.
  private func forget() {
    headTimer?.cancel()
    headTimer = nil
    idleTimer?.cancel()
    idleTimer = nil
    guard counted else { return }
    counted = false
    budget.release(buffered + queued)
    buffered = 0
    queued = 0
    budget.unregister(self)
  }
}
