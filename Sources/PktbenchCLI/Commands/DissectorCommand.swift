import ArgumentParser
import Foundation
import PacketDecode
import PacketKit
import SpecCodecs

/// `pktbench dissector CODEC [--spec FILE] [--name NAME] > NAME.lua`: a
/// Wireshark Lua dissector from the codec's own description. A binary
/// codec's layout comes from its Kaitai Struct spec: the one `--spec`
/// loaded, or the one the codec's plugin ships (`SpecDescribed`); a JSON
/// codec's dissector hands the payload to Wireshark's JSON dissector and
/// names the message. A name Wireshark has already (dns, ntp …) gets a
/// prefix, said on stderr, so it loads beside Wireshark's own protocols.
struct DissectorCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "dissector",
      abstract: "Write a Wireshark Lua dissector for a codec (fields named as in -Y).",
      discussion: """
        Fields are named <name>.<field>, as pktbench's display filter names them. The dissector registers on \
        the codec's well-known UDP ports and for Decode As (tshark -d udp.port==9000,NAME), takes other UDP \
        traffic whose fixed bytes are the protocol's, and reads BLE characteristics by UUID (those Wireshark \
        decodes itself too). Checks are verified (expert info on a bad one), enums named. A codec from a \
        Kaitai Struct spec: add --spec FILE.ksy. A codec named as one of Wireshark's protocols is called \
        pktbench_<codec> unless --name says otherwise.

          pktbench dissector legctrl > legctrl.lua
          tshark -X lua_script:legctrl.lua -r capture.pcap -Y 'legctrl.state == 2'
        """)
  }

  @Argument(help: "The codec (see 'pktbench codecs').")
  var codec: String

  @Option(help: "The protocol's name in Wireshark (lower case letters, digits, '_').")
  var name: String?

  @OptionGroup var spec: SpecOption

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    guard let found = codecs.named(codec) else {
      throw CommandFailure("dissector: unknown codec '\(codec)'; known: \(codecs.nameList)")
    }
    let chosen = try protocolName(for: found.name)
    let lua: String
    if let program = SpecProgram.of(found) {
      lua = LuaDissector.make(program, name: chosen)
    } else if let described = found as? any SpecDescribed {
      do {
        lua = LuaDissector.make(try SpecLoader.load(text: described.specText, file: found.name), name: chosen)
      } catch {
        throw CommandFailure(
          "dissector: \(found.name)'s own spec does not load: \(error.description)", status: 70)
      }
    } else if found.info.encoding == .json {
      lua = LuaJSONDissector.make(found.info, name: chosen)
    } else {
      throw CommandFailure(
        "dissector: \(found.name) describes no layout pktbench can read; load one with --spec FILE")
    }
    let out = OutputWriter()
    out.write(lua)
    out.flush()
  }

  /// `--name`, or the codec's name unless Wireshark has a protocol of that
  /// name (its own would refuse a second): then `pktbench_<codec>`, said.
  private func protocolName(for codec: String) throws -> String {
    if let name {
      guard Self.isIdentifier(name) else {
        throw CommandFailure(
          "dissector: --name \(name.debugDescription) is not a protocol name; use lower case letters, digits and '_'",
          status: 64)
      }
      return name
    }
    guard WiresharkProtocols.taken(codec) else { return codec }
    let renamed = "pktbench_" + codec
    FileHandle.standardError.write(
      Data(
        "pktbench: dissector: Wireshark has a protocol '\(codec)'; this one is '\(renamed)' (its fields \(renamed).…; choose with --name)\n"
          .utf8))
    return renamed
  }

  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.utf8.first, first >= 0x61, first <= 0x7A, text.utf8.count <= 64 else {
      return false
    }
    return text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
  }
}

/// Wireshark's own protocol names: `tshark -G protocols` when tshark is
/// there, else the common ones a device's protocol might be called.
enum WiresharkProtocols {
  static let common: Set<String> = [
    "arp", "beacon", "bluetooth", "btatt", "coap", "dhcp", "dns", "eth", "http", "icmp", "ip", "ipv6", "mdns",
    "modbus", "mqtt", "ntp", "rtcp", "rtp", "sip", "snmp", "ssh", "tcp", "tftp", "tls", "udp", "websocket",
  ]

  static func taken(_ name: String) -> Bool {
    guard let tshark = tshark() else { return common.contains(name) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tshark)
    process.arguments = ["-G", "protocols"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return common.contains(name)
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let columns = line.split(separator: "\t")
      if columns.count >= 3, columns[2] == name { return true }
    }
    return false
  }

  private static func tshark() -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      let path = "\(directory)/tshark"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }
}
