import ArgumentParser
import PacketDecode
import PacketKit
import SpecCodecs

/// `pktbench dissector CODEC [--spec FILE] > CODEC.lua`: a Wireshark Lua
/// dissector from the codec's own description. A binary codec's layout
/// comes from a spec: the one `--spec` loaded, or the one the codec's
/// plugin ships (`SpecDescribed`); a JSON codec's dissector hands the
/// payload to Wireshark's JSON dissector and names the message.
struct DissectorCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "dissector",
      abstract: "Write a Wireshark Lua dissector for a codec (fields named as in -Y).",
      discussion: """
        Fields are named <codec>.<field>, as pktbench's display filter names them. The
        dissector registers on the codec's well-known UDP ports, takes other UDP traffic
        whose fixed bytes are the protocol's, and reads BLE characteristics by UUID when
        the capture has the GATT discovery. Check bytes are verified (expert info on a
        bad one) and enums named. A codec from a spec file: add --spec FILE.

          pktbench dissector legctrl > legctrl.lua
          tshark -X lua_script:legctrl.lua -r capture.pcap -Y 'legctrl.state == 2'
        """)
  }

  @Argument(help: "The codec (see 'pktbench codecs').")
  var codec: String

  @OptionGroup var spec: SpecOption

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    guard let found = codecs.named(codec) else {
      throw CommandFailure("dissector: unknown codec '\(codec)'; known: \(codecs.nameList)")
    }
    let lua: String
    if let program = SpecProgram.of(found) {
      lua = LuaDissector.make(program)
    } else if let described = found as? any SpecDescribed {
      do {
        lua = LuaDissector.make(SpecProgram(try SpecLoader.load(text: described.specText, file: found.name)))
      } catch {
        throw CommandFailure(
          "dissector: \(found.name)'s own spec does not load: \(error.description)", status: 70)
      }
    } else if found.info.encoding == .json {
      lua = LuaJSONDissector.make(found.info)
    } else {
      throw CommandFailure(
        "dissector: \(found.name) describes no layout pktbench can read; load one with --spec FILE")
    }
    let out = OutputWriter()
    out.write(lua)
    out.flush()
  }
}
