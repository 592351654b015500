import CSIMD

/// The content rules RFC 6455 puts on text payloads and close frames.
public enum WebSocketValidation {
  /// Offset of the first byte that does not begin a well-formed UTF-8
  /// sequence (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF),
  /// or nil when all of `bytes` is valid.
  public static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    let count = bytes.count
    var index = 0
    while index < count {
      // ASCII runs by the C kernel (SSE2 on x86_64): JSON text messages are
      // mostly ASCII, a camera frame hundreds of KB of it.
      if bytes[index] < 0x80 {
        index += bytes.withUnsafeBufferPointer { buffer in
          buffer.baseAddress.map { csimd_ascii_prefix($0 + index, count - index) } ?? 0
        }
        continue
      }
      let lead = bytes[index]
      let trailing: Int
      var second: ClosedRange<UInt8> = 0x80...0xBF
      switch lead {
      case 0xC2...0xDF: trailing = 1
      case 0xE0:
        trailing = 2
        second = 0xA0...0xBF
      case 0xE1...0xEC, 0xEE...0xEF: trailing = 2
      case 0xED:
        trailing = 2
        second = 0x80...0x9F
      case 0xF0:
        trailing = 3
        second = 0x90...0xBF
      case 0xF1...0xF3: trailing = 3
      case 0xF4:
        trailing = 3
        second = 0x80...0x8F
      default: return index
      }
      guard index + trailing < count, second.contains(bytes[index + 1]) else { return index }
      var offset = 2
      while offset <= trailing {
        guard bytes[index + offset] & 0xC0 == 0x80 else { return index }
        offset += 1
      }
      index += trailing + 1
    }
    return nil
  }

  /// Why a close status code may not appear on the wire (RFC 6455 §7.4), or nil.
  public static func closeCodeProblem(_ code: UInt16) -> String? {
    switch code {
    case 0..<1000: "close code \(code) is below 1000, a range that is never used"
    case 1004: "close code 1004 is reserved"
    case 1005, 1006, 1015:
      "close code \(code) is reserved for reporting locally and must not be sent in a close frame"
    case 1000...1003, 1007...1014: nil
    case 1016..<3000: "close code \(code) is reserved for the protocol and not registered"
    case 3000..<5000: nil
    default: "close code \(code) is above 4999, outside every defined range"
    }
  }
}
