import BuiltinCodecs
import PacketKit
import Testing

@testable import PacketDecode

/// Summary lines take a clean message's middle (endpoints to message name)
/// from the last few flows'. Every line must be the one written afresh:
/// interleaved flows, carrier notes, lines without frame or time, layer
/// warnings, in both styles mixed.
@Suite struct SummaryMiddlesTests {
  static let notes: [String?] = [nil, nil, "[0x0012 write-command]", "[0x0012 …789abd notification]"]

  @Test func everyLineIsTheOneWrittenAfresh() throws {
    var random = SplitMix64(seed: 0x50)
    let flat = FlatMessage()
    var middles = SummaryMiddles()
    var frame = 0
    var compared = 0
    while frame < 3000 {
      let flow = random.below(FlowTextsTests.flows.count)
      let note = Self.notes[random.below(Self.notes.count)]
      for _ in 0..<1 + random.below(10) {
        frame += 1
        try FlatJSONTemplateTests.withRecord(flow: flow, frame: frame, missing: 20, flat: flat, &random) {
          record, random in
          record.carrierNote = note
          // One set of middles for lines in both styles, mixed.
          let style = Style(enabled: random.chance(1, in: 2))
          if random.chance(1, in: 30) {
            record.layerDiagnostics = [.warning("gap", "a gap before this packet", range: 0..<1)]
          }
          var line = JSONWriter()
          SummaryRenderer.write(
            record, firstTime: 1_700_000_000, style: style, middles: &middles, into: &line)
          let alone = SummaryRenderer.line(record, firstTime: 1_700_000_000, style: style)
          #expect(line.text == alone, "frame \(frame)")
          compared += 1
        }
      }
    }
    #expect(compared > 2500)
  }
}
