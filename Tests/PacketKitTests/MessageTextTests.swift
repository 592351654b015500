import Foundation
import PacketKit
import Testing

/// What a message shows of hostile input: nothing a terminal acts on, no
/// more than a few dozen bytes of it, its escapes as they were written,
/// and the offset its header gives.
@Suite struct MessageTextTests {
  /// ECMA-48 §5: C0 is 00–1F, C1 is 80–9F (CSI is 9B, OSC is 9D); DEL is
  /// 7F. Unicode's bidirectional overrides and isolates (U+202A–202E,
  /// U+2066–2069, UAX #9) reorder what follows them.
  @Test(arguments: [
    ("\u{1B}[2J", #"\u001b[2J"#),
    ("\u{1B}]0;pwned\u{07}", #"\u001b]0;pwned\u0007"#),
    ("a\u{9B}31mb", #"a\u009b31mb"#),
    ("\u{9D}0;t\u{9C}", #"\u009d0;t\u009c"#),
    ("del\u{7F}", #"del\u007f"#),
    ("tab\there\nnew\rline", #"tab\there\nnew\rline"#),
    ("admin\u{202E}gpj.exe", #"admin\u202egpj.exe"#),
    ("\u{2066}x\u{2069}", #"\u2066x\u2069"#),
  ])
  func terminalControlsAreEscaped(text: String, shown: String) {
    #expect(TerminalText.escaped(text) == shown)
    var writer = JSONWriter()
    TerminalText.append(text, to: &writer)
    #expect(writer.text == shown)
  }

  /// The byte scan that passes clean text through agrees with the
  /// character rule, for every scalar of the first planes and more.
  @Test func theByteScanAgreesWithTheCharacterRule() {
    for value in Array(0..<0x3000) + [0xFEFF, 0x1F600, 0x10FFFF] {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let text = "a" + String(Character(scalar)) + "b"
      #expect(
        TerminalText.isPlain(text) == !TerminalText.needsEscape(scalar), "U+\(String(value, radix: 16))")
    }
  }

  @Test func printableTextIsLeftAlone() {
    for text in ["left", "deviceId", "héllo wörld", "中文", "😀 ok", "a\\u001b literal backslash", ""] {
      #expect(TerminalText.escaped(text) == text)
    }
  }

  @Test func displayedStringsAreQuotedAndTerminalSafe() {
    #expect(FieldValue.string("x\u{1B}[2Jy").display == #""x\u001b[2Jy""#)
    #expect(FieldValue.string("x\u{9B}y").display == #""x\u009by""#)
    #expect(FieldValue.enumeration(name: "\u{1B}c", raw: 1).display == #"\u001bc (1)"#)
  }

  @Test func excerptsAreCutToAFewDozenBytes() {
    let digits = "1" + String(repeating: "0", count: 10_000_000)
    let quoted = Excerpt.quoted(digits)
    #expect(quoted == "\"1" + String(repeating: "0", count: Excerpt.limit - 1) + "…\" (10000001 bytes)")
    #expect(Excerpt.quoted("short") == "\"short\"")
    // Cut at a character boundary: 39 ASCII bytes, then a 2-byte é.
    let accented = String(repeating: "a", count: 39) + "é" + "tail"
    #expect(Excerpt.short(accented) == String(repeating: "a", count: 39) + "…")
    #expect(Excerpt.quoted("\u{1B}[2J") == #""\u001b[2J""#)
    let bytes = Array(digits.utf8)
    let inPlace = bytes.withUnsafeBytes { Excerpt.quoted($0) }
    #expect(inPlace == quoted)
  }

  /// RFC 8259 §7: a lone surrogate escape is not a character. It is named
  /// as written, \ud800, not as the decimal 55296.
  @Test func loneSurrogatesAreShownInHex() throws {
    let high = try #require(JSONTape.error(parsing: Array(#"["\ud800"]"#.utf8)))
    #expect(high.code == "bad-string")
    #expect(high.text.contains(#"\ud800"#), "\(high.text)")
    #expect(!high.text.contains("55296"))
    #expect(high.offset == 2)  // the backslash
    let low = try #require(JSONTape.error(parsing: Array(#"["\uDC01"]"#.utf8)))
    #expect(low.text.contains(#"\udc01"#), "\(low.text)")
    #expect(low.offset == 2)
  }

  /// Each malformed text's error gives, in its offset, the offset its
  /// words name (the start of the escape, number or string), counted by
  /// hand from the text.
  @Test(arguments: [
    (#"["\ud800x"]"#, 2),  // lone high surrogate: its backslash
    (#"["\ud800\u0041"]"#, 2),  // high not followed by a low one
    (#"["\q"]"#, 2),  // unknown escape
    (#"["\"#, 2),  // escape cut off
    ("[0123]", 1),  // leading zero: the number's start
    ("[-01]", 1),
    ("[1e999]", 1),  // not a finite double: the number's start
    (#"{"a" 1}"#, 5),  // expected ':' where it is missing
    (#"["abc"#, 1),  // unclosed string: where it starts
  ])
  func errorOffsetsAreTheOnesTheTextNames(text: String, offset: Int) throws {
    let error = try #require(JSONTape.error(parsing: Array(text.utf8)))
    #expect(error.offset == offset, "\(text): \(error.text)")
    #expect(error.text.contains("offset \(offset)"), "\(text): \(error.text)")
  }

  @Test func hugeNumbersAreNamedNotRepeated() throws {
    let text = "[1" + String(repeating: "0", count: 10_000_000) + "]"
    let error = try #require(JSONTape.error(parsing: Array(text.utf8), limits: .init(maxBytes: 1 << 24)))
    #expect(error.code == "bad-number")
    #expect(error.text.utf8.count < 200, "\(error.text.prefix(300))")
    #expect(error.text.contains("(10000001 bytes)"))
    #expect(error.offset == 1)
  }

  @Test func longKeysAreCutInMessages() throws {
    let key = String(repeating: "k", count: 100_000)
    let error = try #require(JSONTape.error(parsing: Array("{\"\(key)\" 1}".utf8)))
    #expect(error.text.utf8.count < 200)
    #expect(error.text.contains("(100000 bytes)"))
  }

  /// printf("%.6f", -1.000001) is "-1.000001" (C11 §7.21.6.1): the sign,
  /// then the magnitude's digits. Splitting a rounded-down value made it
  /// "-2.999999".
  @Test func negativeValuesKeepTheirDigits() {
    #expect(JSONWriter.fixed(-1.000001, digits: 6) == "-1.000001")
    #expect(JSONWriter.fixed(-0.25, digits: 3) == "-0.250")
    #expect(JSONWriter.fixed(-62_135_596_800.5, digits: 6) == "-62135596800.500000")
    #expect(JSONWriter.fixed(1.000001, digits: 6) == "1.000001")
  }
}
