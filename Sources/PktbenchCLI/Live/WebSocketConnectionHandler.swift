import NIOCore
import NIOHTTP1
import NIOWebSocket
import PacketKit

/// One upgraded WebSocket connection of `listen ws`: logs every message and
/// control frame as `decode` shows them, answers pings, echoes the client's
/// close, and with `--respond` plays the Aerie server: authResponse with a
/// session id, heartbeat pongs, 1008 after the auth timeout or at session
/// expiry.
final class WebSocketConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let session: ListenSession
  private let channel: Channel
  private let path: String
  private let offeredExtensions: String
  private let client: String?
  private let server: String?
  private let clientPort: UInt16
  private let serverPort: UInt16
  private let responder: FalconEyeResponder?
  private var authenticated = false
  private var authTimer: Scheduled<Void>?
  private var sessionTimer: Scheduled<Void>?
  private var closeSent = false
  private var closeReceived = false

  /// How long to wait for the client's close reply before dropping the socket.
  static let closeGraceSeconds: Int64 = 2

  init(session: ListenSession, channel: Channel, request: HTTPRequestHead) {
    self.session = session
    self.channel = channel
    path = request.uri
    offeredExtensions = request.headers["Sec-WebSocket-Extensions"].joined(separator: ", ")
    client = EndpointText.of(channel.remoteAddress)
    server = EndpointText.of(channel.localAddress)
    clientPort = UInt16(clamping: channel.remoteAddress?.port ?? 0)
    serverPort = UInt16(clamping: channel.localAddress?.port ?? 0)
    responder = session.configuration.responder.map { FalconEyeResponder(configuration: $0) }
  }

  func handlerAdded(context: ChannelHandlerContext) {
    session.opened(self)
    var fields: [FieldValue.Member] = [.init("status", .integer(101))]
    var diagnostics: [Diagnostic] = []
    if !offeredExtensions.isEmpty {
      fields.append(.init("declined", .string(offeredExtensions)))
      diagnostics.append(
        .note(
          "ws-extensions-declined",
          "the client offered \(offeredExtensions); pktbench declined (no Sec-WebSocket-Extensions in the "
            + "response), so messages travel uncompressed"))
    }
    logEvent("ws.accept", fields, fromClient: false, diagnostics: diagnostics)
    if let responder {
      let timeout = TimeAmount.nanoseconds(Int64(responder.configuration.authTimeoutSeconds * 1e9))
      authTimer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
        guard let self, !self.authenticated else { return }
        self.close(code: .policyViolation, reason: "authentication timeout")
      }
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    authTimer?.cancel()
    sessionTimer?.cancel()
    session.closed(self)
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = Self.unwrapInboundIn(data)
    switch frame.opcode {
    case .text, .binary:
      message(frame)
    case .ping:
      logEvent("ws.ping", [.init("bytes", .integer(Int64(frame.length))), .init("by", .string("client"))])
      guard !closeSent else { return }
      let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
      context.writeAndFlush(Self.wrapOutboundOut(pong), promise: nil)
    case .pong:
      logEvent("ws.pong", [.init("bytes", .integer(Int64(frame.length))), .init("by", .string("client"))])
    case .connectionClose:
      closeReceived = true
      var data = frame.unmaskedData
      let code = data.readInteger(as: UInt16.self)
      let reason = data.readString(length: data.readableBytes) ?? ""
      logClose(code: code, reason: reason, byClient: true)
      if closeSent {
        context.close(promise: nil)
      } else {
        // Echo the client's code (RFC 6455 §5.5.1), then close the TCP connection.
        closeSent = true
        var echo = context.channel.allocator.buffer(capacity: 2)
        if let code { echo.writeInteger(code) }
        let reply = WebSocketFrame(fin: true, opcode: .connectionClose, data: echo)
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(reply)).whenComplete { _ in
          channel.close(promise: nil)
        }
        if let code { logClose(code: code, reason: "", byClient: false) }
      }
    default:
      break
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: Error) {
    var record = newRecord(fromClient: true)
    record.layerError = DecodeError(code: "ws-protocol") {
      .init("WebSocket protocol error from the client: \(error); connection closed")
    }
    session.recorder.emit(record, counts: false)
    context.close(promise: nil)
  }

  /// Closes with 1001 (going away) because the listener stops.
  func goAway() -> EventLoopFuture<Void> {
    close(code: .goingAway, reason: "listener stopping", grace: false)
    return channel.closeFuture
  }

  // MARK: Messages

  private func message(_ frame: WebSocketFrame) {
    var data = frame.unmaskedData
    let bytes = data.readBytes(length: data.readableBytes) ?? []
    var record = newRecord(fromClient: true)
    record.extra = [
      .init("ws", .object([.init("opcode", .string(frame.opcode == .text ? "text" : "binary"))])),
      .init("direction", .string("received")),
    ]
    session.decoding.decode(bytes, carrier: .websocket(path: path), into: &record)
    var reply: FalconEyeResponder.Reply?
    if let responder, case .decoded(let decoded) = record.result {
      if let note = responder.secretNote(for: decoded) { record.layerDiagnostics.append(note) }
      if !authenticated, decoded.message != "authRequest" {
        record.layerDiagnostics.append(
          .warning("before-auth", "\(decoded.message) arrived before the socket was authenticated"))
      }
      reply = responder.reply(to: decoded)
    }
    session.recorder.emit(record, counts: true)
    guard let reply, !closeSent else { return }
    switch reply {
    case .authAccepted(_, let bytes):
      authenticated = true
      authTimer?.cancel()
      send(bytes)
      if let responder {
        let expiry = TimeAmount.nanoseconds(Int64(responder.configuration.sessionSeconds * 1e9))
        sessionTimer = channel.eventLoop.assumeIsolated().scheduleTask(in: expiry) { [weak self] in
          self?.close(code: .policyViolation, reason: "session expired")
        }
      }
    case .authRefused(_, let bytes), .pong(let bytes):
      send(bytes)
    }
  }

  private func send(_ bytes: [UInt8]) {
    let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(bytes: bytes))
    channel.writeAndFlush(frame, promise: nil)
    var record = newRecord(fromClient: false)
    record.extra = [
      .init("ws", .object([.init("opcode", .string("text"))])), .init("direction", .string("sent")),
    ]
    session.decoding.decode(bytes, carrier: .websocket(path: path), into: &record)
    session.recorder.emit(record, counts: false)
  }

  /// Sends a close frame, then drops the socket when the client answers or
  /// after a grace period.
  private func close(code: WebSocketErrorCode, reason: String, grace: Bool = true) {
    guard !closeSent, channel.isActive else { return }
    closeSent = true
    var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
    data.write(webSocketErrorCode: code)
    data.writeString(reason)
    let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    logClose(code: UInt16(webSocketErrorCode: code), reason: reason, byClient: false)
    let channel = self.channel
    let written = channel.writeAndFlush(frame)
    if grace {
      channel.eventLoop.scheduleTask(in: .seconds(Self.closeGraceSeconds)) {
        channel.close(promise: nil)
      }
    } else {
      written.whenComplete { _ in channel.close(promise: nil) }
    }
  }

  // MARK: Log

  private func newRecord(fromClient: Bool) -> DecodedRecord {
    var record = DecodedRecord(
      frame: session.recorder.nextFrame(), time: LiveClock.now(), transport: "websocket",
      source: fromClient ? client : server, destination: fromClient ? server : client, payloadLength: 0)
    record.sourcePort = fromClient ? clientPort : serverPort
    record.destinationPort = fromClient ? serverPort : clientPort
    return record
  }

  private func logEvent(
    _ name: String, _ fields: [FieldValue.Member], fromClient: Bool = true, diagnostics: [Diagnostic] = []
  ) {
    var record = newRecord(fromClient: fromClient)
    record.event = (name, fields)
    record.layerDiagnostics = diagnostics
    session.recorder.emit(record, counts: false)
  }

  private func logClose(code: UInt16?, reason: String, byClient: Bool) {
    let close = WebSocketCloseCode.event(code: code, reason: reason, by: byClient ? "client" : "server")
    logEvent("ws.close", close.fields, fromClient: byClient, diagnostics: close.diagnostics)
  }
}
