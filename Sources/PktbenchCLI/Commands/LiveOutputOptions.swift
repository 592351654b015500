import ArgumentParser
import Foundation
import PacketDecode
import PacketKit

/// The output flags every live command shares with `decode`.
struct LiveOutputOptions: ParsableArguments {
  @Option(help: "Output: text, json or ndjson (as decode, plus arrival and gap_ms).")
  var format: DecodeCommand.Format = .text

  @Flag(name: .customShort("V"), help: "Full tree per message, like tshark -V.")
  var verbose = false

  @Flag(name: .customShort("x"), help: "Hex dump with each field's bytes marked.")
  var hexDump = false

  @Flag(name: .customLong("payload-hex"), help: "Add each payload as hex (\"payload\") to JSON output.")
  var payloadHex = false

  @Flag(name: [.customShort("q"), .customLong("quiet")], help: "No line per message.")
  var quiet = false

  @Flag(help: "Print a summary at the end: counts, measured rates, gaps per source.")
  var stats = false

  var settings: LiveOutputSettings {
    LiveOutputSettings(
      format: format, verbose: verbose, hexDump: hexDump, payloadHex: payloadHex, quiet: quiet,
      stats: stats)
  }
}

/// The output flags as a plain value, to hand to an event loop.
struct LiveOutputSettings: Sendable {
  var format: DecodeCommand.Format = .text
  var verbose = false
  var hexDump = false
  var payloadHex = false
  var quiet = false
  var stats = false
  /// `-Y`, compiled: which messages are written and counted.
  var displayFilter: RecordFilter?

  /// The sink for per-message output; nil with --quiet.
  func makeSink(out: OutputWriter, codecs: CodecSet) -> MessageSink? {
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

/// `--count N` / `--duration D`, for the commands that run until stopped.
struct LiveLimitOptions: ParsableArguments {
  @Option(name: [.customShort("c"), .long], help: "Stop after this many received messages (as tcpdump -c).")
  var count: Int?

  @Option(help: "Stop after this long: 30s, 2m, 500ms.")
  var duration: DurationArgument?

  func validate() throws {
    if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    if let duration, duration.seconds <= 0 { throw ValidationError("--duration must be more than 0") }
  }
}
