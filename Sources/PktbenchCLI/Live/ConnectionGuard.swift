import NIOCore

/// The first handler of every accepted WebSocket server connection (after
/// TLS): counts the bytes the connection holds against the listener's
/// budget, and cuts a connection whose HTTP request head is not whole in
/// time, so slow clients cannot hold sockets (and open files) for ever.
/// Each cut is one line on stderr and counted in the summary.
final class ConnectionGuard: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let session: ListenSession
  private var context: ChannelHandlerContext?
  private var headTimer: Scheduled<Void>?
  private var upgraded = false
  private var isCut = false
  private var peer = "?"
  /// Bytes read and not yet passed on as whole frames (or held by the
  /// frame aggregator as fragments of a message).
  private(set) var buffered = 0

  init(session: ListenSession) {
    self.session = session
  }

  private var budget: ConnectionBudget { session.budget }

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
    guard !isCut else { return }
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

  // MARK: From the handlers behind it

  /// The request head was read whole (upgraded or answered): the timer
  /// stops, and the head's bytes are no longer held.
  func headArrived(upgraded: Bool) {
    headTimer?.cancel()
    headTimer = nil
    self.upgraded = upgraded
    consumed(buffered)
  }

  /// Bytes that left the decoders as a whole frame.
  func consumed(_ bytes: Int) {
    let freed = min(bytes, buffered)
    buffered -= freed
    budget.release(freed)
  }

  /// Bytes a decoder behind keeps (fragments of a message not yet whole).
  func held(_ bytes: Int) {
    guard !isCut else { return }
    buffered += bytes
    budget.charge(bytes)
  }

  // MARK: Cuts

  func cutOverBudget(total: Int, limit: Int, connections: Int) {
    cut(
      .overBudget,
      "it held \(ByteCountArgument.text(buffered)) of the \(ByteCountArgument.text(total)) buffered by "
        + "\(connections) connection\(connections == 1 ? "" : "s") (--max-buffered \(ByteCountArgument.text(limit)))",
      closeCode: 1013)
  }

  /// Fails the connection: a close frame with `closeCode` once upgraded
  /// (RFC 6455 §7.1.7), then the TCP connection is closed.
  func cut(_ kind: ConnectionBudget.Cut, _ why: String, closeCode: UInt16?) {
    guard !isCut, let context else { return }
    isCut = true
    budget.count(kind)
    var line = "ws \(peer): connection cut: \(why)"
    var bytes: [UInt8] = []
    if upgraded, let closeCode {
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
  }

  private func startHeadTimer(_ context: ChannelHandlerContext) {
    guard headTimer == nil, !upgraded, !isCut else { return }
    let timeout = budget.headTimeoutNanoseconds
    headTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(timeout))) {
      self.cut(
        .slowHead,
        "its HTTP request head was not whole after \(DurationText.of(Double(timeout) / 1e9)) (--head-timeout)",
        closeCode: nil)
    }
  }

  /// Gives back every byte this connection held, and leaves the budget.
  private func forget() {
    headTimer?.cancel()
    headTimer = nil
    budget.release(buffered)
    buffered = 0
    budget.unregister(self)
  }
}
