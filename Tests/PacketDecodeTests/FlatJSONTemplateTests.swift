import BuiltinCodecs
import PacketKit
import Testing

@testable import PacketDecode

/// ndjson writes a clean message from the text of the last record of its
/// shape, with frame, time, values and length written anew. Every record
/// must come out as the renderer writes it alone: Rider commands and
/// LegCtrl frames of every kind, from more flows than the templates hold,
/// interleaved, some with extra members (part of the shape), with records
/// that must not use a template among them.
@Suite struct FlatJSONTemplateTests {
  /// How each of `FlowTextsTests.flows` was routed (a flow's texts and
  /// its routing are part of its shape).
  static let routings: [String?] = [
    "udp port 5005", "udp port 5005", "--decode-as", "ws path /ws/connect/D", "BLE handle 0x0040", nil,
    "probe 95",
  ]

  /// A payload of the kind flow `flow` sends: each flow keeps one kind
  /// and one order of members, as an app does, with values in every
  /// spelling (a number not in the writer's form is written from its value).
  static func payload(flow: Int, _ random: inout SplitMix64) -> (codec: String, bytes: [UInt8]) {
    let left = FlatRecordTests.number(&random, range: 100)
    let right = FlatRecordTests.number(&random, range: 100)
    let timestamp = "\(1_700_000_000 + random.below(100_000)).\(random.below(100))"
    let pulse = UInt16(500 + random.below(2001))
    switch flow {
    case 0: return ("rider", Array(#"{"left":\#(left),"right":\#(right),"timestamp":\#(timestamp)}"#.utf8))
    case 1: return ("rider", Array(#"{"timestamp":\#(timestamp), "right":\#(right), "left":\#(left)}"#.utf8))
    case 2:
      let command = random.chance(1, in: 2) ? "move" : "stop"
      let text =
        #"{"command":"\#(command)","speed":\#(left),"direction":\#(right),"timestamp":\#(timestamp)}"#
      return ("rider", Array(text.utf8))
    case 3: return ("legctrl", [0x01, 0x03, 0x02, 0x00, UInt8(pulse & 0xFF), UInt8(pulse >> 8)])
    case 4: return ("legctrl", [0x01, [0x01, 0x02, 0x04][random.below(3)], 0x00, 0x00])
    default:
      return (
        "legctrl",
        [0x01, 0x10, 0x08, 0x00, UInt8(random.below(4)), 0, UInt8(random.below(256)), 0x12, 0x10, 0x27, 0, 0]
      )
    }
  }

  static let extras: [[FieldValue.Member]] = [
    [], [], [],
    [.init("handle", .integer(64))],
    [
      .init("att_operation", .string("write-command")), .init("handle", .integer(18)),
      .init("direction", .string("central→peripheral")),
    ],
    [
      .init("att_operation", .string("notification")), .init("handle", .integer(18)),
      .init("direction", .string("peripheral→central")),
    ],
  ]

  /// A clean record of flow `flow` (its payload read into `flat`): frame
  /// and time each missing one time in `missing`. `body` sees the record
  /// while its payload is in scope; a payload that is not clean is skipped.
  static func withRecord(
    flow: Int, frame: Int, missing: Int, flat: FlatMessage, _ random: inout SplitMix64,
    _ body: (inout DecodedRecord, inout SplitMix64) -> Void
  ) throws {
    let payload = Self.payload(flow: flow, &random)
    let codec = try #require(BuiltinCodecs.set.index(named: payload.codec))
    payload.bytes.withUnsafeBytes { bytes in
      guard BuiltinCodecs.set.cleanFields(codec, bytes, into: &flat.fields.pointee) else { return }
      flat.codec = BuiltinCodecs.set.names[codec]
      flat.payload = bytes
      let names = FlowTextsTests.flows[flow]
      var record = DecodedRecord(
        frame: random.chance(1, in: missing) ? nil : frame,
        time: random.chance(1, in: missing) ? nil : 1_700_000_000 + Double(frame) / 20,
        transport: names.transport, source: names.source, destination: names.destination,
        payloadLength: bytes.count)
      record.flat = flat
      body(&record, &random)
    }
  }

  @Test func everyRecordIsTheRenderersText() throws {
    var random = SplitMix64(seed: 0x7E4)
    let flat = FlatMessage()
    var templates = FlatJSONTemplate()
    var flows = FlowTexts()
    var written = 0
    var frame = 0
    // Runs of records from one flow, seven flows for four templates.
    while frame < 4000 {
      let flow = random.below(FlowTextsTests.flows.count)
      for _ in 0..<1 + random.below(12) {
        frame += 1
        try Self.withRecord(flow: flow, frame: frame, missing: 50, flat: flat, &random) { record, random in
          record.routing = Self.routings[flow]
          // Things of the record's own: the renderer writes these.
          if random.chance(1, in: 40) {
            record.layerDiagnostics = [.warning("gap", "a gap before this packet", range: 0..<1)]
          }
          // Extra members, as BLE writes carry: one of a few sets, or none.
          record.extra = Self.extras[random.below(Self.extras.count)]
          var json = JSONWriter()
          templates.write(record, flat, flows: &flows, into: &json)
          #expect(json.bytes == JSONRenderer.object(record, includeDissection: false), "frame \(frame)")
          written += 1
        }
      }
    }
    #expect(written > 3000)
    // Most records were written from a template (not all by the renderer).
    #expect(templates.reused > written / 2)
  }

  /// Without room for templates every record is the renderer's.
  @Test func noTemplatesWritesWithTheRenderer() throws {
    let rider = try #require(BuiltinCodecs.set.index(named: "rider"))
    let flat = FlatMessage()
    var templates = FlatJSONTemplate(capacity: 0)
    var flows = FlowTexts()
    for (frame, payload) in FlatRecordTests.riderPayloads(count: 50).enumerated() {
      Array(payload.utf8).withUnsafeBytes { bytes in
        guard BuiltinCodecs.set.cleanFields(rider, bytes, into: &flat.fields.pointee) else { return }
        flat.codec = "rider"
        flat.payload = bytes
        var record = DecodedRecord(frame: frame, time: 1, transport: "udp", payloadLength: bytes.count)
        record.flat = flat
        var json = JSONWriter()
        templates.write(record, flat, flows: &flows, into: &json)
        #expect(json.bytes == JSONRenderer.object(record, includeDissection: false))
      }
    }
    #expect(templates.reused == 0)
  }
}
