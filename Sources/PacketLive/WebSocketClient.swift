import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import PacketDecode
import PacketKit

/// `send ws://HOST:PORT/PATH`: the HTTP/1.1 upgrade handshake (NIO's client
/// upgrader checks Sec-WebSocket-Accept), then masked text frames as a
/// client must send them, pongs for pings, and a clean close (1000). For
/// wss:// the TLS handshake comes first (the certificate checked unless
/// --insecure).
package enum WebSocketClient {
  static let requestHandlerName = "pktbench.ws-upgrade-request"

  package static func connect(
    group: EventLoopGroup, target: TargetURL, session: NIOLoopBound<SendSession>,
    connectTimeout: TimeAmount, maxMessageBytes: Int, tls: NIOSSLContext? = nil
  ) throws(CommandFailure) {
    // SNI and the certificate's name check take a host name, never an IP address.
    let serverHostname = (try? SocketAddress(ipAddress: target.host, port: 0)) == nil ? target.host : nil
    let bootstrap = ClientBootstrap(group: group)
      .connectTimeout(connectTimeout)
      .channelOption(.tcpOption(.tcp_nodelay), value: 1)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          let upgrader = NIOWebSocketClientUpgrader(
            maxFrameSize: maxMessageBytes, automaticErrorHandling: true,
            upgradePipelineHandler: { channel, _ in
              channel.eventLoop.makeCompletedFuture {
                let operations = channel.pipeline.syncOperations
                let request = try operations.context(name: requestHandlerName)
                operations.removeHandler(context: request, promise: nil)
                try operations.addHandler(
                  NIOWebSocketFrameAggregator(
                    minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 4096,
                    maxAccumulatedFrameSize: maxMessageBytes))
                let handler = WebSocketClientHandler(
                  session: session.value, channel: channel, path: target.path)
                try operations.addHandler(handler)
                session.value.start(handler)
              }
            })
          let operations = channel.pipeline.syncOperations
          if let tls {
            try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
          }
          // A server may send its first frame in the same segment as the 101: keep those bytes.
          try operations.addHTTPClientHandlers(
            leftOverBytesStrategy: .forwardBytes,
            withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
          try operations.addHandler(
            UpgradeRequestHandler(session: session.value, target: target), name: requestHandlerName)
        }
      }
    do {
      _ = try bootstrap.connect(host: target.host, port: target.port).wait()
    } catch {
      throw CommandFailure(SocketFailure.connect(error, what: target.display), status: 1)
    }
  }
}

/// Sends the upgrade request once connected; anything but 101 Switching
/// Protocols ends the run with one line saying what the server answered.
final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPClientResponsePart
  typealias OutboundOut = HTTPClientRequestPart

  private let session: SendSession
  private let target: TargetURL

  package init(session: SendSession, target: TargetURL) {
    self.session = session
    self.target = target
  }

  func channelActive(context: ChannelHandlerContext) {
    var headers = HTTPHeaders()
    headers.add(name: "Host", value: HostPort.join(target.host, target.port))
    headers.add(name: "User-Agent", value: "pktbench")
    headers.add(name: "Content-Length", value: "0")
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
    context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
    context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .head(let response) = Self.unwrapInboundIn(data) else { return }
    session.stop(
      "an error",
      failure:
        "\(target.display): the server answered \(response.status.code) \(response.status.reasonPhrase) "
        + "instead of upgrading to WebSocket")
    context.close(promise: nil)
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    let text: String
    if let upgrade = error as? NIOHTTPClientUpgradeError {
      text = "\(target.display): WebSocket handshake failed (\(upgrade))"
    } else if let tls = TLSFailure.connect(error, what: target.display) {
      text = tls
    } else {
      text = SocketFailure.connect(error, what: target.display)
    }
    session.stop("an error", failure: text)
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    session.stop(
      "an error", failure: "\(target.display): the server closed the connection during the handshake")
    context.fireChannelInactive()
  }
}

/// The upgraded connection: masked text frames out, messages and control
/// frames in, the close handshake.
final class WebSocketClientHandler: ChannelInboundHandler, SendTransport {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let session: SendSession
  private let channel: Channel
  private let path: String
  let localEndpoint: String?
  let remoteEndpoint: String?
  private var closeSent = false
  private var closeReceived = false
  private var onClosed: [() -> Void] = []

  /// How long `close` waits for the server's close reply.
  static let closeWaitSeconds: Int64 = 2

  var transportName: String { "websocket" }
  package var carrier: PayloadRouter.Carrier { .websocket(path: path) }

  package init(session: SendSession, channel: Channel, path: String) {
    self.session = session
    self.channel = channel
    self.path = path
    localEndpoint = EndpointText.of(channel.localAddress)
    remoteEndpoint = EndpointText.of(channel.remoteAddress)
  }

  /// Queued on the TCP connection: counted as sent (TCP delivers or the connection fails).
  package func send(_ bytes: [UInt8]) -> Bool {
    guard !closeSent, channel.isActive else { return false }
    let frame = WebSocketFrame(
      fin: true, opcode: .text, maskKey: .random(), data: channel.allocator.buffer(bytes: bytes))
    channel.writeAndFlush(frame, promise: nil)
    return true
  }

  package func close(_ done: @escaping () -> Void) {
    guard channel.isActive else { return done() }
    onClosed.append(done)
    guard !closeSent else { return }
    sendClose(code: .normalClosure)
    let channel = self.channel
    channel.eventLoop.scheduleTask(in: .seconds(Self.closeWaitSeconds)) {
      channel.close(promise: nil)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = Self.unwrapInboundIn(data)
    switch frame.opcode {
    case .text, .binary:
      var data = frame.unmaskedData
      let bytes = data.readBytes(length: data.readableBytes) ?? []
      session.received(
        bytes,
        extra: [.init("ws", .object([.init("opcode", .string(frame.opcode == .text ? "text" : "binary"))]))]
      )
    case .ping:
      session.event(
        "ws.ping", [.init("bytes", .integer(Int64(frame.length))), .init("by", .string("server"))],
        fromPeer: true)
      let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
      context.writeAndFlush(Self.wrapOutboundOut(pong), promise: nil)
    case .pong:
      session.event(
        "ws.pong", [.init("bytes", .integer(Int64(frame.length))), .init("by", .string("server"))],
        fromPeer: true)
    case .connectionClose:
      closeReceived = true
      var data = frame.unmaskedData
      let code = data.readInteger(as: UInt16.self)
      let reason = data.readString(length: data.readableBytes) ?? ""
      logClose(code: code, reason: reason, byServer: true)
      if closeSent {
        context.close(promise: nil)
      } else {
        sendClose(code: code.map { WebSocketErrorCode(codeNumber: Int($0)) } ?? .normalClosure)
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: .milliseconds(100)) { channel.close(promise: nil) }
        let meaning = code.map { "\($0) (\(WebSocketCloseCode.meaning($0)))" } ?? "no code"
        let failure =
          code == 1000
          ? nil : "\(session.configuration.target.display): the server closed the socket with \(meaning)"
        session.stop("the server's close", failure: failure)
      }
    default:
      break
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    session.stop(
      "an error", failure: "\(session.configuration.target.display): \(SocketFailure.describe(error))")
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    if !closeReceived && !closeSent {
      session.stop(
        "the server",
        failure:
          "\(session.configuration.target.display): the server dropped the connection without a close frame")
    }
    let callbacks = onClosed
    onClosed = []
    for callback in callbacks { callback() }
    context.fireChannelInactive()
  }

  private func sendClose(code: WebSocketErrorCode) {
    closeSent = true
    var data = channel.allocator.buffer(capacity: 2)
    data.write(webSocketErrorCode: code)
    let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
    channel.writeAndFlush(frame, promise: nil)
    logClose(code: UInt16(webSocketErrorCode: code), reason: "", byServer: false)
  }

  private func logClose(code: UInt16?, reason: String, byServer: Bool) {
    let close = WebSocketCloseCode.event(code: code, reason: reason, by: byServer ? "server" : "client")
    session.event("ws.close", close.fields, fromPeer: byServer, diagnostics: close.diagnostics)
  }
}
