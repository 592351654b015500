import ArgumentParser
import PacketDecode
import PacketKit
import PacketLive

/// `pktbench emulate CODEC --listen udp:…|ws:…`: plays the codec's device on
/// a real socket with the same model `analyze` predicts with, so an app can
/// be tested without the hardware.
struct EmulateCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "emulate",
      abstract: "Act as a protocol's device or server on a real socket, as its model says the real one does.",
      discussion: """
        The device's one model takes every message that arrives, from every \
        sender and connection, as the real device has one socket and one state \
        (one watchdog for every sender; one state, its reports to the last \
        writer; a server's state kept per device id across connections), \
        answers as the real device does (to the connection that \
        asked), keeps its timers on the wall clock, and prints what it did: one \
        event a line, or with --format ndjson the lines of 'analyze --timeline'. \
        --messages adds what it gets and what it sends. Ctrl-C, --count \
        (received messages) or --duration stop it cleanly.

        """ + settingsText + "\n\n" + HelpExamples.text("emulate"))
  }

  /// Each modelled codec's settings, from its plugin.
  static var settingsText: String {
    guard CommandContext.writesHelp else { return "" }
    var lines = ["Devices and their settings:"]
    for codec in CommandContext.codecs.all {
      guard let behaviour = codec as? any DeviceBehaviour else { continue }
      let device = behaviour.device
      lines.append(
        "  \(codec.info.name): the \(device.name), on \(device.listens.sorted().joined(separator: " or "))")
      for setting in device.settings {
        let value: String
        switch setting.kind {
        case .flag: value = ""
        case .choice(let words): value = " " + words.joined(separator: "|")
        case .value(let placeholder): value = " " + placeholder
        }
        let fallback = setting.defaultValue.map { " (default \($0))" } ?? ""
        lines.append("    --\(setting.flag)\(value)")
        lines += HelpExamples.wrapped(
          "        " + setting.help + fallback, continuation: "        ", marker: "")
      }
    }
    return lines.joined(separator: "\n")
  }

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, ndjson
  }

  @Argument(help: "The codec whose device to play (\(CommandContext.codecs.nameList)).")
  var codec: String

  @Option(help: "Where to listen: udp:HOST:PORT or ws:HOST:PORT (also udp:PORT, ws:PORT).")
  var listen: String

  @Option(help: "Events as text, or ndjson (the lines of analyze --timeline).")
  var format: Format = .text

  @Flag(help: "Also print each message received and sent (the device's reports too), as listen prints them.")
  var messages = false

  @Option(name: .customLong("max-message"), help: "ws: largest message accepted, in bytes.")
  var maxMessage = 16 << 20

  @Option(
    name: [.customShort("Y"), .customLong("display-filter")],
    help:
      "Print only the received and sent messages this display filter keeps (\(RecordFilter.syntax)); implies --messages. The device still takes every message, its events are all printed, and --count counts the kept messages received."
  )
  var displayFilter: String?

  @OptionGroup var limits: LiveLimitOptions
  @OptionGroup var server: WebSocketServerOptions

  @Argument(parsing: .allUnrecognized, help: "The device's settings (see above), as --flag or --flag VALUE.")
  var settings: [String] = []

  @OptionGroup var spec: SpecOption

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let recordFilter = try RecordFilter.compile(displayFilter, codecs: codecs)
    let (codec, behaviour) = try EmulationSettings.device(self.codec, in: codecs)
    let address = try ListenAddress.parse(listen)
    guard behaviour.device.listens.contains(address.kind.rawValue) else {
      throw CommandFailure(
        "the \(codec.info.name) \(behaviour.device.name) listens on "
          + behaviour.device.listens.sorted().map { "\($0):HOST:PORT" }.joined(separator: " or ")
          + ", not \(address.kind.rawValue)")
    }
    let emulation = try EmulationSettings(
      codec: codec.info.name,
      settings: try Self.parse(settings, for: behaviour.device, codec: codec.info.name),
      ndjson: format == .ndjson, codecs: codecs)
    var output = LiveOutputSettings()
    output.quiet = !messages && recordFilter == nil
    output.displayFilter = recordFilter
    output.format = format == .ndjson ? .ndjson : .text
    let configuration = ListenConfiguration(
      codecs: codecs, address: address, codec: codec.info.name, rules: [], output: output,
      countLimit: limits.count,
      emulation: emulation,
      server: try server.settings(for: address))
    let status = try ListenRun(
      configuration: configuration, maxMessage: maxMessage, durationSeconds: limits.duration?.seconds
    ).run(note: ", playing the \(codec.info.name) \(behaviour.device.name)")
    if status != ExitStatus.ok { throw ExitCode(status) }
  }

  /// `--flag`, `--flag VALUE` and `--flag=VALUE` against the device's settings.
  static func parse(_ tokens: [String], for device: DeviceDescription, codec: String) throws(CommandFailure)
    -> ModelSettings
  {
    var settings: ModelSettings = [:]
    let known = device.settings.map { "--\($0.flag)" }.joined(separator: ", ")
    var index = 0
    while index < tokens.count {
      let (token, inline) = splitFlag(tokens[index])
      let flag = token.hasPrefix("--") ? String(token.dropFirst(2)) : ""
      guard let setting = device.settings.first(where: { $0.flag == flag }) else {
        throw CommandFailure(
          "'\(tokens[index])' is not a setting of the \(codec) \(device.name)"
            + (known.isEmpty ? "; it takes none" : "; it takes \(known)"))
      }
      index += 1
      switch setting.kind {
      case .flag:
        guard inline == nil else { throw CommandFailure("--\(flag) takes no value") }
        settings[flag] = "true"
      case .choice(let words):
        guard let value = inline ?? (index < tokens.count ? tokens[index] : nil), words.contains(value) else {
          throw CommandFailure("--\(flag) takes one of \(words.joined(separator: ", "))")
        }
        if inline == nil { index += 1 }
        settings[flag] = value
      case .value(let placeholder):
        guard let value = inline ?? (index < tokens.count ? tokens[index] : nil) else {
          throw CommandFailure("--\(flag) needs a value (\(placeholder))")
        }
        if inline == nil { index += 1 }
        settings[flag] = value
      }
    }
    return settings
  }
}
