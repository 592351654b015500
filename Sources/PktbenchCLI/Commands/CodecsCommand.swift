import ArgumentParser
import PacketDecode
import PacketKit
import PacketLive

/// `pktbench codecs`: every codec, its messages, fields, units, ranges, defaults.
struct CodecsCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "codecs",
      abstract: "List the codecs, their messages and their fields (craft flags).")
  }

  @Argument(help: "Show only this codec.")
  var codec: String?

  @OptionGroup var spec: SpecOption

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let out = OutputWriter()
    defer { out.flush() }
    var selected = codecs.all
    if let codec {
      guard let match = codecs.named(codec) else {
        throw CommandFailure(
          "unknown codec '\(codec)'; known: \(codecs.names.joined(separator: ", "))")
      }
      selected = [match]
    }
    for codec in selected {
      let info = codec.info
      out.line("\(info.name) — \(info.title)")
      out.line("  transport: \(info.transport)")
      for note in info.notes { out.line("  \(note)") }
      for message in info.messages {
        let aliases = message.craftNames.filter { $0 != message.name }
        let craft = aliases.isEmpty ? "" : "  (craft \(aliases.joined(separator: ", ")))"
        out.line("  \(message.name) [\(message.direction.rawValue)]\(craft)")
        out.line("    \(message.summary)")
        for line in CraftArguments.helpLines(message) { out.line(line) }
      }
      out.line()
    }
  }
}
