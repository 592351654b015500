import Foundation
import PacketKit
import Testing

/// JSON strings: the plain-text check runs eight bytes at a time, so every
/// special byte is put at every position of strings around the word size.
/// The output must be what the per-byte rule gives, and must read back
/// (through Foundation's JSONSerialization) as the original text.
@Suite struct JSONStringEscapeTests {
  /// RFC 8259's escapes, one scalar at a time: the reference.
  static func reference(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  static func expectWritten(_ text: String) throws {
    var writer = JSONWriter()
    writer.string(text)
    #expect(writer.text == reference(text), "\(Array(text.utf8))")
    let back = try JSONSerialization.jsonObject(with: Data(writer.bytes), options: .fragmentsAllowed)
    #expect(back as? String == text, "\(Array(text.utf8))")
  }

  @Test func everySpecialByteAtEveryPosition() throws {
    let specials: [Character] = [
      "\"", "\\", "\n", "\u{01}", "\u{1F}", "\t", "\r", " ", "!", "#", "[", "]", "é", "→",
    ]
    // Past 32 bytes, a text is scanned by the C kernel (JSONWordScan.plainPrefix).
    for length in 0..<72 {
      for position in 0..<max(length, 1) {
        for special in specials {
          var characters = Array(repeating: Character("a"), count: length)
          if length > 0 { characters[position] = special }
          try Self.expectWritten(String(characters))
        }
      }
    }
  }

  @Test func randomText() throws {
    var random = SplitMix64(seed: 0xE5C)
    let pool: [Unicode.Scalar] = [
      "a", "Z", "0", " ", "\"", "\\", "/", "\u{00}", "\u{08}", "\u{1F}", "\u{7F}", "é", "→", "😀",
    ]
    for _ in 0..<20_000 {
      var text = String.UnicodeScalarView()
      for _ in 0..<random.below(70) { text.append(pool[random.below(pool.count)]) }
      try Self.expectWritten(String(text))
    }
  }
}
