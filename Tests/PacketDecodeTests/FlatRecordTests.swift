import BuiltinCodecs
import PacketKit
import Testing

@testable import PacketDecode

/// Summary lines and ndjson write clean messages from flat fields instead of
/// a dissection tree. The bytes must be the ones the tree gives: both
/// records are rendered and compared.
@Suite struct FlatRecordTests {
  static let styles = [Style(enabled: false), Style(enabled: true)]

  /// The same record twice: once with the codec's tree, once with `flat`.
  static func pair(codec index: Int, _ bytes: UnsafeRawBufferPointer, flat: FlatMessage) -> (
    tree: DecodedRecord, flat: DecodedRecord
  )? {
    guard BuiltinCodecs.set.cleanFields(index, bytes, into: &flat.fields.pointee) else { return nil }
    flat.codec = BuiltinCodecs.set.names[index]
    flat.payload = bytes
    var tree = DecodedRecord(
      frame: 12, time: 1_700_000_000.25, transport: "udp", source: "10.0.0.2:50000",
      destination: "10.0.0.7:5005", payloadLength: bytes.count)
    tree.routing = "udp port 5005"
    var flatRecord = tree
    tree.result = BuiltinCodecs.set.decodeFrame(index, bytes)
    flatRecord.flat = flat
    return (tree, flatRecord)
  }

  static func expectSameOutput(_ tree: DecodedRecord, _ flat: DecodedRecord, _ label: String) {
    for style in styles {
      for framing in [SummaryFraming.none, SummaryFraming(BuiltinCodecs.set)] {
        #expect(
          SummaryRenderer.line(flat, firstTime: 1_700_000_000, style: style, framing: framing)
            == SummaryRenderer.line(tree, firstTime: 1_700_000_000, style: style, framing: framing),
          "\(label)")
      }
    }
    #expect(
      JSONRenderer.object(flat, includeDissection: false)
        == JSONRenderer.object(tree, includeDissection: false),
      "\(label)")
  }

  /// A Rider number in one of the spellings JSON allows.
  static func number(_ random: inout SplitMix64, range: Int) -> String {
    let whole = random.below(2 * range + 1) - range
    switch random.below(7) {
    case 0: return "\(whole)"
    case 1: return "\(whole).\(random.below(10))"
    case 2: return "\(whole).\(random.below(100))\(random.below(10))"
    case 3: return "\(Double(whole) / 8)"
    case 4: return "\(whole / 10)e1"
    case 5: return "\(random.below(10)).5E-1"
    default: return whole == 0 ? "-0" : "\(whole).0"
    }
  }

  static func riderPayloads(count: Int) -> [String] {
    var random = SplitMix64(seed: 0x5EED)
    var payloads: [String] = []
    for _ in 0..<count {
      let timestamp =
        random.chance(1, in: 2)
        ? "\(1_700_000_000 + random.below(100_000))"
        : "\(1_700_000_000 + random.below(100_000)).\(random.below(1000))"
      var members: [String]
      if random.chance(1, in: 3) {
        members = [
          "\"command\":\"\(random.chance(1, in: 2) ? "move" : "stop")\"",
          "\"speed\":\(number(&random, range: 100))", "\"direction\":\(number(&random, range: 100))",
          "\"timestamp\":\(timestamp)",
        ]
      } else {
        members = [
          "\"left\":\(number(&random, range: 100))", "\"right\":\(number(&random, range: 100))",
          "\"timestamp\":\(timestamp)",
        ]
      }
      members.shuffle(using: &random)
      let space = random.chance(1, in: 4) ? " " : ""
      payloads.append("{\(space)" + members.joined(separator: ",\(space)") + "\(space)}")
    }
    return payloads
  }

  @Test func riderCommandsRenderAsTheirTrees() throws {
    let rider = try #require(BuiltinCodecs.set.index(named: "rider"))
    let flat = FlatMessage()
    var compared = 0
    for payload in Self.riderPayloads(count: 3000) {
      Array(payload.utf8).withUnsafeBytes { bytes in
        guard let (tree, flatRecord) = Self.pair(codec: rider, bytes, flat: flat) else { return }
        Self.expectSameOutput(tree, flatRecord, payload)
        compared += 1
      }
    }
    // Out-of-range values and "-0"-style oddities go to the tree; most do not.
    #expect(compared > 2000)
  }

  /// Numbers whose payload text is the writer's own are copied, others
  /// written from their value: both kinds occur among the commands above,
  /// and all render as their trees do (the test above).
  @Test func riderNumbersAreCopiedOnlyInTheWritersForm() throws {
    let rider = try #require(BuiltinCodecs.set.index(named: "rider"))
    let flat = FlatMessage()
    var verbatim = 0
    var formatted = 0
    for payload in Self.riderPayloads(count: 3000) {
      Array(payload.utf8).withUnsafeBytes { bytes in
        guard BuiltinCodecs.set.cleanFields(rider, bytes, into: &flat.fields.pointee) else { return }
        for field in FlatFields.fields(at: flat.fields) {
          guard case .text = field.value else {
            if field.verbatim { verbatim += 1 } else { formatted += 1 }
            continue
          }
          #expect(!field.verbatim, "\(payload)")
        }
        #expect(flat.fields.pointee.falseVerbatim(in: bytes) == nil, "\(payload)")
      }
    }
    #expect(verbatim > 2000)
    #expect(formatted > 1000)
  }

  /// LegCtrl frames of every kind, with values across their ranges (the
  /// header is a group: ndjson nests it, summary lines skip it).
  @Test func legCtrlFramesRenderAsTheirTrees() throws {
    let legCtrl = try #require(BuiltinCodecs.set.index(named: "legctrl"))
    let flat = FlatMessage()
    var random = SplitMix64(seed: 0x1E6)
    var compared = 0
    for _ in 0..<3000 {
      let frame: [UInt8]
      switch random.below(5) {
      case 0: frame = [0x01, [0x01, 0x02, 0x04][random.below(3)], 0x00, 0x00]
      case 1:
        let pulse = UInt16(400 + random.below(2300))
        frame = [0x01, 0x03, 0x02, 0x00, UInt8(pulse & 0xFF), UInt8(pulse >> 8)]
      default:
        let age = UInt16(truncatingIfNeeded: random.next())
        let battery = UInt16(truncatingIfNeeded: random.next())
        frame = [
          0x01, 0x10, 0x08, 0x00, UInt8(random.below(4)), [0, 1, 2, 3, 4, 5, 0xFF][random.below(7)],
          UInt8(age & 0xFF), UInt8(age >> 8), UInt8(battery & 0xFF), UInt8(battery >> 8), 0, 0,
        ]
      }
      frame.withUnsafeBytes { bytes in
        guard let (tree, flatRecord) = Self.pair(codec: legCtrl, bytes, flat: flat) else { return }
        Self.expectSameOutput(tree, flatRecord, Hex.spaced(frame))
        compared += 1
      }
    }
    // Pulses outside 500…2500 and unknown states or error codes go to the tree.
    #expect(compared > 2000)
  }

  /// Groups: a skipped one is left out with its members, another one's
  /// members are key fields like any others; ndjson nests both.
  @Test func groupsRenderAsTheirTrees() {
    let fields: [FlatFields.Field] = [
      .init("header", .group(count: 2), range: 0..<2),
      .init("version", .unsigned(1), range: 0..<1),
      .init("kind", .enumeration("PING", raw: 4), range: 1..<2),
      .init("pose", .group(count: 3), range: 2..<5),
      .init("x", .number(1.5), unit: "m", range: 2..<3),
      .init("yaw", .integer(-90), unit: "°", range: 3..<4),
      .init("mode", .enumeration("HOLD", raw: 2), range: 4..<5),
      .init("empty", .group(count: 0), range: 5..<5),
      .init("count", .unsigned(.max), range: 5..<6),
    ]
    // A prefix may cut a group short: its tree has the members that follow.
    Self.expectPrefixesRenderAsTheirTrees(fields)
  }

  /// Each prefix of `fields` as a flat message and as the tree its `nodes`
  /// give, rendered both ways.
  static func expectPrefixesRenderAsTheirTrees(_ fields: [FlatFields.Field]) {
    for length in 0...fields.count {
      let flat = FlatMessage()
      flat.codec = "test"
      flat.fields.pointee.message = "probe"
      for field in fields.prefix(length) {
        let added = flat.fields.pointee.append(field)
        #expect(added)
      }
      var tree = DecodedRecord(frame: 1, time: 2, transport: "udp", payloadLength: 8)
      var flatRecord = tree
      tree.result = .decoded(
        DecodedFrame(codec: "test", message: "probe", fields: flat.fields.pointee.nodes, diagnostics: []))
      flatRecord.flat = flat
      expectSameOutput(tree, flatRecord, "first \(length) fields")
    }
  }

  /// The renderers' rules for key fields — header names skipped, a name
  /// shown once, five at most, units % and ° only, text quoted — hold for
  /// flat fields as for their tree.
  @Test func keyFieldRulesMatchTheTree() {
    let fields: [FlatFields.Field] = [
      .init("header", .integer(1), range: 0..<1),
      .init("angle", .number(-12.5), unit: "°", range: 1..<2),
      .init("type", .text("PING"), range: 2..<3),
      .init("mode", .text("a long word from the codec vocabulary, past forty"), range: 3..<4),
      .init("angle", .integer(3), unit: "°", range: 4..<5),
      .init("count", .integer(-9_007_199_254_740_993), unit: "s", range: 5..<6),
      .init("ratio", .number(0.1), unit: "%", range: 6..<7),
      .init("last", .number(1e300), range: 7..<8),
    ]
    Self.expectPrefixesRenderAsTheirTrees(fields)
  }

  @Test func flatFieldsHoldTheirCapacityAndRefuseMore() {
    var fields = FlatFields()
    for index in 0..<FlatFields.capacity {
      let added = fields.append(.init("f", .integer(Int64(index)), range: index..<index + 1))
      #expect(added)
    }
    let overflow = fields.append(.init("g", .integer(9), range: 0..<1))
    #expect(!overflow)
    #expect(fields.count == FlatFields.capacity)
    #expect(fields.nodes.map(\.value) == (0..<FlatFields.capacity).map { FieldValue.integer(Int64($0)) })
  }
}
