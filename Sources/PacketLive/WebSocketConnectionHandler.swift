import NIOCore
import NIOHTTP1
import NIOWebSocket
import PacketCapture
import PacketDecode
import PacketKit

/// One upgraded WebSocket connection of `listen ws`: logs every message and
/// control frame as `decode` shows them, answers pings, echoes the client's
/// close, and under `emulate` gives the connection to the server's one
/// device model, which answers and closes as the real server would.
final class WebSocketConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let session: ListenSession
  private let channel: Channel
  /// Fails the connection (close 1002, 1007) and counts it.
  private let connectionGuard: ConnectionGuard
  private let path: String
  private let offeredExtensions: String
  private let client: String?
  private let server: String?
  private let clientPort: UInt16
  private let serverPort: UInt16
  /// `emulate`: the server, every connection's.
  private let device: DeviceEmulator?
  private var closeSent = false
  private var closeReceived = false

  /// How long to wait for the client's close reply before dropping the socket.
  static let closeGraceSeconds: Int64 = 2

  package init(
    session: ListenSession, channel: Channel, request: HTTPRequestHead, connectionGuard: ConnectionGuard
  ) {
    self.session = session
    self.channel = channel
    self.connectionGuard = connectionGuard
    path = request.uri
    offeredExtensions = request.headers["Sec-WebSocket-Extensions"].joined(separator: ", ")
    client = EndpointText.of(channel.remoteAddress)
    server = EndpointText.of(channel.localAddress)
    clientPort = UInt16(clamping: channel.remoteAddress?.port ?? 0)
    serverPort = UInt16(clamping: channel.localAddress?.port ?? 0)
    device = session.device()
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
    let accept = logEvent("ws.accept", fields, fromClient: false, diagnostics: diagnostics)
    if let device, let client {
      device.attach(
        client,
        DeviceEmulator.Peer(
          send: { [weak self] bytes in self?.send(bytes) },
          close: { [weak self] code, reason in
            self?.close(code: WebSocketErrorCode(codeNumber: Int(code)), reason: reason)
          }), path: path)
      // The 101 starts the server's session.
      if let message = FlowMessage(accept) { device.take(message, heading: .fromDevice) }
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    if let client { device?.detach(client) }
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
      if let (kind, why, code) = Self.closeProblem(frame.unmaskedData) {
        return connectionGuard.cut(kind, why, closeCode: code)
      }
      closeReceived = true
      var data = frame.unmaskedData
      let code = data.readInteger(as: UInt16.self)
      let reason = data.readString(length: data.readableBytes) ?? ""
      let close = logClose(code: code, reason: reason, byClient: true)
      if let device, let message = FlowMessage(close) { device.take(message, heading: .toDevice) }
      if closeSent {
        context.close(promise: nil)
      } else {
        // Echo the client's code (RFC 6455 §5.5.1), then close the TCP connection.
        closeSent = true
        var echo = context.channel.allocator.buffer(capacity: 2)
        if let code { echo.writeInteger(code) }
        let reply = WebSocketFrame(fin: true, opcode: .connectionClose, data: echo)
        closeWhenTaken(context.writeAndFlush(Self.wrapOutboundOut(reply)))
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
    if frame.opcode == .text, let bad = WebSocketValidation.firstInvalidUTF8(bytes) {
      return connectionGuard.cut(
        .invalidText, "a text message that is not UTF-8 (byte \(bad)) (RFC 6455 §8.1)", closeCode: 1007)
    }
    var record = newRecord(fromClient: true)
    record.extra = [
      .init("ws", .object([.init("opcode", .string(frame.opcode == .text ? "text" : "binary"))])),
      .init("direction", .string("received")),
    ]
    session.decoding.decode(bytes, carrier: .websocket(path: path), into: &record)
    session.recorder.emit(record, counts: true)
    if let device, !closeSent, let message = FlowMessage(record) { device.take(message, heading: .toDevice) }
  }

  private func send(_ bytes: [UInt8]) {
    guard !closeSent, channel.isActive else { return }
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
      closeWhenTaken(written)
    }
  }

  /// Closes the socket once `written` (a close frame) is taken, or after
  /// the grace period from a peer that takes nothing.
  private func closeWhenTaken(_ written: EventLoopFuture<Void>) {
    let channel = self.channel
    written.whenComplete { _ in channel.close(promise: nil) }
    channel.eventLoop.scheduleTask(in: .seconds(Self.closeGraceSeconds)) { channel.close(promise: nil) }
  }

  /// What RFC 6455 makes a close frame from a client fail the connection
  /// for: a 1-byte body or a code that may not be sent (§7.4, 1002), a
  /// reason that is not UTF-8 (§8.1, 1007).
  static func closeProblem(_ body: ByteBuffer) -> (ConnectionBudget.Cut, String, UInt16)? {
    var body = body
    if body.readableBytes == 1 {
      return (
        .protocolError, "a close frame with a 1-byte body (RFC 6455 §5.5.1: none, or a 2-byte code)", 1002
      )
    }
    guard let code = body.readInteger(as: UInt16.self) else { return nil }
    if let problem = WebSocketValidation.closeCodeProblem(code) {
      return (.protocolError, "\(problem) (RFC 6455 §7.4)", 1002)
    }
    if let bad = WebSocketValidation.firstInvalidUTF8(Array(body.readableBytesView)) {
      return (.invalidText, "a close reason that is not UTF-8 (byte \(bad)) (RFC 6455 §8.1)", 1007)
    }
    return nil
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

  @discardableResult
  private func logEvent(
    _ name: String, _ fields: [FieldValue.Member], fromClient: Bool = true, diagnostics: [Diagnostic] = []
  ) -> DecodedRecord {
    var record = newRecord(fromClient: fromClient)
    record.event = (name, fields)
    record.layerDiagnostics = diagnostics
    session.recorder.emit(record, counts: false)
    return record
  }

  @discardableResult
  private func logClose(code: UInt16?, reason: String, byClient: Bool) -> DecodedRecord {
    let close = WebSocketCloseCode.event(code: code, reason: reason, by: byClient ? "client" : "server")
    return logEvent("ws.close", close.fields, fromClient: byClient, diagnostics: close.diagnostics)
  }
}
