import BuiltinCodecs
import LegCtrlCodec
import PacketFuzz
import PacketKit
import RallieCodec
import Testing

@testable import SpecCodecs

/// Specs/legctrl.ksy and Specs/rallie.ksy held against the Swift codecs
/// they describe: docs/protocols.md's golden vectors and the damaged and odd
/// frames around them decode alike (message, fields, byte ranges,
/// diagnostic and error codes and offsets; words may differ), re-encode to
/// the same bytes, and craft alike.
@Suite struct SpecAgainstSwiftTests {
  static let legctrlVectors = [
    "01 03 02 00 DC 05", "01 01 00 00", "01 02 00 00", "01 04 00 00",
    "01 10 08 00 00 00 00 00 E8 1C 00 00", "01 10 08 00 02 01 C8 00 E8 1C 00 00",
  ]

  /// Frames around the vectors: every error path and diagnostic of §2 and §5.
  static let legctrlOdd = [
    "", "01", "02", "01 03", "01 03 02", "01 03 09 00", "01 03 02 00 DC", "01 03 02 00 DC 05 00",
    "01 03 02 07 DC 05", "01 03 02 00 10 27", "01 03 01 00 DC", "01 03 00 00", "01 03 03 00 DC 05 00",
    "01 01 02 00 AA BB", "01 02 01 05 AA", "01 04 08 00 00 00 00 00 00 00 00 00", "01 3F 00 00",
    "01 3F 02 01 AA BB",
    "01 10 07 00 00 00 00 00 E8 1C 00", "01 10 08 00 05 09 C8 00 E8 1C 01 00",
    "01 10 08 00 02 FF FF FF FF FF 00 00",
    "01 10 00 00",
  ]

  static let rallieVectors = [
    "5A A5 83 32 32 2D 2D 32 00 4E", "5A A5 83 32 32 2D 2D 32 00 41", "5A A5 82 00 7D", "5A A5 82 01 7C",
    "5A A5 82 02 7F", "5A A5 82 00 62", "5A A5 82 01 A3", "5A A5 82 02 E3",
  ]

  static let rallieOdd = [
    "", "5A", "5B", "5A A4", "5A A5", "5A A5 83 32 32 2D 2D 32 00 4F", "5A A5 83 65 32 2D 2D 32 07 00",
    "5A A5 84 32 32 2D 2D 32 00 00", "5A A5 82 09 00", "5A A5 83 32 32 2D 2D 32 00 4E 00", "5A A5 82 00",
    "00 A5 82 00 7D",
  ]

  @Test(arguments: legctrlVectors + legctrlOdd)
  func legctrlAgrees(hex: String) throws {
    try agree(LegCtrlCodec(), SpecSupport.shipped("legctrl"), SpecSupport.bytes(hex))
  }

  @Test(arguments: rallieVectors + rallieOdd)
  func rallieAgrees(hex: String) throws {
    var bytes = SpecSupport.bytes(hex)
    // Frames of the right length whose check is 00: make it valid XOR, so the body is what is tested.
    if bytes.count >= 5, bytes.last == 0 { bytes[bytes.count - 1] = Checksums.xor(bytes.dropLast()) }
    try agree(RallieCodec(), SpecSupport.shipped("rallie"), bytes)
  }

  private func agree(_ swift: some FrameCodec, _ spec: SpecCodec, _ bytes: [UInt8]) throws {
    let expected = swift.decodeFrame(bytes)
    let found = spec.decodeFrame(bytes)
    let difference = CompareFuzzTarget<LegCtrlCodec, SpecCodec>.difference(expected, found)
    #expect(difference == nil, "\(Hex.spaced(bytes)): \(difference ?? "")")
    if case .decoded = found {
      let message = try spec.decode(bytes).message
      #expect(try spec.craftBytes(message, values: .forced) == bytes, "\(Hex.spaced(bytes)) re-encodes")
    }
  }

  @Test func legctrlCraftsAlike() throws {
    let spec = try SpecSupport.shipped("legctrl")
    let swift = LegCtrlCodec()
    let cases: [(String, [String: FieldValue])] = [
      ("servo", ["pulse_us": .integer(1500)]), ("arm", [:]), ("disarm", [:]), ("ping", [:]),
      (
        "telemetry",
        [
          "state": .enumeration(name: "FAULT", raw: 2),
          "error_code": .enumeration(name: "DEADMAN_TIMEOUT", raw: 1),
          "last_cmd_age_ms": .integer(200), "battery_mv": .integer(7400),
        ]
      ),
      (
        "telemetry",
        [
          "state": .enumeration(name: "DISARMED", raw: 0), "error_code": .enumeration(name: "NONE", raw: 0),
          "last_cmd_age_ms": .integer(0), "battery_mv": .integer(7400),
        ]
      ),
    ]
    for (message, values) in cases {
      #expect(
        try spec.craft(message, values: CraftValues(values))
          == swift.craft(message, values: CraftValues(values)))
    }
    #expect(throws: EncodeError.self) {
      try spec.craft("servo", values: CraftValues(["pulse_us": .integer(3000)]))
    }
    #expect(
      try spec.craft("servo", values: CraftValues(["pulse_us": .integer(3000)], force: true))
        == swift.craft("servo", values: CraftValues(["pulse_us": .integer(3000)], force: true)))
    #expect(throws: EncodeError.self) {
      try spec.craft("servo", values: CraftValues(["pulse_us": .integer(70000)], force: true))
    }
  }

  @Test func rallieCraftsAlike() throws {
    let spec = try SpecSupport.shipped("rallie")
    let swift = RallieCodec()
    let command: [String: FieldValue] = [
      "upper_wheel": .integer(50), "lower_wheel": .integer(50), "pitch": .integer(45), "yaw": .integer(45),
      "feed": .integer(50), "control": .string("start"),
    ]
    for checksum in ["xor", "modbus16lo"] {
      var values = command
      values["checksum"] = .string(checksum)
      #expect(
        try spec.craft("rallie", values: CraftValues(values))
          == swift.craft("rallie", values: CraftValues(values)))
      #expect(
        try spec.craft(
          "rallie-response",
          values: CraftValues(["code": .string("completed"), "checksum": .string(checksum)]))
          == swift.craft(
            "rallie-response",
            values: CraftValues(["code": .string("completed"), "checksum": .string(checksum)])))
    }
    var bad = CraftValues(command)
    bad.badCheck = true
    #expect(try spec.craft("rallie", values: bad) == swift.craft("rallie", values: bad))
  }

  @Test func schemasAgree() throws {
    for (swift, spec) in [
      (LegCtrlCodec().info, try SpecSupport.shipped("legctrl").info),
      (RallieCodec().info, try SpecSupport.shipped("rallie").info),
    ] {
      #expect(swift.messages.map(\.name) == spec.messages.map(\.name))
      #expect(swift.gattCharacteristics == spec.gattCharacteristics)
      #expect(swift.wellKnown == spec.wellKnown)
      #expect(swift.hasCheckByte == spec.hasCheckByte)
      for (a, b) in zip(swift.messages, spec.messages) {
        #expect(a.craftNames == b.craftNames)
        #expect(a.direction == b.direction)
        #expect(a.fields.map(\.name) == b.fields.map(\.name))
        #expect(a.fields.map(\.flag) == b.fields.map(\.flag))
        #expect(a.fields.map(\.range) == b.fields.map(\.range))
        #expect(a.fields.map(\.unit) == b.fields.map(\.unit))
        #expect(a.fields.map(\.defaultValue) == b.fields.map(\.defaultValue))
        #expect(a.fields.map(\.enumCases) == b.fields.map(\.enumCases))
        #expect(a.fields.map(\.casesAreFlags) == b.fields.map(\.casesAreFlags))
      }
    }
  }

  /// The fuzzer's comparison, bounded: both codecs get the same generated
  /// messages and mutated inputs.
  @Test(arguments: ["legctrl", "rallie"])
  func fuzzedAlike(name: String) throws {
    let spec = try SpecSupport.shipped(name)
    let target: FuzzTarget =
      name == "legctrl"
      ? CompareFuzzTarget(reference: LegCtrlCodec(), candidate: spec)
      : CompareFuzzTarget(reference: RallieCodec(), candidate: spec)
    let report = FuzzRunner(targets: [target], configuration: .init(seed: 28, iterations: 40_000)).run()
    #expect(
      report.failures.isEmpty,
      "\(report.failures.first.map { "\($0.kind): \($0.detail) \(Hex.spaced($0.input))" } ?? "")")
    #expect((report.stats.first?.1.executions ?? 0) > 10_000)
  }

  /// The spec codecs under the fuzzer's own invariants (round trips,
  /// idempotence, ranges inside the input).
  @Test(arguments: ["legctrl", "rallie"])
  func fuzzInvariantsHold(name: String) throws {
    let report = FuzzRunner(
      targets: [SpecSupport.fuzzTarget(try SpecSupport.shipped(name))],
      configuration: .init(seed: 7, iterations: 20_000)
    ).run()
    #expect(
      report.failures.isEmpty,
      "\(report.failures.first.map { "\($0.kind): \($0.detail) \(Hex.spaced($0.input))" } ?? "")")
    #expect((report.stats.first?.1.roundTrips ?? 0) > 1000)
  }
}
