import PacketKit

/// The legacy text form `left,right,direction`: three ASCII integers.
enum RiderLegacyText {
  /// More digits than this cannot be a speed and would overflow; refuse them.
  static let maxDigits = 18

  /// True when the bytes hold only digits, signs, commas and white space,
  /// with at least one comma: that is the legacy form or a broken one, never JSON.
  static func looksLegacy(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var sawComma = false
    for byte in bytes {
      switch byte {
      case UInt8(ascii: ","): sawComma = true
      case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): continue
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): continue
      default: return false
      }
    }
    return sawComma
  }

  /// The three integers and the byte range of each.
  static func parse(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> [(value: Int, range: Range<Int>)]
  {
    var values: [(value: Int, range: Range<Int>)] = []
    var index = 0
    func byte(at i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }
    func isSpace(_ c: UInt8?) -> Bool {
      c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r") || c == UInt8(ascii: "\n")
    }
    func isDigit(_ c: UInt8?) -> Bool {
      guard let c else { return false }
      return c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
    }
    while true {
      while isSpace(byte(at: index)) { index += 1 }
      let start = index
      let negative = byte(at: index) == UInt8(ascii: "-")
      if negative || byte(at: index) == UInt8(ascii: "+") { index += 1 }
      var magnitude = 0
      let digitsStart = index
      while let c = byte(at: index), isDigit(c) {
        guard index - digitsStart < maxDigits else {
          let index = index
          throw DecodeError(code: "bad-number", offset: index) {
            .init(
              "integer at offset \(start) has more than \(maxDigits) digits", expected: "an integer −100…100")
          }
        }
        magnitude = magnitude * 10 + Int(c - UInt8(ascii: "0"))
        index += 1
      }
      guard index > digitsStart else {
        let (index, found) = (index, byte(at: index))
        throw DecodeError(code: "bad-legacy", offset: index) {
          .init(
            "legacy form left,right,direction needs an integer at offset \(index)", expected: "an integer",
            found: describe(found))
        }
      }
      values.append((negative ? -magnitude : magnitude, start..<index))
      while isSpace(byte(at: index)) { index += 1 }
      guard let separator = byte(at: index) else { break }
      guard separator == UInt8(ascii: ",") else {
        let index = index
        throw DecodeError(code: "bad-legacy", offset: index) {
          .init(
            "legacy form expects ',' at offset \(index), found \(describe(separator))", expected: ",",
            found: describe(separator))
        }
      }
      guard values.count < 3 else {
        let index = index
        throw DecodeError(code: "bad-legacy", offset: index) {
          .init(
            "legacy form left,right,direction has more than 3 values (a 4th after offset \(index))",
            expected: "3 integers", found: "more than 3")
        }
      }
      index += 1
    }
    guard values.count == 3 else {
      let count = values.count
      throw DecodeError(code: "bad-legacy", offset: bytes.count) {
        .init(
          "legacy form left,right,direction needs 3 integers, found \(count)", expected: "3 integers",
          found: "\(count)")
      }
    }
    return values
  }

  static func format(_ legacy: RiderLegacy) -> [UInt8] {
    // Digits written as bytes, not through an interpolated String.
    var writer = JSONWriter(capacity: 32)
    writer.integer(legacy.left)
    writer.raw(",")
    writer.integer(legacy.right)
    writer.raw(",")
    writer.integer(legacy.direction)
    return writer.bytes
  }

  private static func describe(_ byte: UInt8?) -> String {
    guard let byte else { return "end of input" }
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(Hex.compact([byte]))"
  }
}
