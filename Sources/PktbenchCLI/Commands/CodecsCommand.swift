import ArgumentParser
import CodecRegistry
import PacketKit

/// `pktbench codecs`: every codec, its messages, fields, units, ranges, defaults.
struct CodecsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "codecs",
    abstract: "List the codecs, their messages and their fields (craft flags).")

  @Argument(help: "Show only this codec.")
  var codec: String?

  @OptionGroup var spec: SpecOption

  func run() throws {
    let out = OutputWriter()
    defer { out.flush() }
    var selected = Codecs.all
    if let codec {
      guard let match = Codecs.named(codec) else {
        throw CommandFailure(
          "unknown codec '\(codec)'; known: \(Codecs.names.joined(separator: ", "))")
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
