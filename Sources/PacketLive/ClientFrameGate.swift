import NIOCore
import NIOWebSocket

/// What RFC 6455 says a server must refuse in a client's frames: an
/// unmasked frame (§5.1), RSV bits with no extension negotiated, a
/// reserved opcode (§5.2), and fragments out of order (§5.4). Each fails
/// the connection with close 1002.
/// Sits between NIO's frame decoder and the aggregator, so it also tells
/// the connection's guard how many bytes each frame freed or keeps held.
final class ClientFrameGate: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame

  private let connectionGuard: ConnectionGuard
  /// Payload bytes of a fragmented message the aggregator holds.
  private var held = 0
  /// A text or binary message has begun and its final fragment not come.
  private var inMessage = false
  private var failed = false

  package init(connectionGuard: ConnectionGuard) {
    self.connectionGuard = connectionGuard
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !failed else { return }
    let frame = Self.unwrapInboundIn(data)
    connectionGuard.consumed(Self.wireSize(frame))
    connectionGuard.frameArrived()
    if let violation = Self.violation(frame) ?? fragmentViolation(frame) {
      failed = true
      connectionGuard.cut(.protocolError, violation, closeCode: 1002)
      return
    }
    if !frame.opcode.isControlOpcode {
      inMessage = !frame.fin
      if frame.fin {
        connectionGuard.consumed(held)
        held = 0
      } else {
        held += frame.length
        connectionGuard.held(frame.length)
      }
    }
    context.fireChannelRead(data)
  }

  /// A continuation with no message begun, or a new message before the
  /// last one's final fragment (RFC 6455 §5.4).
  private func fragmentViolation(_ frame: WebSocketFrame) -> String? {
    switch frame.opcode {
    case .continuation where !inMessage:
      return "a continuation frame with no message begun (RFC 6455 §5.4)"
    case .text where inMessage, .binary where inMessage:
      return "a new message before the last one's final fragment (RFC 6455 §5.4)"
    default:
      return nil
    }
  }

  /// Why RFC 6455 makes this frame from a client fail the connection, or nil.
  package static func violation(_ frame: WebSocketFrame) -> String? {
    if frame.maskKey == nil {
      return "an unmasked frame from the client (RFC 6455 §5.1: a client masks every frame)"
    }
    let reservedBits = [(frame.rsv1, "RSV1"), (frame.rsv2, "RSV2"), (frame.rsv3, "RSV3")].filter(\.0).map(\.1)
    if !reservedBits.isEmpty {
      return "\(reservedBits.joined(separator: ", ")) set with no extension negotiated (RFC 6455 §5.2)"
    }
    let opcode = UInt8(webSocketOpcode: frame.opcode)
    if (0x3...0x7).contains(opcode) || (0xB...0xF).contains(opcode) {
      let hex = String(opcode, radix: 16, uppercase: true)
      return "reserved opcode 0x\(hex) (RFC 6455 §5.2)"
    }
    return nil
  }

  /// The frame's size on the wire with the shortest length encoding, which
  /// RFC 6455 §5.2 requires (a longer one only makes its own connection
  /// look larger to the budget).
  static func wireSize(_ frame: WebSocketFrame) -> Int {
    let length = frame.length
    let extended = length <= 125 ? 0 : (length <= 0xFFFF ? 2 : 8)
    return 2 + extended + (frame.maskKey == nil ? 0 : 4) + length
  }
}
