import PacketKit
import RiderCodec
import Testing

// Canonical texts were checked against Python's own JSON writer:
//   json.dumps({'left':50,'right':-50,'timestamp':1.5}, separators=(',',':'))
//     -> {"left":50,"right":-50,"timestamp":1.5}
//   json.dumps({'left':50,'right':-37.5,'timestamp':1700000000.25}, separators=(',',':'))
//     -> {"left":50,"right":-37.5,"timestamp":1700000000.25}
//   json.dumps({'command':'move','speed':40,'direction':-20,'timestamp':1700000000.25},
//              separators=(',',':'))
//     -> {"command":"move","speed":40,"direction":-20,"timestamp":1700000000.25}

/// The vectors of docs/protocols.md §1 and the canonical texts, both directions.
@Suite struct RiderGoldenVectorTests {
  let codec = RiderCodec()

  static let vectors: [(String, RiderMessage)] = [
    (#"{"left":50,"right":-50,"timestamp":1.5}"#, .drive(.init(left: 50, right: -50, timestamp: 1.5))),
    (
      #"{"left":50,"right":-37.5,"timestamp":1700000000.25}"#,
      .drive(.init(left: 50, right: -37.5, timestamp: 1_700_000_000.25))
    ),
    (#"{"left":0,"right":0,"timestamp":2}"#, .drive(.init(left: 0, right: 0, timestamp: 2))),
    ("50,-50,0", .legacy(.init(left: 50, right: -50, direction: RiderLegacyDirection.straight))),
    ("-100,100,2", .legacy(.init(left: -100, right: 100, direction: RiderLegacyDirection.right))),
    (
      #"{"command":"move","speed":40,"direction":-20,"timestamp":1700000000.25}"#,
      .move(.init(command: "move", speed: 40, direction: -20, timestamp: 1_700_000_000.25))
    ),
    (
      #"{"command":"stop","speed":0,"direction":0,"timestamp":3.5}"#,
      .move(.init(command: "stop", speed: 0, direction: 0, timestamp: 3.5))
    ),
  ]

  @Test(arguments: vectors)
  func encodesGoldenVector(text: String, message: RiderMessage) throws {
    #expect(try codec.encode(message) == Array(text.utf8))
  }

  @Test(arguments: vectors)
  func decodesGoldenVector(text: String, message: RiderMessage) throws {
    let decoded = try codec.decode(Array(text.utf8))
    #expect(decoded.message == message)
    #expect(decoded.messageName == codec.kind(of: message))
    #expect(decoded.diagnostics.isEmpty)
  }

  @Test func driveVectorHasProtocolFieldsAndValueRanges() throws {
    // s = '{"left":50,"right":-50,"timestamp":1.5}'
    // s.index('50'), s.index('-50'), s.index('1.5') -> 8 19 35
    let decoded = try codec.decode(Array(#"{"left":50,"right":-50,"timestamp":1.5}"#.utf8))
    guard case .drive(let drive) = decoded.message else {
      Issue.record("expected drive")
      return
    }
    #expect(drive.left == 50)
    #expect(drive.right == -50)
    #expect(drive.timestamp == 1.5)
    #expect(decoded.fields.map(\.name) == ["left", "right", "timestamp"])
    #expect(decoded.fields.first(named: "left")?.range == 8..<10)
    #expect(decoded.fields.first(named: "left")?.unit == "%")
    #expect(decoded.fields.first(named: "right")?.range == 19..<22)
    #expect(decoded.fields.first(named: "right")?.value == .integer(-50))
    #expect(decoded.fields.first(named: "timestamp")?.range == 35..<38)
    #expect(decoded.fields.first(named: "timestamp")?.unit == "s")
    #expect(decoded.fields.first(named: "timestamp")?.value == .number(1.5))
  }

  @Test func keyOrderAndSpacesAreFree() throws {
    // s = '{"timestamp": 1.5, "right": -50, "left": 50}'
    // s.index('1.5'), s.index('-50'), s.rindex('50') -> 14 28 41
    let text = #"{"timestamp": 1.5, "right": -50, "left": 50}"#
    let decoded = try codec.decode(Array(text.utf8))
    #expect(decoded.message == .drive(.init(left: 50, right: -50, timestamp: 1.5)))
    #expect(decoded.fields.map(\.name) == ["timestamp", "right", "left"])
    #expect(decoded.fields.first(named: "timestamp")?.range == 14..<17)
    #expect(decoded.fields.first(named: "right")?.range == 28..<31)
    #expect(decoded.fields.first(named: "left")?.range == 41..<43)
    #expect(try codec.encode(decoded.message) == Array(#"{"left":50,"right":-50,"timestamp":1.5}"#.utf8))
  }

  @Test func legacyFieldsCarryTheirDigits() throws {
    let decoded = try codec.decode(Array("50,-50,1".utf8))
    #expect(decoded.messageName == "legacy")
    #expect(decoded.fields.first(named: "left")?.range == 0..<2)
    #expect(decoded.fields.first(named: "right")?.range == 3..<6)
    #expect(decoded.fields.first(named: "right")?.value == .integer(-50))
    #expect(decoded.fields.first(named: "direction")?.value == .enumeration(name: "left", raw: 1))
  }

  static let roundTrips: [RiderMessage] = [
    .drive(
      .init(
        left: -12.25, right: 99, timestamp: 1_700_000_123.125,
        extraKeys: [
          .init("seq", .integer(7)), .init("mode", .string("tank \"fast\"")),
          .init("gains", .array([.number(0.5), .integer(2), .null])),
          .init("meta", .object([.init("ok", .bool(true))])),
        ])),
    .drive(.init(left: 0, right: 0)),
    .legacy(.init(left: 7, right: -8, direction: RiderLegacyDirection.left)),
    .move(.init(command: "stop", speed: -100, direction: 100, extraKeys: [.init("seq", .integer(1))])),
  ]

  @Test(arguments: roundTrips)
  func roundTripsEachKind(message: RiderMessage) throws {
    let bytes = try codec.encode(message)
    let decoded = try codec.decode(bytes)
    #expect(decoded.message == message)
    #expect(try codec.encode(decoded.message) == bytes)
  }

  @Test func extraKeysAreAppendedInTheirOrder() throws {
    let message = RiderMessage.drive(
      .init(left: 1, right: 2, timestamp: 3, extraKeys: [.init("z", .integer(1)), .init("a", .bool(false))]))
    #expect(
      try codec.encode(message) == Array(#"{"left":1,"right":2,"timestamp":3,"z":1,"a":false}"#.utf8))
  }

  @Test func wholeNumberExtraReadsBackTheSame() throws {
    let decoded = try codec.decode(Array(#"{"left":0,"right":0,"timestamp":1,"k":1e2}"#.utf8))
    let bytes = try codec.encode(decoded.message)
    #expect(bytes == Array(#"{"left":0,"right":0,"timestamp":1,"k":100}"#.utf8))
    #expect(try codec.decode(bytes).message == decoded.message)
  }

  @Test func probeRanksTheForms() throws {
    #expect(codec.probe(Array(#"{"left":50,"right":-50,"timestamp":1.5}"#.utf8)) == 90)
    #expect(codec.probe(Array(#" {"right":1} "#.utf8)) == 90)
    #expect(codec.probe(Array(#"{"command":"move","speed":40}"#.utf8)) == 85)
    #expect(codec.probe(Array("50,-50,0".utf8)) == 40)
    #expect(codec.probe(Array(#"{"foo":1}"#.utf8)) == 0)
    #expect(codec.probe(Array(#"{"left":5"#.utf8)) == 0)
    #expect(codec.probe(Array("50,-50".utf8)) == 0)
    #expect(codec.probe([0x5A, 0xA5, 0x82, 0x01, 0x7C]) == 0)
    #expect(codec.probe([UInt8]()) == 0)
  }

  @Test func infoNamesTheCodecAndItsMessages() {
    #expect(codec.info.name == "rider")
    #expect(codec.info.messages.map(\.name) == ["drive", "legacy", "move"])
    #expect(codec.info.message(named: "drive")?.field(named: "timestamp")?.defaultDescription == "now")
    #expect(codec.info.message(named: "drive")?.field(named: "x")?.role == .craftParameter)
  }
}
