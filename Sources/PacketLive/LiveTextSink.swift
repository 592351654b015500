import PacketDecode
import PacketKit

/// The text view of live traffic: `decode`'s summary line, led by the
/// record number, the wall-clock arrival time and the gap since the
/// previous message from the same source. `-V` and `-x` are `decode`'s.
enum LiveTextSink {
  package static func make(
    out: OutputWriter, style: Style, verbose: Bool, hexDump: Bool,
    framing: SummaryFraming
  ) -> TextSink {
    TextSink(out: out, style: style, verbose: verbose, hexDump: hexDump) { record, _, style in
      line(record, style: style, framing: framing)
    }
  }

  /// `     3  14:03:22.123456   +50.012 ms  127.0.0.1:40000 → 127.0.0.1:9000  udp  codec message ...`
  package static func line(_ record: DecodedRecord, style: Style, framing: SummaryFraming = .none) -> String {
    var bare = record
    bare.frame = nil
    bare.time = nil
    let frame = record.frame.map { String($0) } ?? ""
    let clock = record.time.map { LiveClock.clockText($0) } ?? ""
    var gapText = ""
    if case .number(let gap)? = record.extra.first(where: { $0.key == "gap_ms" })?.value {
      gapText = "+" + SummaryRenderer.fixed(gap, digits: 3) + " ms"
    }
    var sent = ""
    if case .string("sent")? = record.extra.first(where: { $0.key == "direction" })?.value {
      sent = style.dim("sent ")
    }
    return frame.leftPadded(to: 6) + "  " + clock + "  " + gapText.leftPadded(to: 13) + "  " + sent
      + SummaryRenderer.line(bare, firstTime: nil, style: style, framing: framing)
  }
}
