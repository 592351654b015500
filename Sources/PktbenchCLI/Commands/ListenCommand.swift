import ArgumentParser
import CodecRegistry
import NIOCore
import NIOPosix
import PacketKit

/// `pktbench listen udp:PORT` / `listen ws:PORT`: a real socket
/// that decodes each message as it arrives.
struct ListenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "listen",
    abstract: "Listen on a UDP port or as a WebSocket server and decode each message as it arrives.",
    discussion: """
      ADDRESS is udp:PORT or ws:PORT (every address, IPv4 and IPv6), or with an \
      address: udp:127.0.0.1:9000, udp:[::]:9000, ws:[::1]:8080. The WebSocket \
      server upgrades the paths the codecs name only, and declines \
      permessage-deflate. Output is decode's (same formats), plus the arrival \
      time and the gap since the previous message from the same source. \
      Ctrl-C, --count or --duration stop it cleanly. To answer as a device \
      or server does, use 'pktbench emulate'.

      """ + HelpExamples.text("listen"))

  @Argument(help: "udp:PORT, ws:PORT, or with an address: udp:127.0.0.1:9000, udp:[::]:9000.")
  var address: String

  @OptionGroup var routing: RoutingOptions
  /// `--respond` moved to `emulate`; the flag stays to say so.
  @Flag(help: .hidden)
  var respond = false

  @Option(name: .customLong("max-message"), help: "ws: largest message accepted, in bytes.")
  var maxMessage = 16 << 20

  @OptionGroup var limits: LiveLimitOptions
  @OptionGroup var output: LiveOutputOptions

  @Option(
    name: [.customShort("Y"), .customLong("display-filter")],
    help:
      "Show only the messages this display filter keeps (\(RecordFilter.syntax)); --count and --stats count them."
  )
  var displayFilter: String?

  func validate() throws {
    if maxMessage < 1024 || maxMessage > Int(UInt32.max) {
      throw ValidationError("--max-message must be 1024…\(UInt32.max) bytes")
    }
  }

  func run() throws {
    if respond {
      throw CommandFailure(
        "listen answers nothing; to answer as a device or server does, use "
          + "'pktbench emulate CODEC --listen \(self.address)' (see 'pktbench emulate --help')")
    }
    let address = try ListenAddress.parse(self.address)
    var settings = output.settings
    settings.displayFilter = try RecordFilter.compile(displayFilter)
    let configuration = ListenConfiguration(
      address: address, codec: routing.codec, rules: try routing.rules(), output: settings,
      countLimit: limits.count, emulation: nil)
    try ListenRun(configuration: configuration, maxMessage: maxMessage, duration: limits.duration).run(
      note: address.kind == .ws ? " (paths \(WebSocketPathField.usage))" : "")
  }
}

/// "5s", "500ms", "1.5s" for messages.
enum DurationText {
  static func of(_ seconds: Double) -> String {
    if seconds == 0 { return "0s" }
    if seconds < 1 { return "\(JSONWriter.formatNumber(seconds * 1000))ms" }
    return "\(JSONWriter.formatNumber(seconds))s"
  }
}
