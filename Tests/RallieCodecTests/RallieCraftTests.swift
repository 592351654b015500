import PacketKit
import RallieCodec
import Testing

// Check bytes below were computed with Python (xor and crclo as in RallieDecodeTests.swift):
//   '%02X' % xor('5AA58332322D2D3201')  -> 4F
//   '%02X' % xor('5AA58365322D2D3200')  -> 19
//   '%02X' % (0x4E ^ 0xFF)              -> B1

/// `craft` from flags: defaults, variants, range refusals, --force, --bad-check.
@Suite struct RallieCraftTests {
  let codec = RallieCodec()

  /// upper 50, lower 50, pitch 45, yaw 45, feed 50 as the CLI hands them over.
  func values(
    _ extra: [String: FieldValue] = [:], force: Bool = false, badCheck: Bool = false
  ) -> CraftValues {
    let base: [String: FieldValue] = [
      "upper_wheel": .integer(50), "lower_wheel": .integer(50), "pitch": .integer(45),
      "yaw": .integer(45), "feed": .integer(50),
    ]
    return CraftValues(base.merging(extra) { $1 }, force: force, badCheck: badCheck)
  }

  /// Why `craft` refuses these values for a command; nil when it crafts them.
  func refusal(_ given: CraftValues) -> EncodeError? {
    do {
      _ = try codec.craft("rallie", values: given)
      return nil
    } catch {
      return error
    }
  }

  @Test func defaultsAreStopAndXOR() throws {
    #expect(try codec.craft("rallie", values: values()) == Hex.parse("5A A5 83 32 32 2D 2D 32 00 4E"))
  }

  @Test func modbusVariantByEnumerationOrName() throws {
    let expected = try Hex.parse("5A A5 83 32 32 2D 2D 32 00 41")
    #expect(
      try codec.craft(
        "rallie", values: values(["checksum": .enumeration(name: "modbus16lo", raw: 1)])) == expected)
    #expect(try codec.craft("rallie", values: values(["checksum": .string("modbus16lo")])) == expected)
  }

  @Test func startFlagSetsControl() throws {
    let bytes = try codec.craft(
      "rallie", values: values(["control": .enumeration(name: "start", raw: 1)]))
    #expect(bytes == (try Hex.parse("5A A5 83 32 32 2D 2D 32 01 4F")))
    let byName = try codec.craft("command", values: values(["control": .string("start")]))
    #expect(byName == bytes)
  }

  @Test func responseDefaultsToAccepted() throws {
    #expect(try codec.craft("rallie-response", values: CraftValues()) == Hex.parse("5A A5 82 01 7C"))
    let completed = try codec.craft(
      "rallie-response",
      values: CraftValues([
        "code": .enumeration(name: "completed", raw: 2),
        "checksum": .enumeration(name: "modbus16lo", raw: 1),
      ]))
    #expect(completed == (try Hex.parse("5A A5 82 02 E3")))
  }

  @Test func missingWheelIsRefused() throws {
    var given = values()
    given["upper_wheel"] = nil
    let error = try #require(refusal(given))
    #expect(error.code == "missing-field")
    #expect(error.field == "upper_wheel")
  }

  @Test(arguments: [("upper_wheel", 101), ("lower_wheel", 101), ("pitch", 91), ("yaw", 91), ("feed", 101)])
  func outOfRangeIsRefused(field: String, value: Int64) throws {
    let error = try #require(refusal(values([field: .integer(value)])))
    #expect(error.code == "out-of-range")
    #expect(error.field == field)
  }

  @Test func negativeIsRefused() {
    #expect(throws: EncodeError.self) {
      try codec.craft("rallie", values: values(["feed": .integer(-1)]))
    }
  }

  @Test func forceCraftsOutOfRange() throws {
    let bytes = try codec.craft("rallie", values: values(["upper_wheel": .integer(101)], force: true))
    #expect(bytes == (try Hex.parse("5A A5 83 65 32 2D 2D 32 00 19")))
  }

  @Test func forceStillKeepsOneByte() throws {
    let error = try #require(refusal(values(["upper_wheel": .integer(256)], force: true)))
    // Not "out of range" (--force crafts those): no flag writes 256 in a byte.
    #expect(error.code == "too-wide")
    #expect(!error.forceCrafts)
    #expect(error.text.contains("u8 (1 byte)"))
    #expect(error.field == "upper_wheel")
  }

  @Test func unknownControlRefusedUnlessForced() throws {
    #expect(throws: EncodeError.self) {
      try codec.craft("rallie", values: values(["control": .integer(2)]))
    }
    let forced = try codec.craft("rallie", values: values(["control": .integer(2)], force: true))
    #expect(forced.count == 10)
    #expect(forced.dropLast().last == 2)
  }

  @Test func unknownControlNameIsRefused() throws {
    let error = try #require(refusal(values(["control": .string("go")])))
    #expect(error.code == "unknown-enum")
  }

  @Test func fractionalValueIsRefused() throws {
    let error = try #require(refusal(values(["pitch": .number(45.5)])))
    #expect(error.code == "wrong-type")
    #expect(error.field == "pitch")
    #expect(error.text == "pitch must be a whole number, not 45.5")
  }

  @Test func textForANumberIsRefused() throws {
    let error = try #require(refusal(values(["feed": .string("lots")])))
    #expect(error.code == "wrong-type")
    #expect(error.field == "feed")
    #expect(error.text.hasPrefix("feed must be a number, not "))
  }

  @Test func badCheckFlipsTheCheckByte() throws {
    let bytes = try codec.craft("rallie", values: values(badCheck: true))
    #expect(bytes == (try Hex.parse("5A A5 83 32 32 2D 2D 32 00 B1")))
    do {
      _ = try codec.decode(bytes)
      Issue.record("expected a bad check")
    } catch {
      #expect(error.code == "bad-check")
      #expect(error.offset == 9)
    }
  }

  @Test func unknownMessageIsRefused() {
    #expect(throws: EncodeError.self) { try codec.craft("serve", values: values()) }
  }
}
