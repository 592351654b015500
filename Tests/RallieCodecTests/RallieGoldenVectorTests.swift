import PacketKit
import RallieCodec
import Testing

/// The golden vectors of docs/protocols.md §3, both directions, in both check variants.
@Suite struct RallieGoldenVectorTests {
  let codec = RallieCodec()

  /// upper 50 %, lower 50 %, pitch 45 °, yaw 45 °, feed 50 %, stop.
  static let command = RallieCommand(
    upperWheel: 50, lowerWheel: 50, pitch: 45, yaw: 45, feed: 50, control: RallieControl.stop)

  static let vectors: [(String, RallieMessage)] = [
    ("5A A5 83 32 32 2D 2D 32 00 4E", RallieMessage(.command(command), checkVariant: .xor)),
    ("5A A5 83 32 32 2D 2D 32 00 41", RallieMessage(.command(command), checkVariant: .modbus16lo)),
    ("5A A5 82 00 7D", RallieMessage(.response(.init(code: 0)), checkVariant: .xor)),
    ("5A A5 82 01 7C", RallieMessage(.response(.init(code: 1)), checkVariant: .xor)),
    ("5A A5 82 02 7F", RallieMessage(.response(.init(code: 2)), checkVariant: .xor)),
    ("5A A5 82 00 62", RallieMessage(.response(.init(code: 0)), checkVariant: .modbus16lo)),
    ("5A A5 82 01 A3", RallieMessage(.response(.init(code: 1)), checkVariant: .modbus16lo)),
    ("5A A5 82 02 E3", RallieMessage(.response(.init(code: 2)), checkVariant: .modbus16lo)),
  ]

  @Test(arguments: vectors)
  func encodesGoldenVector(hex: String, message: RallieMessage) throws {
    #expect(try codec.encode(message) == Hex.parse(hex))
  }

  @Test(arguments: vectors)
  func decodesGoldenVector(hex: String, message: RallieMessage) throws {
    let decoded = try codec.decode(Hex.parse(hex))
    #expect(decoded.message == message)
    #expect(decoded.diagnostics.isEmpty)
    let variant = decoded.fields.first(named: "check_variant")?.value
    #expect(variant?.stringValue == message.checkVariant.rawValue)
  }

  @Test(arguments: vectors)
  func probesGoldenVectorAsCertain(hex: String, message: RallieMessage) throws {
    #expect(codec.probe(try Hex.parse(hex)) == 100)
  }

  @Test func commandFieldsUseProtocolNamesAndRanges() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 32 32 2D 2D 32 00 4E"))
    #expect(decoded.messageName == "command")
    #expect(
      decoded.fields.map(\.name) == [
        "magic", "source", "upper_wheel", "lower_wheel", "pitch", "yaw", "feed", "control", "check",
        "check_variant",
      ])
    #expect(decoded.fields.first(named: "magic")?.range == 0..<2)
    #expect(decoded.fields.first(named: "upper_wheel")?.value == .unsigned(50))
    #expect(decoded.fields.first(named: "upper_wheel")?.unit == "%")
    #expect(decoded.fields.first(named: "pitch")?.value == .unsigned(45))
    #expect(decoded.fields.first(named: "pitch")?.unit == "°")
    #expect(decoded.fields.first(named: "yaw")?.range == 6..<7)
    #expect(decoded.fields.first(named: "control")?.value == .enumeration(name: "stop", raw: 0))
    #expect(decoded.fields.first(named: "check")?.value == .unsigned(0x4E))
    #expect(decoded.fields.first(named: "check")?.range == 9..<10)
    #expect(decoded.fields.first(named: "check_variant")?.value == .enumeration(name: "xor", raw: 0))
  }

  @Test func responseFieldsUseProtocolNames() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 82 01 A3"))
    #expect(decoded.messageName == "response")
    #expect(decoded.fields.first(named: "code")?.value == .enumeration(name: "accepted", raw: 1))
    #expect(decoded.fields.first(named: "code")?.range == 3..<4)
    #expect(decoded.fields.first(named: "check")?.range == 4..<5)
    #expect(
      decoded.fields.first(named: "check_variant")?.value == .enumeration(name: "modbus16lo", raw: 1))
  }

  static let roundTrips: [RallieMessage] = [
    RallieMessage(
      .command(.init(upperWheel: 100, lowerWheel: 0, pitch: 90, yaw: 0, feed: 7, control: 1))),
    RallieMessage(
      .command(.init(upperWheel: 1, lowerWheel: 99, pitch: 0, yaw: 90, feed: 100, control: 0)),
      checkVariant: .modbus16lo),
    RallieMessage(.response(.init(code: RallieResponseCode.completed))),
    RallieMessage(.response(.init(code: RallieResponseCode.rejected)), checkVariant: .modbus16lo),
  ]

  @Test(arguments: roundTrips)
  func roundTripsEachKind(message: RallieMessage) throws {
    let bytes = try codec.encode(message)
    let decoded = try codec.decode(bytes)
    #expect(decoded.message == message)
    #expect(decoded.messageName == codec.kind(of: message))
    #expect(try codec.encode(decoded.message) == bytes)
  }

  @Test func infoNamesTheCodecAndItsMessages() {
    #expect(codec.info.name == "rallie")
    #expect(codec.info.messages.map(\.name) == ["command", "response"])
    #expect(codec.info.message(named: "rallie")?.name == "command")
    #expect(codec.info.message(named: "rallie-response")?.name == "response")
  }
}
