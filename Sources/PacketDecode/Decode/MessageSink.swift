import PacketKit

/// Where decoded records go: one of the output formats, or the counters.
package protocol MessageSink: AnyObject {
  func emit(_ record: DecodedRecord)
  /// The reading ended; `stoppedEarly` says where when the file was damaged.
  func finish(name: String, stats: CaptureStats)
  /// Whether the sink needs the payload bytes kept (hex views).
  var wantsPayload: Bool { get }
  /// Whether the sink reads records at all; one that only reports the
  /// counters (`--stats`) lets the pipeline count clean messages without
  /// building records.
  var wantsRecords: Bool { get }
  /// Whether the sink writes records that carry a clean message as flat
  /// fields (`DecodedRecord.flat`) instead of a decoded frame.
  var acceptsFlatRecords: Bool { get }
  /// Whether the sink reports the pipeline's counters (`CaptureStats`
  /// beyond the record count); others spare the pipeline that work.
  var wantsCounts: Bool { get }
  /// A TCP connection ended ("fin", "rst", "end of capture"...), after its
  /// last records; only the analysis cares, to tell closes from drops.
  func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String)
  /// A record the display filter (`-Y`) kept out: not written, but text
  /// times stay relative to the first record read, as tshark's do.
  func skipped(_ record: DecodedRecord)
  /// The first record of the file was read (before any message): relative
  /// times count from it, as tshark's do.
  func firstRecord(time: Double)
}

extension MessageSink {
  package var wantsRecords: Bool { true }
  package var wantsCounts: Bool { false }
  package var acceptsFlatRecords: Bool { false }
  package func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String) {}
  package func skipped(_ record: DecodedRecord) {}
  package func firstRecord(time: Double) {}
}

/// Summary lines, `-V` trees, `-x` hex dumps.
package final class TextSink: MessageSink {
  private let out: OutputWriter
  private let style: Style
  private let verbose: Bool
  private let hexDump: Bool
  @exclusivity(unchecked) private var firstTime: Double?
  @exclusivity(unchecked) private var middles = SummaryMiddles()
  /// The one-line view; live commands lead it with arrival time and gap.
  private let summaryLine: ((DecodedRecord, _ firstTime: Double?, Style) -> String)?
  /// `-t`: the time column of summary lines (nil: relative).
  private let clock: TimeColumn?
  /// The fields summary lines leave out, per codec.
  private let framing: SummaryFraming

  package init(
    out: OutputWriter, style: Style, verbose: Bool, hexDump: Bool,
    summaryLine: ((DecodedRecord, _ firstTime: Double?, Style) -> String)? = nil, clock: TimeColumn? = nil,
    framing: SummaryFraming = .none
  ) {
    self.out = out
    self.style = style
    self.verbose = verbose
    self.hexDump = hexDump
    self.summaryLine = summaryLine
    self.clock = clock
    self.framing = framing
  }

  /// -x marks every payload; -V shows the bytes no codec claimed.
  package var wantsPayload: Bool { hexDump || verbose }
  /// Summary lines need no tree.
  package var acceptsFlatRecords: Bool { !verbose && !hexDump && summaryLine == nil }

  package func emit(_ record: DecodedRecord) {
    if firstTime == nil { firstTime = record.time }
    if verbose {
      for line in TreeRenderer.lines(record, style: style) { out.line(line) }
    } else if let summaryLine {
      out.line(summaryLine(record, firstTime, style))
    } else {
      out.append { buffer in
        SummaryRenderer.write(
          record, firstTime: firstTime, style: style, middles: &middles, clock: clock, framing: framing,
          into: &buffer)
        buffer.append(0x0A)
      }
    }
    if verbose, !hexDump, record.result == nil, record.event == nil, let payload = record.payload {
      for line in HexDump.lines(Array(payload.prefix(256)), indent: "    ") { out.line(line) }
      if payload.count > 256 { out.line("    … \(payload.count - 256) more bytes") }
    }
    if hexDump, let payload = record.payload {
      let fields: [DissectionNode]
      if case .decoded(let frame) = record.result { fields = frame.fields } else { fields = [] }
      for line in HexDump.markedLines(payload, fields: fields, indent: "        ") { out.line(line) }
    }
    if verbose || hexDump { out.line() }
  }

  package func finish(name: String, stats: CaptureStats) {}

  package func skipped(_ record: DecodedRecord) {
    if firstTime == nil { firstTime = record.time }
  }

  package func firstRecord(time: Double) {
    if firstTime == nil { firstTime = time }
    if clock?.base == nil { clock?.base = time }
  }
}

/// `--format ndjson`: one object per line; `--format json`: one array.
package final class JSONSink: MessageSink {
  private let out: OutputWriter
  private let asArray: Bool
  private let payloadHex: Bool
  /// `"file":"a.pcap",` when several files are decoded: each object starts with it.
  private let fileKey: [UInt8]?
  @exclusivity(unchecked) private var scratch = JSONWriter(capacity: 0)
  @exclusivity(unchecked) private var count = 0
  @exclusivity(unchecked) private var flows = FlowTexts()
  @exclusivity(unchecked) private var templates = FlatJSONTemplate()

  package init(out: OutputWriter, asArray: Bool, payloadHex: Bool = false, file: String? = nil) {
    self.out = out
    self.asArray = asArray
    self.payloadHex = payloadHex
    fileKey = file.map { Array("\"file\":\(JSONWriter.quoted($0)),".utf8) }
  }

  package var wantsPayload: Bool { payloadHex }
  /// ndjson has no `dissection`, so it needs no tree.
  package var acceptsFlatRecords: Bool { !asArray && !payloadHex }

  package func emit(_ record: DecodedRecord) {
    if asArray { out.write(count == 0 ? "[\n" : ",\n") }
    if payloadHex, let payload = record.payload {
      var record = record
      record.extra.append(.init("payload", .string(Hex.compact(payload))))
      write(record)
    } else {
      write(record)
    }
    if !asArray { out.line() }
    count += 1
  }

  private func write(_ record: DecodedRecord) {
    if let fileKey {
      // The object is written aside, then after `{` and the file's key:
      // a copy per message, only when several files are decoded.
      scratch.removeAll()
      render(record, into: &scratch)
      out.append { buffer in
        buffer.append(UInt8(ascii: "{"))
        fileKey.withUnsafeBytes { buffer.append(bytes: $0) }
        scratch.withUnsafeBytes { buffer.append(bytes: UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
      }
      return
    }
    out.append { render(record, into: &$0) }
  }

  @inline(__always)
  private func render(_ record: DecodedRecord, into buffer: inout JSONWriter) {
    // Clean messages reach ndjson alone (`acceptsFlatRecords`).
    if let flat = record.flat {
      templates.write(record, flat, flows: &flows, into: &buffer)
    } else {
      JSONRenderer.write(record, includeDissection: asArray, flows: &flows, into: &buffer)
    }
  }

  package func finish(name: String, stats: CaptureStats) {
    if asArray { out.line(count == 0 ? "[]" : "\n]") }
  }
}

/// `--stats`: counts only.
package final class StatsSink: MessageSink {
  private let out: OutputWriter
  private let json: Bool

  package init(out: OutputWriter, json: Bool) {
    self.out = out
    self.json = json
  }

  package var wantsPayload: Bool { false }
  package var wantsRecords: Bool { false }
  package var wantsCounts: Bool { true }

  package func emit(_ record: DecodedRecord) {}

  package func finish(name: String, stats: CaptureStats) {
    if json {
      out.bytes(stats.json(name: name))
      out.line()
    } else {
      for line in stats.lines(name: name) { out.line(line) }
    }
  }
}

/// `decode -w` without `-P`: the messages go to the file, not to stdout,
/// as with tshark -w.
package final class SilentSink: MessageSink {
  package init() {}
  package var wantsPayload: Bool { false }
  package var acceptsFlatRecords: Bool { true }
  package func emit(_ record: DecodedRecord) {}
  package func finish(name: String, stats: CaptureStats) {}
}
