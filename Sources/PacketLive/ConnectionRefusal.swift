import NIOCore

/// A client past `--max-connections`: answered 503 (plain ws; nothing can
/// be said before a TLS handshake) and closed at once, so the descriptors
/// stay with the connections already open. The first refusal is a line on
/// stderr; a burst of them is one line a second with the count, so a flood
/// of connections cannot flood the terminal too.
final class RefusedConnection: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let tls: Bool

  package init(tls: Bool) {
    self.tls = tls
  }

  func channelActive(context: ChannelHandlerContext) {
    let channel = context.channel
    guard !tls else { return channel.close(promise: nil) }
    let answer =
      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
    context.writeAndFlush(Self.wrapOutboundOut(channel.allocator.buffer(string: answer))).whenComplete { _ in
      channel.close(promise: nil)
    }
    context.eventLoop.scheduleTask(in: .seconds(ConnectionGuard.lastWordsSeconds)) {
      channel.close(promise: nil)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// The lines refusals make: the first at once, the rest counted and said a second later.
final class RefusalLog {
  private var unsaid = 0
  private var waiting = false

  package func refused(peer: String, limit: Int, loop: EventLoop, warn: @escaping (String) -> Void) {
    guard !waiting else {
      unsaid += 1
      return
    }
    warn("ws \(peer): refused: \(limit) connections are open (--max-connections \(limit))")
    waiting = true
    loop.assumeIsolated().scheduleTask(in: .seconds(1)) {
      self.waiting = false
      self.flush(limit: limit, warn: warn)
    }
  }

  /// Says the refusals not said yet (a second's, or those before a stop).
  package func flush(limit: Int, warn: (String) -> Void) {
    guard unsaid > 0 else { return }
    warn("ws: refused \(unsaid) more in a second (--max-connections \(limit))")
    unsaid = 0
  }
}

extension ListenSession {
  /// Refuses a client past `--max-connections`: counted, said, answered and closed.
  package func refuse(_ channel: Channel, tls: Bool) {
    budget.count(.refused)
    refusals.refused(
      peer: EndpointText.of(channel.remoteAddress) ?? "?", limit: budget.maxConnections, loop: loop,
      warn: { [weak self] in self?.warn($0) })
    try? channel.pipeline.syncOperations.addHandler(RefusedConnection(tls: tls))
  }
}
