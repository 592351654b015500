import ArgumentParser
import Foundation
import PacketDecode
import PacketKit
import PacketLive

/// The output flags every live command shares with `decode`.
struct LiveOutputOptions: ParsableArguments {
  @Option(help: "Output: text, json or ndjson (as decode, plus arrival and gap_ms).")
  var format: LiveOutputSettings.Format = .text

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
