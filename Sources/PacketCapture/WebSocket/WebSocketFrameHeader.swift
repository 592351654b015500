import CSIMD

/// A base framing header (RFC 6455 §5.2):
///
///     FIN RSV1 RSV2 RSV3 opcode(4) | MASK len(7) | [len16 | len64] | [mask key(4)]
struct WebSocketFrameHeader: Sendable, Hashable {
  var fin: Bool
  var rsv1: Bool
  var rsv2: Bool
  var rsv3: Bool
  var opcode: UInt8
  var masked: Bool
  /// The masking key, first key byte in the top 8 bits.
  var maskKey: UInt32
  var payloadLength: UInt64
  var headerLength: Int
  /// False when a 16- or 64-bit length carries a value a shorter form could hold.
  var lengthIsMinimal: Bool

  static let continuation: UInt8 = 0x0
  static let text: UInt8 = 0x1
  static let binary: UInt8 = 0x2
  static let close: UInt8 = 0x8
  static let ping: UInt8 = 0x9
  static let pong: UInt8 = 0xA

  var isControl: Bool { opcode & 0x8 != 0 }
  var isDataStart: Bool { opcode == Self.text || opcode == Self.binary }
  var wireLength: UInt64 { UInt64(headerLength) &+ payloadLength }

  static func isDefined(opcode: UInt8) -> Bool {
    switch opcode {
    case continuation, text, binary, close, ping, pong: true
    default: false
    }
  }

  /// How many header bytes a header whose second byte is `byte1` occupies.
  static func length(byte1: UInt8) -> Int {
    let ext =
      switch byte1 & 0x7F {
      case 126: 2
      case 127: 8
      default: 0
      }
    return 2 + ext + (byte1 & 0x80 != 0 ? 4 : 0)
  }

  /// Parses the header at `start`, or nil while more bytes are needed.
  static func parse(_ bytes: [UInt8], at start: Int = 0) -> WebSocketFrameHeader? {
    guard start >= 0, bytes.count - start >= 2 else { return nil }
    let byte0 = bytes[start]
    let byte1 = bytes[start + 1]
    let headerLength = length(byte1: byte1)
    guard bytes.count - start >= headerLength else { return nil }
    var cursor = start + 2
    var length = UInt64(byte1 & 0x7F)
    var minimal = true
    if length == 126 {
      length = UInt64(bytes[cursor]) << 8 | UInt64(bytes[cursor + 1])
      cursor += 2
      minimal = length >= 126
    } else if length == 127 {
      length = 0
      for index in cursor..<cursor + 8 { length = length << 8 | UInt64(bytes[index]) }
      cursor += 8
      minimal = length > 0xFFFF
    }
    var key: UInt32 = 0
    let masked = byte1 & 0x80 != 0
    if masked {
      for index in cursor..<cursor + 4 { key = key << 8 | UInt32(bytes[index]) }
    }
    return WebSocketFrameHeader(
      fin: byte0 & 0x80 != 0, rsv1: byte0 & 0x40 != 0, rsv2: byte0 & 0x20 != 0, rsv3: byte0 & 0x10 != 0,
      opcode: byte0 & 0x0F, masked: masked, maskKey: key, payloadLength: length,
      headerLength: headerLength, lengthIsMinimal: minimal)
  }

  /// The masking key byte that applies to payload byte `index`.
  @inline(__always)
  private func maskByte(_ index: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: maskKey >> (24 - 8 * UInt32(index & 3)))
  }

  /// Unmasks `bytes` in place, which are this frame's payload from byte
  /// `offset` on (nothing when the frame is not masked): the C kernel, 32
  /// bytes a step with AVX2, with the key turned to the offset.
  func unmask(_ bytes: UnsafeMutableBufferPointer<UInt8>, payloadOffset offset: Int) {
    guard masked, let base = bytes.baseAddress else { return }
    let key = (maskByte(offset), maskByte(offset + 1), maskByte(offset + 2), maskByte(offset + 3))
    withUnsafeBytes(of: key) { key in
      csimd_xor_mask(base, bytes.count, key.assumingMemoryBound(to: UInt8.self).baseAddress)
    }
  }
}

/// What the decoder knows about the connection when it judges a header.
struct WebSocketFrameRules: Sendable, Hashable {
  var direction: WebSocketDirection
  var deflate: Bool
  /// An extension other than permessage-deflate was accepted: it may use RSV bits.
  var otherExtensions: Bool
  var maxMessageBytes: Int

  /// Whether the first two bytes of a header could start a frame this peer
  /// sends on a healthy connection. `after` is the frame just before, if known.
  func plausibleStart(byte0: UInt8, byte1: UInt8, after previous: WebSocketFrameHeader? = nil) -> Bool {
    let opcode = byte0 & 0x0F
    guard WebSocketFrameHeader.isDefined(opcode: opcode) else { return false }
    let isControl = opcode & 0x8 != 0
    if byte0 & 0x30 != 0, !otherExtensions { return false }
    if byte0 & 0x40 != 0, !(deflate && (opcode == 1 || opcode == 2)), !otherExtensions { return false }
    guard (byte1 & 0x80 != 0) == (direction == .clientToServer) else { return false }
    if isControl, byte0 & 0x80 == 0 || byte1 & 0x7F > 125 { return false }
    if let previous, !previous.isControl {
      // A fragmented message goes on with continuations; a finished one
      // cannot be continued.
      if !previous.fin, opcode == 1 || opcode == 2 { return false }
      if previous.fin, opcode == 0 { return false }
    }
    return true
  }

  /// Whether a whole header is one this peer could send: the check used to
  /// resynchronise after lost bytes.
  func plausible(_ header: WebSocketFrameHeader) -> Bool {
    var byte0 = header.opcode
    if header.fin { byte0 |= 0x80 }
    if header.rsv1 { byte0 |= 0x40 }
    if header.rsv2 { byte0 |= 0x20 }
    if header.rsv3 { byte0 |= 0x10 }
    let len7 = header.payloadLength <= 125 ? UInt8(header.payloadLength) : 126
    let byte1 = (header.masked ? 0x80 : 0) | len7
    // An empty fragment that is not the last is legal but never sent in
    // practice, and runs of zero bytes look just like it.
    let emptyFragment = !header.isControl && !header.fin && header.payloadLength == 0
    return plausibleStart(byte0: byte0, byte1: byte1) && header.lengthIsMinimal
      && header.payloadLength <= UInt64(max(maxMessageBytes, 0)) && !emptyFragment
  }
}
