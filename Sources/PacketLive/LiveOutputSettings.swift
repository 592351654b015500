import PacketDecode
import PacketKit

/// The output flags as a plain value, to hand to an event loop.
public struct LiveOutputSettings: Sendable {
  /// The formats live commands share with `decode`.
  public enum Format: String, CaseIterable, Sendable {
    case text, json, ndjson
  }

  public var format: Format
  /// A full tree per message (`-V`).
  public var verbose: Bool
  /// A hex dump with each field's bytes marked (`-x`).
  public var hexDump: Bool
  /// Each payload as hex in JSON output.
  public var payloadHex: Bool
  /// No line per message.
  public var quiet: Bool
  /// A summary at the end: counts, measured rates, gaps per source.
  public var stats: Bool
  /// `-Y`, compiled: which messages are written and counted.
  package var displayFilter: RecordFilter?

  public init(
    format: Format = .text, verbose: Bool = false, hexDump: Bool = false, payloadHex: Bool = false,
    quiet: Bool = false, stats: Bool = false
  ) {
    self.format = format
    self.verbose = verbose
    self.hexDump = hexDump
    self.payloadHex = payloadHex
    self.quiet = quiet
    self.stats = stats
  }

  /// The sink for per-message output; nil with --quiet.
  package func makeSink(out: OutputWriter, codecs: CodecSet) -> MessageSink? {
    guard !quiet else { return nil }
    switch format {
    case .text:
      let style = Style.forOutput(out)
      return LiveTextSink.make(
        out: out, style: style, verbose: verbose, hexDump: hexDump, framing: SummaryFraming(codecs))
    case .json: return JSONSink(out: out, asArray: true, payloadHex: payloadHex)
    case .ndjson: return JSONSink(out: out, asArray: false, payloadHex: payloadHex)
    }
  }

  /// Where the summary goes: stdout, unless messages already stream there as
  /// JSON (then stderr, as text, so the stream stays one kind of object).
  var summaryGoesToStandardError: Bool { !quiet && format != .text }

  /// The summary as JSON when stdout carries only the summary in a JSON format.
  var summaryAsJSON: Bool { quiet && format != .text }
}
