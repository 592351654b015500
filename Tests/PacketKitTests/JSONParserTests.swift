import PacketKit
import Testing

/// The strict JSON parser: ranges, and the threats it must refuse.
@Suite struct JSONParserTests {
  @Test func rangesPointAtKeysAndValues() throws {
    let text = #"{"left": 50, "right":-37.5}"#
    let value = try JSONParser.parse(Array(text.utf8))
    let left = try #require(value.member("left"))
    #expect(left.keyRange == 1..<7)
    #expect(left.value.range == 9..<11)
    let right = try #require(value.member("right"))
    #expect(right.value.range == 21..<26)
    #expect(right.value.number == -37.5)
    #expect(value.range == 0..<27)
  }

  @Test func integersStayIntegers() throws {
    let value = try JSONParser.parse(Array(#"[1, 1.0, 1e2, -0]"#.utf8))
    let elements = try #require(value.elements)
    #expect(elements[0].fieldValue == .integer(1))
    #expect(elements[1].fieldValue == .number(1))
    #expect(elements[2].fieldValue == .number(100))
  }

  @Test func escapesAndSurrogatePairsDecode() throws {
    let value = try JSONParser.parse(Array(#""a\"b\\c\n\u00e9\ud83d\ude00""#.utf8))
    #expect(value.string == "a\"b\\c\né😀")
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
    do {
      _ = try JSONParser.parse(Array(text.utf8))
      Issue.record("\(text) should not parse")
    } catch {
      #expect(error.code == code, "\(text)")
      #expect(error.offset != nil)
    }
  }

  @Test func invalidUTF8IsRejectedWithItsOffset() {
    // 0xC0 0xAF is an overlong encoding of '/'; 0xFF is never valid.
    for bytes: [UInt8] in [
      [0x22, 0x61, 0xC0, 0xAF, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
    ] {
      do {
        _ = try JSONParser.parse(bytes)
        Issue.record("\(bytes) should not parse")
      } catch {
        #expect(error.code == "bad-utf8")
      }
    }
    do {
      _ = try JSONParser.parse([0x22, 0x61, 0xFF, 0x22])
    } catch {
      #expect(error.offset == 2)
    }
  }

  @Test func depthLimitStopsDeepNesting() {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    do {
      _ = try JSONParser.parse(Array(deep.utf8))
      Issue.record("deep nesting should be refused")
    } catch {
      #expect(error.code == "too-deep")
    }
  }

  @Test func resourceExhaustionSizeLimit() {
    let limits = JSONParser.Limits(maxBytes: 16)
    do {
      _ = try JSONParser.parse(Array(#"{"key":"a long value"}"#.utf8), limits: limits)
      Issue.record("oversize input should be refused")
    } catch {
      #expect(error.code == "too-large")
    }
  }

  @Test func elementCountLimit() {
    let limits = JSONParser.Limits(maxElements: 10)
    let many = "[" + Array(repeating: "1", count: 50).joined(separator: ",") + "]"
    #expect(throws: DecodeError.self) { try JSONParser.parse(Array(many.utf8), limits: limits) }
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
    let parsed = try JSONParser.parse(writer.bytes)
    #expect(
      parsed.fieldValue == .object([.init("k", .array([.integer(1), .string("é"), .bool(true), .null]))]))
  }
}
