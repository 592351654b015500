import PacketKit
import RiderCodec
import Testing

/// Decodes `text`, returning the error it throws or nil.
func riderDecodeError(_ text: String) -> DecodeError? {
  do {
    _ = try RiderCodec().decode(Array(text.utf8))
    return nil
  } catch {
    return error
  }
}

/// Structural damage: every error names its code and offset (and key for JSON).
@Suite struct RiderDecodeErrorTests {
  // Offsets from Python:
  //   '{"left":"50","right":0}'.index('"50"')  -> 8
  //   '{"left":0,"right":null}'.index('null')  -> 18
  //   '{"command":1,"speed":0}'.index('1')     -> 11
  @Test func stringLeftIsAnErrorAtItsValue() {
    let error = riderDecodeError(#"{"left":"50","right":0}"#)
    #expect(error?.code == "wrong-type")
    #expect(error?.keyPath == "left")
    #expect(error?.offset == 8)
    #expect(error?.found == "string")
  }

  @Test(arguments: ["null", "{}", "[1]", #""x""#])
  func nonNumberRightIsAnError(value: String) {
    let error = riderDecodeError(#"{"left":0,"right":"# + value + "}")
    #expect(error?.code == "wrong-type")
    #expect(error?.keyPath == "right")
    #expect(error?.offset == 18)
  }

  @Test func nonStringMoveCommandIsAnError() {
    let error = riderDecodeError(#"{"command":1,"speed":0}"#)
    #expect(error?.code == "wrong-type")
    #expect(error?.keyPath == "command")
    #expect(error?.offset == 11)
  }

  @Test func moveSpeedOfWrongTypeIsAnError() {
    let error = riderDecodeError(#"{"command":"move","speed":"fast"}"#)
    #expect(error?.code == "wrong-type")
    #expect(error?.keyPath == "speed")
  }

  @Test(arguments: [("[1,2]", 0), (#"  "left""#, 2), ("42", 0), ("null", 0)])
  func nonObjectJSONIsAnError(text: String, offset: Int) {
    let error = riderDecodeError(text)
    #expect(error?.code == "not-object")
    #expect(error?.offset == offset)
  }

  @Test(arguments: [
    (#"{"left":}"#, "bad-json", 8), (#"{"left":50,"#, "bad-json", 11), (#"{"left":50"#, "bad-json", 10),
    // A leading zero: the number's start, the offset its text names.
    (#"{"left":05}"#, "bad-number", 8), ("", "truncated", 0),
  ])
  func badJSONReportsTheParsersOffset(text: String, code: String, offset: Int) {
    let error = riderDecodeError(text)
    #expect(error?.code == code)
    #expect(error?.offset == offset)
  }

  @Test(arguments: [
    ("50,-50", "bad-legacy", 6), ("1,2,3,4", "bad-legacy", 5), ("1,,3", "bad-legacy", 2),
    ("1,2-3,4", "bad-legacy", 3), ("1,2,-", "bad-legacy", 5), ("12345678901234567890,0,0", "bad-number", 18),
  ])
  func brokenLegacyTextIsAnError(text: String, code: String, offset: Int) {
    let error = riderDecodeError(text)
    #expect(error?.code == code)
    #expect(error?.offset == offset)
  }
}

/// Well-formed datagrams that the robot still acts on decode with diagnostics.
@Suite struct RiderDecodeWarningTests {
  let codec = RiderCodec()

  func decode(_ text: String) throws -> Decoded<RiderMessage> {
    try codec.decode(Array(text.utf8))
  }

  @Test func oversizeDatagramWarns() throws {
    let padding = String(repeating: "x", count: 1100)
    let text = #"{"left":10,"right":10,"timestamp":1,"pad":""# + padding + #""}"#
    let decoded = try decode(text)
    let oversize = decoded.diagnostics.first { $0.code == "oversize" }
    #expect(oversize?.severity == .warning)
    #expect(oversize?.range == 1024..<text.utf8.count)
  }

  @Test func exactlyTheReadLimitDoesNotWarn() throws {
    let head = #"{"left":1,"right":1,"timestamp":1,"pad":""#
    let text = head + String(repeating: "y", count: 1024 - head.utf8.count - 2) + #""}"#
    #expect(text.utf8.count == 1024)
    #expect(try decode(text).diagnostics.allSatisfy { $0.code != "oversize" })
  }

  @Test func missingLeftIsZeroWithWarning() throws {
    // len('{"right":10,"timestamp":1}') - 1 -> 25, the closing brace
    let decoded = try decode(#"{"right":10,"timestamp":1}"#)
    #expect(decoded.message == .drive(.init(left: 0, right: 10, timestamp: 1)))
    #expect(decoded.diagnostics.map(\.code) == ["missing-key"])
    #expect(decoded.diagnostics.first?.severity == .warning)
    #expect(decoded.fields.first(named: "left")?.value == .integer(0))
    #expect(decoded.fields.first(named: "left")?.range == 25..<25)
  }

  @Test func emptyObjectIsAStopWithTwoWarnings() throws {
    let decoded = try decode("{}")
    #expect(decoded.message == .drive(.init(left: 0, right: 0)))
    #expect(decoded.diagnostics.map(\.code) == ["missing-key", "missing-key", "missing-timestamp"])
  }

  @Test func boolsDecodeAsOneAndZeroWithWarnings() throws {
    let decoded = try decode(#"{"left":true,"right":false,"timestamp":1}"#)
    #expect(decoded.message == .drive(.init(left: 1, right: 0, timestamp: 1)))
    #expect(decoded.diagnostics.map(\.code) == ["bool-as-number", "bool-as-number"])
    #expect(decoded.fields.first(named: "left")?.value == .integer(1))
  }

  @Test func outOfRangeWarnsAndKeepsTheValue() throws {
    let decoded = try decode(#"{"left":150,"right":-100.5,"timestamp":1}"#)
    #expect(decoded.message == .drive(.init(left: 150, right: -100.5, timestamp: 1)))
    #expect(decoded.diagnostics.map(\.code) == ["out-of-range", "out-of-range"])
    #expect(decoded.diagnostics.first?.range == 8..<11)
  }

  @Test func unknownKeysGetOneNoteAndAppearInTheDissection() throws {
    let text = #"{"left":1,"right":2,"timestamp":3,"mode":"x","v":[1,2.5]}"#
    let decoded = try decode(text)
    #expect(decoded.diagnostics.map(\.code) == ["unknown-key"])
    #expect(decoded.diagnostics.first?.severity == .note)
    #expect(decoded.diagnostics.first?.text.contains("mode, v") == true)
    #expect(decoded.fields.map(\.name) == ["left", "right", "timestamp", "mode", "v"])
    #expect(decoded.fields.first(named: "v")?.shape == .array)
    #expect(
      decoded.message
        == .drive(
          .init(
            left: 1, right: 2, timestamp: 3,
            extraKeys: [.init("mode", .string("x")), .init("v", .array([.integer(1), .number(2.5)]))])))
    #expect(try codec.encode(decoded.message) == Array(text.utf8))
  }

  @Test func missingTimestampIsANote() throws {
    let decoded = try decode(#"{"left":1,"right":2}"#)
    #expect(decoded.diagnostics.map(\.code) == ["missing-timestamp"])
    #expect(decoded.diagnostics.first?.severity == .note)
  }

  @Test func nonNumberTimestampWarnsAndIsKept() throws {
    let decoded = try decode(#"{"left":0,"right":0,"timestamp":"now"}"#)
    #expect(decoded.diagnostics.map(\.code) == ["wrong-type"])
    #expect(
      decoded.message == .drive(.init(left: 0, right: 0, extraKeys: [.init("timestamp", .string("now"))])))
    let bytes = try codec.encode(decoded.message)
    #expect(try codec.decode(bytes).message == decoded.message)
  }

  @Test func repeatedKeyUsesTheLastAsPythonDoes() throws {
    let decoded = try decode(#"{"left":10,"left":20,"right":0,"timestamp":1}"#)
    #expect(decoded.message == .drive(.init(left: 20, right: 0, timestamp: 1)))
    #expect(decoded.diagnostics.map(\.code) == ["duplicate-key"])
    #expect(decoded.fields.map(\.name) == ["left", "right", "timestamp"])
    #expect(decoded.fields.first(named: "left")?.value == .integer(20))
  }

  @Test func unknownMoveCommandWarns() throws {
    let decoded = try decode(#"{"command":"spin","speed":0,"direction":0,"timestamp":1}"#)
    #expect(decoded.messageName == "move")
    #expect(decoded.diagnostics.map(\.code) == ["unknown-enum"])
  }

  @Test func moveMissingSpeedWarns() throws {
    let decoded = try decode(#"{"command":"stop","direction":0,"timestamp":1}"#)
    #expect(decoded.message == .move(.init(command: "stop", speed: 0, direction: 0, timestamp: 1)))
    #expect(decoded.diagnostics.map(\.code) == ["missing-key"])
  }

  @Test func legacyOutOfRangeWarns() throws {
    let decoded = try decode("150,-50,0")
    #expect(decoded.message == .legacy(.init(left: 150, right: -50, direction: 0)))
    #expect(decoded.diagnostics.map(\.code) == ["out-of-range"])
    #expect(decoded.diagnostics.first?.range == 0..<3)
  }

  @Test func legacyUnknownDirectionWarns() throws {
    let decoded = try decode("0,0,7")
    #expect(decoded.diagnostics.map(\.code) == ["unknown-enum"])
    #expect(decoded.fields.first(named: "direction")?.value == .enumeration(name: "unknown(7)", raw: 7))
  }

  @Test func legacyToleratesSpacesAndANewline() throws {
    let decoded = try decode(" 50 , +20 ,1\r\n")
    #expect(decoded.message == .legacy(.init(left: 50, right: 20, direction: 1)))
    #expect(decoded.diagnostics.isEmpty)
  }
}
