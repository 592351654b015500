import LegCtrlCodec
import PacketKit
import Testing

/// The golden vectors of docs/protocols.md §2, both directions.
@Suite struct LegCtrlGoldenVectorTests {
  let codec = LegCtrlCodec()

  static let vectors: [(String, LegCtrlMessage)] = [
    ("01 03 02 00 DC 05", LegCtrlMessage(.setServoCh0(pulseMicroseconds: 1500))),
    ("01 01 00 00", LegCtrlMessage(.arm)),
    ("01 02 00 00", LegCtrlMessage(.disarm)),
    ("01 04 00 00", LegCtrlMessage(.ping)),
    (
      "01 10 08 00 00 00 00 00 E8 1C 00 00",
      LegCtrlMessage(
        .telemetry(
          .init(state: 0, errorCode: 0, lastCommandAgeMilliseconds: 0, batteryMillivolts: 7400)))
    ),
    (
      "01 10 08 00 02 01 C8 00 E8 1C 00 00",
      LegCtrlMessage(
        .telemetry(
          .init(state: 2, errorCode: 1, lastCommandAgeMilliseconds: 200, batteryMillivolts: 7400)))
    ),
  ]

  @Test(arguments: vectors)
  func encodesGoldenVector(hex: String, message: LegCtrlMessage) throws {
    #expect(try codec.encode(message) == Hex.parse(hex))
  }

  @Test(arguments: vectors)
  func decodesGoldenVector(hex: String, message: LegCtrlMessage) throws {
    let decoded = try codec.decode(Hex.parse(hex))
    #expect(decoded.message == message)
    #expect(decoded.diagnostics.isEmpty)
  }

  @Test func telemetryFieldsUseProtocolNames() throws {
    let decoded = try codec.decode(Hex.parse("01 10 08 00 02 01 C8 00 E8 1C 00 00"))
    #expect(decoded.messageName == "telemetry")
    #expect(decoded.fields.first(named: "state")?.value == .enumeration(name: "FAULT", raw: 2))
    #expect(
      decoded.fields.first(named: "error_code")?.value
        == .enumeration(name: "DEADMAN_TIMEOUT", raw: 1))
    #expect(decoded.fields.first(named: "last_cmd_age_ms")?.range == 6..<8)
    #expect(decoded.fields.first(named: "battery_mv")?.value == .unsigned(7400))
  }

  /// msg_type by docs/protocols.md's names (ARM 01, DISARM 02, SET_SERVO_CH0 03,
  /// PING 04, TELEMETRY 10); any other byte is unknown(0x..), with a
  /// warning, for all 256 values.
  @Test func everyMsgTypeIsNamed() throws {
    let known: [UInt8: String] = [
      0x01: "ARM", 0x02: "DISARM", 0x03: "SET_SERVO_CH0", 0x04: "PING", 0x10: "TELEMETRY",
    ]
    for raw in 0...255 {
      let msgType = UInt8(raw)
      // TELEMETRY needs its 8-byte payload (a golden vector); the rest decode bare.
      let frame =
        msgType == 0x10 ? try Hex.parse("01 10 08 00 00 00 00 00 E8 1C 00 00") : [0x01, msgType, 0x00, 0x00]
      let decoded = try codec.decode(frame)
      let hex = String(raw, radix: 16, uppercase: false)
      let name = known[msgType] ?? "unknown(0x\(hex.count == 1 ? "0" + hex : hex))"
      #expect(
        decoded.fields.first(named: "msg_type")?.value == .enumeration(name: name, raw: Int64(raw)),
        "msg_type \(raw)")
      #expect(decoded.diagnostics.contains { $0.code == "unknown-msg-type" } == (known[msgType] == nil))
    }
  }

  @Test func craftsServoFromFlags() throws {
    let bytes = try codec.craft("servo", values: CraftValues(["pulse_us": .integer(1500)]))
    #expect(bytes == [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05])
  }
}

/// Every structural decode error names its offset.
@Suite struct LegCtrlDecodeErrorTests {
  let codec = LegCtrlCodec()

  @Test func emptyInputIsTruncatedAtZero() {
    #expect(throws: DecodeError.self) { try codec.decode([UInt8]()) }
    do {
      _ = try codec.decode([UInt8]())
    } catch {
      #expect(error.code == "truncated")
      #expect(error.offset == 0)
    }
  }

  @Test func wrongVersionIsRejected() throws {
    do {
      _ = try codec.decode(Hex.parse("02 01 00 00"))
      Issue.record("expected an error")
    } catch let error as DecodeError {
      #expect(error.code == "bad-version")
      #expect(error.offset == 0)
    }
  }

  @Test func payloadLengthOverEightIsRejected() throws {
    do {
      _ = try codec.decode(Hex.parse("01 03 09 00 00 00 00 00 00 00 00 00 00"))
      Issue.record("expected an error")
    } catch let error as DecodeError {
      #expect(error.code == "bad-length")
      #expect(error.offset == 2)
    }
  }

  @Test func lengthMismatchIsRejected() throws {
    do {
      _ = try codec.decode(Hex.parse("01 03 02 00 DC"))
      Issue.record("expected an error")
    } catch let error as DecodeError {
      #expect(error.code == "bad-length")
      #expect(error.offset == 5)
    }
  }

  @Test func outOfRangePulseDecodesWithWarning() throws {
    let decoded = try codec.decode(Hex.parse("01 03 02 00 C4 09"))  // 2500 is fine
    #expect(decoded.diagnostics.isEmpty)
    let high = try codec.decode(Hex.parse("01 03 02 00 C5 09"))  // 2501
    #expect(high.diagnostics.map(\.code) == ["out-of-range"])
  }

  @Test func unknownStateDecodesWithWarning() throws {
    let decoded = try codec.decode(Hex.parse("01 10 08 00 07 00 00 00 E8 1C 00 00"))
    #expect(decoded.fields.first(named: "state")?.value == .enumeration(name: "unknown(7)", raw: 7))
    #expect(decoded.diagnostics.map(\.code) == ["unknown-enum"])
  }

  @Test func reservedNonZeroWarns() throws {
    let decoded = try codec.decode(Hex.parse("01 01 00 05"))
    #expect(decoded.message.body == .arm)
    #expect(decoded.diagnostics.map(\.code) == ["reserved-nonzero"])
  }

  @Test func craftRefusesOutOfRangeUnlessForced() throws {
    #expect(throws: EncodeError.self) {
      try codec.craft("servo", values: CraftValues(["pulse_us": .integer(3000)]))
    }
    let forced = try codec.craft(
      "servo", values: CraftValues(["pulse_us": .integer(3000)], force: true))
    #expect(forced == [0x01, 0x03, 0x02, 0x00, 0xB8, 0x0B])
  }
}

/// docs/protocols.md §5: "ARM, DISARM and PING execute whatever payload follows
/// them" — so decode names the message the firmware runs, and warns.
@Suite struct LegCtrlPayloadAfterCommandTests {
  @Test(arguments: [
    ("01 01 02 00 AA BB", "arm"), ("01 02 03 00 01 02 03", "disarm"), ("01 04 01 00 01", "ping"),
  ])
  func theMessageIsTheOneTheFirmwareExecutes(hex: String, kind: String) throws {
    let bytes = try Hex.parse(hex)
    let decoded = try LegCtrlCodec().decode(bytes)
    #expect(decoded.messageName == kind)
    #expect(decoded.diagnostics.map(\.code) == ["unexpected-payload"])
    #expect(decoded.fields.first(named: "payload")?.range == 4..<bytes.count)
    // Canonical bytes drop the payload; the message is the same.
    let again = try LegCtrlCodec().decode(try LegCtrlCodec().encode(decoded.message))
    #expect(again.message == decoded.message)
    #expect(again.diagnostics.isEmpty)
  }
}
