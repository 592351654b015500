import ArgumentParser
import PacketDecode
import PacketKit
import PacketLive

/// `pktbench craft MESSAGE --field value ...`: builds one frame.
struct CraftCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "craft",
      abstract: "Craft one frame of any message kind; raw bytes to a pipe, a hex dump to a terminal.",
      discussion: """
        MESSAGE is a message name or its craft name, or codec.message. Field \
        flags come from the codec's schema: 'pktbench codecs' lists them all with \
        units, ranges and defaults.

        """ + HelpExamples.text("craft"))
  }

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case raw, hex, json, c
  }

  @Argument(help: "The message to craft (see 'pktbench codecs').")
  var message: String

  @Option(help: "Output: raw, hex, json or c (default: raw to a pipe, hex to a terminal).")
  var format: Format?

  @Flag(help: "Craft out-of-range values anyway, for testing devices.")
  var force = false

  @Flag(name: .customLong("bad-check"), help: "Write a wrong check byte (codecs that have one).")
  var badCheck = false

  @Argument(parsing: .allUnrecognized, help: "Field flags for the message.")
  var fieldArguments: [String] = []

  @OptionGroup var spec: SpecOption

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let (codec, schema) = try CraftArguments.resolve(message, codecs: codecs)
    let values = try CraftArguments(schema: schema, codecName: codec.info.name, codecs: codecs)
      .values(fieldArguments, force: force, badCheck: badCheck)
    let bytes: [UInt8]
    do {
      bytes = try codec.craft(schema.name, values: values)
    } catch {
      if error.code == "missing-field", !error.text.contains("--"), let name = error.field,
        let field = schema.field(named: name)
      {
        throw CommandFailure("\(schema.name) needs --\(field.flag) (\(field.name): \(field.help))")
      }
      let hint = error.forceCrafts && !force ? " (use --force to craft it anyway)" : ""
      // A file that is not what its field holds: name the flag it came by.
      var flag = ""
      if let name = error.field, let field = schema.field(named: name), case .file = field.kind {
        flag = "--\(field.flag): "
      }
      throw CommandFailure("\(flag)\(error.text)\(hint)")
    }
    let out = OutputWriter()
    defer { out.flush() }
    switch format ?? (out.isTerminal ? .hex : .raw) {
    case .raw:
      out.bytes(bytes)
    case .hex:
      let record = DecodedRecord(
        transport: "raw", result: codec.decodeFrame(bytes), payload: bytes,
        payloadLength: bytes.count)
      for line in HexDump.lines(bytes) { out.line(line) }
      for line in TreeRenderer.lines(record, style: Style.forOutput(out)).dropFirst() {
        out.line(line)
      }
    case .json:
      var record = DecodedRecord(
        transport: "raw", result: codec.decodeFrame(bytes), payload: bytes,
        payloadLength: bytes.count)
      record.extra = [.init("bytes", .string(Hex.compact(bytes)))]
      out.bytes(JSONRenderer.object(record))
      out.line()
    case .c:
      let name = schema.name.replacingOccurrences(of: ".", with: "_")
      out.line("/* \(codec.info.name) \(schema.name), \(bytes.count) bytes */")
      out.line("static const unsigned char \(codec.info.name)_\(name)[\(bytes.count)] = {")
      var row: [String] = []
      for (index, byte) in bytes.enumerated() {
        row.append("0x\(Hex.compact([byte]))")
        if row.count == 12 || index == bytes.count - 1 {
          out.line("  " + row.joined(separator: ", ") + (index == bytes.count - 1 ? "" : ","))
          row.removeAll()
        }
      }
      out.line("};")
    }
  }
}
