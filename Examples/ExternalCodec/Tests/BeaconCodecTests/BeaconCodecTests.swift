import BeaconCodec
import PacketKit
import Testing

/// Beacon's codec against the frames of README.md's table, worked out by
/// hand: a reading of seq 7, 42 %, 18.5 °C (185 = B9 00), 3700 mV (0E74),
/// status ok; XOR of B1 07 2A B9 00 74 0E 00 00 = 5F.
@Suite struct BeaconCodecTests {
  static let reading: [UInt8] = [0xB1, 0x07, 0x2A, 0xB9, 0x00, 0x74, 0x0E, 0x00, 0x00, 0x5F]

  @Test func decodesTheReadmesReading() throws {
    let decoded = try BeaconCodec().decode(Self.reading)
    #expect(decoded.messageName == "reading")
    #expect(decoded.fields.first(named: "moisture")?.value == .unsigned(42))
    #expect(decoded.fields.first(named: "temperature")?.value == .number(18.5))
    #expect(decoded.fields.first(named: "battery_mv")?.range == 5..<7)
    #expect(decoded.diagnostics.isEmpty)
  }

  @Test func encodesWhatItDecodes() throws {
    let decoded = try BeaconCodec().decode(Self.reading)
    #expect(try BeaconCodec().encode(decoded.message) == Self.reading)
  }

  @Test func aWrongCheckNamesItsOffset() {
    var damaged = Self.reading
    damaged[9] = 0x00
    #expect {
      try BeaconCodec().decode(damaged)
    } throws: { error in
      (error as? DecodeError)?.code == "bad-check" && (error as? DecodeError)?.offset == 9
    }
  }

  @Test func craftsFromValuesWithRanges() throws {
    let bytes = try BeaconCodec().craft(
      "reading",
      values: CraftValues([
        "seq": .integer(7), "moisture": .integer(42), "temperature": .number(18.5), "battery_mv": .integer(3700),
        "status": .enumeration(name: "ok", raw: 0),
      ]))
    #expect(bytes == Self.reading)
    #expect(throws: EncodeError.self) {
      try BeaconCodec().craft("reading", values: CraftValues(["moisture": .integer(140)]))
    }
  }
}
