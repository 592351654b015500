import PacketCapture
import PacketKit

/// Feeds a WebSocketStream and keeps every event it emits.
struct WebSocketRecorder {
  var stream: WebSocketStream
  var events: [WebSocketEvent] = []

  init(limits: WebSocketLimits = .default) {
    stream = WebSocketStream(limits: limits)
  }

  /// A stream already upgraded through a real handshake with `extensions`
  /// accepted by the server; the handshake events are discarded.
  static func upgraded(extensions: String? = nil, limits: WebSocketLimits = .default) throws -> Self {
    var recorder = WebSocketRecorder(limits: limits)
    let (request, response) = WebSocketSamples.handshake(
      offer: extensions == nil ? nil : "permessage-deflate; client_max_window_bits", accept: extensions)
    recorder.feed(request, .clientToServer, frame: 1)
    recorder.feed(response, .serverToClient, frame: 2)
    guard recorder.errors.isEmpty, recorder.stream.isUpgraded else {
      throw WebSocketTestFailure(text: "handshake did not upgrade: \(recorder.events)")
    }
    recorder.events.removeAll()
    return recorder
  }

  mutating func feed(_ bytes: [UInt8], _ direction: WebSocketDirection, frame: Int = 1, time: Double = 0) {
    var collected: [WebSocketEvent] = []
    bytes.withUnsafeBytes { buffer in
      stream.feed(buffer, direction: direction, frame: frame, time: time) { collected.append($0) }
    }
    events += collected
  }

  mutating func feed(hex: String, _ direction: WebSocketDirection, frame: Int = 1) throws {
    feed(try Hex.parse(hex), direction, frame: frame)
  }

  /// `missing` nil: a gap of unknown size (the overload without a count).
  mutating func gap(_ direction: WebSocketDirection, frame: Int = 1, missing: Int? = nil) {
    var collected: [WebSocketEvent] = []
    if let missing {
      stream.gap(direction: direction, frame: frame, time: 0, missingBytes: missing) { collected.append($0) }
    } else {
      stream.gap(direction: direction, frame: frame, time: 0) { collected.append($0) }
    }
    events += collected
  }

  mutating func finish(_ direction: WebSocketDirection, frame: Int = 1) {
    var collected: [WebSocketEvent] = []
    stream.finish(direction: direction, frame: frame, time: 0) { collected.append($0) }
    events += collected
  }

  var messages: [WebSocketMessage] { events.compactMap(\.message) }
  var controls: [WebSocketControl] { events.compactMap(\.control) }
  var errors: [(code: String, text: String)] { events.compactMap(\.error) }
  var errorCodes: [String] { errors.map(\.code) }
}

struct WebSocketTestFailure: Error, CustomStringConvertible {
  var text: String
  var description: String { text }
}

extension WebSocketEvent {
  var message: WebSocketMessage? {
    if case .message(let message) = self { return message }
    return nil
  }

  var control: WebSocketControl? {
    if case .control(let control, _, _, _) = self { return control }
    return nil
  }

  var error: (code: String, text: String)? {
    if case .error(_, _, _, let code, let text) = self { return (code, text) }
    return nil
  }
}

extension WebSocketMessage {
  var text: String { String(decoding: payload, as: UTF8.self) }
}

enum WebSocketSamples {
  /// The key and accept value of RFC 6455 §1.3.
  static let key = "dGhlIHNhbXBsZSBub25jZQ=="
  static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

  static func handshake(
    offer: String?, accept extensions: String?, status: String = "101 Switching Protocols"
  )
    -> (request: [UInt8], response: [UInt8])
  {
    var request =
      "GET /ws/connect/dev-1 HTTP/1.1\r\nHost: aerie.local:8000\r\nUpgrade: websocket\r\n"
      + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
    if let offer { request += "Sec-WebSocket-Extensions: \(offer)\r\n" }
    request += "\r\n"
    var response =
      "HTTP/1.1 \(status)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n"
    if let extensions { response += "Sec-WebSocket-Extensions: \(extensions)\r\n" }
    response += "\r\n"
    return (Array(request.utf8), Array(response.utf8))
  }

  /// One frame laid out as RFC 6455 §5.2 draws it. `mask` nil sends it unmasked.
  static func frame(
    opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, mask: [UInt8]? = nil,
    lengthForm: Int? = nil
  ) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    let form = lengthForm ?? (payload.count < 126 ? 7 : payload.count <= 0xFFFF ? 16 : 64)
    switch form {
    case 7: out.append(maskBit | UInt8(payload.count))
    case 16:
      out.append(maskBit | 126)
      out += [UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
    default:
      out.append(maskBit | 127)
      out += (0..<8).reversed().map { UInt8(UInt64(payload.count) >> UInt64(8 * $0) & 0xFF) }
    }
    guard let mask else { return out + payload }
    return out + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
  }

  /// A raw DEFLATE stream of `1 + 258 * repeats` zero bytes, written by hand
  /// with the fixed Huffman codes of RFC 1951 §3.2.6: a literal 0, then
  /// <length 258, distance 1> pairs at 13 bits each, then an empty stored block
  /// whose 00 00 FF FF is stripped as RFC 7692 §7.2.1 says.
  static func zeroBomb(repeats: Int) -> [UInt8] {
    var writer = BitWriter()
    writer.bits(0, 1)  // BFINAL
    writer.bits(1, 2)  // BTYPE fixed Huffman
    writer.huffman(0x30, 8)  // literal 0
    for _ in 0..<repeats {
      writer.huffman(0xC5, 8)  // length code 285: 258
      writer.huffman(0, 5)  // distance code 0: 1
    }
    writer.huffman(0, 7)  // end of block
    writer.bits(0, 3)  // stored block, not final
    writer.align()
    return writer.bytes  // its LEN/NLEN (00 00 FF FF) left off
  }

  struct BitWriter {
    var bytes: [UInt8] = []
    var used = 8

    mutating func bits(_ value: UInt32, _ count: Int) {
      for index in 0..<count { bit(UInt8(value >> UInt32(index) & 1)) }
    }

    mutating func huffman(_ code: UInt32, _ count: Int) {
      for index in (0..<count).reversed() { bit(UInt8(code >> UInt32(index) & 1)) }
    }

    mutating func align() { used = 8 }

    private mutating func bit(_ value: UInt8) {
      if used == 8 {
        bytes.append(0)
        used = 0
      }
      bytes[bytes.count - 1] |= value << UInt8(used)
      used += 1
    }
  }
}
