import PacketKit
import Testing

/// The strict JSON parser: ranges, and the threats it must refuse.
@Suite struct JSONParserTests {
  @Test func rangesPointAtKeysAndValues() throws {
    let text = #"{"left": 50, "right":-37.5}"#
    try JSONTape.read(Array(text.utf8)) { value in
      let left = try #require(value.member("left"))
      #expect(left.key.range == 1..<7)
      #expect(left.value.range == 9..<11)
      let right = try #require(value.member("right"))
      #expect(right.value.range == 21..<26)
      #expect(right.value.number == -37.5)
      #expect(value.range == 0..<27)
    }
  }

  @Test func integersStayIntegers() throws {
    try JSONTape.read(Array(#"[1, 1.0, 1e2, -0]"#.utf8)) { value in
      let elements = value.elements
      #expect(elements[0].fieldValue == .integer(1))
      #expect(elements[1].fieldValue == .number(1))
      #expect(elements[2].fieldValue == .number(100))
    }
  }

  @Test func escapesAndSurrogatePairsDecode() throws {
    let text = try JSONTape.read(Array(#""a\"b\\c\n\u00e9\ud83d\ude00""#.utf8)) { $0.string }
    #expect(text == "a\"b\\c\né😀")
  }

  @Test(arguments: [
    ("{\"a\":1,}", "bad-json"),
    ("[1 2]", "bad-json"),
    ("01", "bad-number"),
    ("1.", "bad-number"),
    ("\"\\ud800\"", "bad-string"),
    ("\"\\x\"", "bad-string"),
    ("\"a\u{01}\"", "bad-string"),
    ("{\"a\":1} x", "trailing-data"),
    ("tru", "bad-json"),
    ("", "truncated"),
    ("\"abc", "truncated"),
    ("1e999", "bad-number"),
  ])
  func rejectsMalformedText(text: String, code: String) {
    let error = JSONTape.error(parsing: Array(text.utf8))
    #expect(error?.code == code, "\(text)")
    #expect(error?.offset != nil)
  }

  @Test func invalidUTF8IsRejectedWithItsOffset() {
    // 0xC0 0xAF is an overlong encoding of '/'; 0xFF is never valid.
    for bytes: [UInt8] in [
      [0x22, 0x61, 0xC0, 0xAF, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
    ] {
      #expect(JSONTape.error(parsing: bytes)?.code == "bad-utf8", "\(bytes)")
    }
    #expect(JSONTape.error(parsing: [0x22, 0x61, 0xFF, 0x22])?.offset == 2)
  }

  @Test func depthLimitStopsDeepNesting() {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    #expect(JSONTape.error(parsing: Array(deep.utf8))?.code == "too-deep")
  }

  @Test func resourceExhaustionSizeLimit() {
    let limits = JSONTape.Limits(maxBytes: 16)
    let error = JSONTape.error(parsing: Array(#"{"key":"a long value"}"#.utf8), limits: limits)
    #expect(error?.code == "too-large")
  }

  @Test func elementCountLimit() {
    let limits = JSONTape.Limits(maxElements: 10)
    let many = "[" + Array(repeating: "1", count: 50).joined(separator: ",") + "]"
    #expect(JSONTape.error(parsing: Array(many.utf8), limits: limits)?.code == "too-many-elements")
    #expect(JSONTape.error(parsing: Array(many.utf8)) == nil)
  }
}

extension JSONTape {
  /// The error parsing `bytes` gives; nil when they parse.
  static func error(parsing bytes: [UInt8], limits: Limits = .default) -> DecodeError? {
    do {
      try read(bytes, limits: limits) { _ in }
      return nil
    } catch {
      return error as? DecodeError
    }
  }
}

@Suite struct JSONWriterTests {
  @Test func numbersAreShortestAndWholeNumbersHaveNoFraction() {
    #expect(JSONWriter.formatNumber(50) == "50")
    #expect(JSONWriter.formatNumber(-37.5) == "-37.5")
    #expect(JSONWriter.formatNumber(0.1) == "0.1")
    #expect(JSONWriter.formatNumber(-0.0) == "0")
    #expect(JSONWriter.formatNumber(1_700_000_000.25) == "1700000000.25")
  }

  @Test func stringsAreEscaped() {
    #expect(JSONWriter.quoted("a\"b\\\n\u{01}") == #""a\"b\\\n\u0001""#)
  }

  @Test func writtenTextParsesBack() throws {
    var writer = JSONWriter()
    writer.value(.object([.init("k", .array([.integer(1), .string("é"), .bool(true), .null]))]))
    let parsed = try JSONTape.read(writer.bytes) { $0.fieldValue }
    #expect(parsed == .object([.init("k", .array([.integer(1), .string("é"), .bool(true), .null]))]))
  }
}
