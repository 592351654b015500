import PacketKit

/// The text view of live traffic: `decode`'s summary line, led by the
/// record number, the wall-clock arrival time and the gap since the
/// previous message from the same source. `-V` and `-x` are `decode`'s.
final class LiveTextSink: MessageSink {
  private let out: OutputWriter
  private let style: Style
  private let verbose: Bool
  private let hexDump: Bool

  init(out: OutputWriter, style: Style, verbose: Bool, hexDump: Bool) {
    self.out = out
    self.style = style
    self.verbose = verbose
    self.hexDump = hexDump
  }

  var wantsPayload: Bool { hexDump }

  func emit(_ record: DecodedRecord) {
    if verbose {
      for line in TreeRenderer.lines(record, style: style) { out.line(line) }
    } else {
      out.line(Self.line(record, style: style))
    }
    if hexDump, let payload = record.payload {
      let fields: [DissectionNode]
      if case .decoded(let frame) = record.result { fields = frame.fields } else { fields = [] }
      for line in HexDump.markedLines(payload, fields: fields, indent: "        ") { out.line(line) }
    }
    if verbose || hexDump { out.line() }
  }

  func finish(name: String, stats: CaptureStats) {}

  /// `     3  14:03:22.123456   +50.012 ms  127.0.0.1:40000 → 127.0.0.1:5005  udp  rider drive ...`
  static func line(_ record: DecodedRecord, style: Style) -> String {
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
      + SummaryRenderer.line(bare, firstTime: nil, style: style)
  }
}
