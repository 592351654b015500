import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import PacketDecode
import PacketKit

/// The WebSocket server of `listen ws:PORT`: HTTP/1.1 upgrade on the paths
/// the codecs name (`CodecInfo.wellKnown`), then one
/// `WebSocketConnectionHandler` per socket. permessage-deflate is declined:
/// the response simply carries no Sec-WebSocket-Extensions, which RFC 7692
/// §5 says leaves the connection uncompressed. With a TLS context (--cert,
/// --key) each connection starts with the TLS handshake: wss.
enum WebSocketListener {
  package static func bind(
    group: EventLoopGroup, address: ListenAddress, session: NIOLoopBound<ListenSession>,
    maxMessageBytes: Int, tls: NIOSSLContext? = nil
  ) throws(CommandFailure) -> [Channel] {
    try ListenerBinding.bind(address) { socketAddress, ipv6Only in
      var bootstrap = ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 64)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        // Past 256 KiB written and not taken, the connection is not read
        // (ConnectionGuard): a peer that reads nothing cannot make it pile up.
        .childChannelOption(.writeBufferWaterMark, value: .init(low: 64 << 10, high: 256 << 10))
        .childChannelInitializer { channel in
          guard session.value.budget.hasRoom else {
            return channel.eventLoop.makeCompletedFuture { session.value.refuse(channel, tls: tls != nil) }
          }
          return channel.eventLoop.makeCompletedFuture {
            let upgrader = NIOWebSocketServerUpgrader(
              maxFrameSize: maxMessageBytes, automaticErrorHandling: true,
              shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(session.value.shouldUpgrade(channel, head))
              },
              upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                  let operations = channel.pipeline.syncOperations
                  // The upgrade removes NIO's HTTP handlers; the refusal handler is ours to remove.
                  let refusal = try operations.context(name: HTTPRefusalHandler.name)
                  operations.removeHandler(context: refusal, promise: nil)
                  let connectionGuard = try operations.handler(type: ConnectionGuard.self)
                  connectionGuard.headArrived(upgraded: true)
                  try operations.addHandler(ClientFrameGate(connectionGuard: connectionGuard))
                  try operations.addHandler(
                    NIOWebSocketFrameAggregator(
                      minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 4096,
                      maxAccumulatedFrameSize: maxMessageBytes))
                  try operations.addHandler(
                    WebSocketConnectionHandler(
                      session: session.value, channel: channel, request: head,
                      connectionGuard: connectionGuard))
                }
              })
            let operations = channel.pipeline.syncOperations
            if let tls { try operations.addHandler(NIOSSLServerHandler(context: tls)) }
            try operations.addHandler(ConnectionGuard(session: session.value, isTLS: tls != nil))
            try operations.configureHTTPServerPipeline(
              withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            try operations.addHandler(
              HTTPRefusalHandler(session: session.value), name: HTTPRefusalHandler.name)
          }
        }
      if ipv6Only {
        bootstrap = bootstrap.serverChannelOption(
          ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only), value: 1)
      }
      return try bootstrap.bind(to: socketAddress).wait()
    }
  }
}

extension ListenSession {
  /// The upgrade decision: only the paths the codecs name. The handshake is
  /// logged as `decode` shows it (ws.handshake with the offered extensions).
  func shouldUpgrade(_ channel: Channel, _ head: HTTPRequestHead) -> HTTPHeaders? {
    guard !isStopping else { return nil }
    let path = head.uri
    var record = DecodedRecord(
      frame: recorder.nextFrame(), time: LiveClock.now(), transport: "websocket",
      source: EndpointText.of(channel.remoteAddress), destination: EndpointText.of(channel.localAddress),
      payloadLength: 0)
    var fields: [FieldValue.Member] = [.init("path", .string(path))]
    if let named = pathField.of(path) { fields.append(.init(named.field, .string(named.value))) }
    let known = pathField.isKnown(path)
    let extensions = head.headers["Sec-WebSocket-Extensions"].joined(separator: ", ")
    if !extensions.isEmpty { fields.append(.init("extensions", .string(extensions))) }
    record.event = ("ws.handshake", fields)
    if !known {
      record.layerDiagnostics = [
        .warning("ws-unknown-path", "pktbench upgrades only \(pathField.usage); refused")
      ]
    }
    recorder.emit(record, counts: false)
    return known ? HTTPHeaders() : nil
  }
}

/// Answers every HTTP request that was not upgraded: 404 for another path,
/// 426 for a plain request on the endpoint; then closes. One line in the log.
final class HTTPRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
  package static let name = "pktbench.http-refusal"
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let session: ListenSession
  private var head: HTTPRequestHead?

  package init(session: ListenSession) {
    self.session = session
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch Self.unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
      (try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self))?.headArrived(upgraded: false)
    case .body: break
    case .end:
      let path = head?.uri ?? "?"
      let onEndpoint = session.pathField.isKnown(path)
      let status: HTTPResponseStatus = onEndpoint ? .upgradeRequired : .notFound
      let text =
        onEndpoint
        ? "pktbench: \(path) is a WebSocket endpoint; connect with a WebSocket client\n"
        : "pktbench: no such endpoint; the WebSocket endpoints are \(session.pathField.usage)\n"
      var headers = HTTPHeaders()
      headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
      headers.add(name: "Content-Length", value: String(text.utf8.count))
      headers.add(name: "Connection", value: "close")
      if onEndpoint { headers.add(name: "Upgrade", value: "websocket") }
      context.write(
        Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
        promise: nil)
      context.write(
        Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: text)))), promise: nil
      )
      let channel = context.channel
      context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { _ in
        channel.close(promise: nil)
      }
      var record = DecodedRecord(
        frame: session.recorder.nextFrame(), time: LiveClock.now(), transport: "tcp",
        source: EndpointText.of(channel.localAddress), destination: EndpointText.of(channel.remoteAddress),
        payloadLength: 0)
      record.event = (
        "http.refused",
        [.init("path", .string(path)), .init("status", .integer(Int64(status.code)))]
      )
      session.recorder.emit(record, counts: false)
    }
  }
}
