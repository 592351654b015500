import ArgumentParser
import Foundation
import PacketCapture
import PacketDecode
import PacketKit

/// `pktbench decode`: captures (pcap, pcapng) or the bytes of one payload.
struct DecodeCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "decode",
      abstract: "Decode a capture file, or the bytes of one payload (--hex, or - with --codec).",
      discussion: HelpExamples.text(
        "decode",
        generic: [
          "pktbench decode Captures/field-session.pcapng",
          "pktbench decode capture.pcap --stats",
          "tcpdump -i eth0 -U -w - | pktbench decode - -l   # live",
          "pktbench decode a.pcap b.pcap --jobs 2",
          "pktbench decode capture.pcap udp port 5005 -c 100   # BPF after the file",
          "pktbench decode capture.pcap -Y 'error or diagnostics' -w odd.pcapng",
          "pktbench decode capture.pcap --format csv --fields frame,time,message -t ud",
          "pktbench decode capture.pcap --start '2026-11-22 02:52:42' --stop 1795315963",
          "pktbench decode --hex 'BYTES'   # no --codec: the best probe wins",
        ]))
  }

  /// `decode`'s own: those, and the column formats.
  enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, ndjson, csv, tsv
  }

  @Argument(
    help: ArgumentHelp(
      "Capture file(s) (pcap, pcapng, btsnoop, PacketLogger .pklg), or - for stdin; words after them are a "
        + "BPF expression, as tcpdump takes it.",
      valueName: "inputs"))
  var inputs: [String] = []

  @Option(
    name: .customShort("r"),
    help: "Read this capture file, as tcpdump -r (repeatable); every word then is the BPF expression.")
  var read: [String] = []

  @Flag(name: .customShort("n"), help: "Accepted for tcpdump's sake: pktbench never resolves names.")
  var numeric = false

  @Option(help: "Payload bytes as hex, decoded as one message.")
  var hex: String?

  @OptionGroup var routing: RoutingOptions

  @Option(help: "Output: text, json, ndjson, csv (RFC 4180, a header row) or tsv.")
  var format: OutputFormat = .text

  @Option(
    help: ArgumentHelp(
      "Columns of csv and tsv, named as -Y names fields (frame,time,src,dst,codec,message,legctrl.state,…; "
        + "file when several files); default: \(ColumnSink.defaultFields.joined(separator: ",")).",
      valueName: "NAMES"))
  var fields: String?

  @Option(name: .customShort("t"), help: ArgumentHelp(TimeFormat.help, valueName: "r|a|ad|u|ud|d|e"))
  var timeFormat: TimeFormat?

  @Flag(name: .customShort("V"), help: "Full tree per message, like tshark -V.")
  var verbose = false

  @Flag(name: .customShort("x"), help: "Hex dump with each field's bytes marked.")
  var hexDump = false

  @Option(help: "BPF filter, same syntax as tcpdump.")
  var filter: String?

  @Option(
    name: [.customShort("Y"), .customLong("display-filter")],
    help: "Show only the messages this display filter keeps (\(RecordFilter.syntax)); --stats counts them.")
  var displayFilter: String?

  @Option(
    name: .customLong("ble-map"),
    help:
      "Route a BLE ATT handle to a codec when discovery is not in the capture: 0x0012=\(HelpExamples.bleCodec), or 0x0040:0x0012=\(HelpExamples.bleCodec) for one connection (repeatable)."
  )
  var bleMap: [String] = []

  @Flag(help: "Counts per codec and message, errors, bytes and time span instead of messages.")
  var stats = false

  @Option(help: "Decode up to N files at once (output stays per file, in order).")
  var jobs: Int = 1

  @Flag(name: .customLong("payload-hex"), help: "Add each payload as hex (\"payload\") to JSON output.")
  var payloadHex = false

  @Flag(
    name: [.customShort("l"), .customLong("line-buffered")],
    help:
      "Write each message as soon as it is decoded, like tcpdump -l (for a pipe read live: tcpdump -U -w - | pktbench decode - -l | …); always so when stdout is a terminal."
  )
  var lineBuffered = false

  @Option(
    name: [.customShort("w"), .customLong("write")],
    help: ArgumentHelp(
      "Write the records that carried the messages shown (after --filter and -Y; every segment or fragment of a reassembled message) to this pcapng file, as tshark -w.",
      valueName: "OUT.pcapng"))
  var write: String?

  @Option(
    name: .customLong("export-jpeg"),
    help: ArgumentHelp(
      "Save every JPEG the messages carry (fields their codec's schema marks image/jpeg, e.g. camera frames) in this directory, named by the field the schema names (frameId), as tshark --export-objects.",
      valueName: "DIR"))
  var exportJPEG: String?

  @Flag(
    help:
      "With --export-jpeg, replace files of the same name already in the directory (else a suffix: -2, -3…).")
  var overwrite = false

  @Option(
    name: .customLong("max-files"),
    help:
      "With --export-jpeg, write at most this many files (default \(ObjectExport.defaultMaxFiles)); the rest are counted and said."
  )
  var maxFiles = ObjectExport.defaultMaxFiles

  @Flag(
    name: .customLong("no-progress"),
    help:
      "No progress line on stderr (shown only on a terminal, after two seconds, when stdout is not the same terminal's messages)."
  )
  var noProgress = false

  @Flag(name: .customShort("P"), help: "With -w, still write the messages to stdout, as tshark -P.")
  var print = false

  @Option(
    name: [.customShort("c"), .customLong("count")],
    help: "Stop after N messages shown (after -Y), as tshark -c; with several files, N in all.")
  var count: Int?

  @OptionGroup var timeWindow: TimeWindowOptions

  @OptionGroup var spec: SpecOption

  mutating func validate() throws {
    let (files, expression) = TcpdumpArguments.split(inputs, read: read)
    if hex != nil, let expression {
      throw ValidationError("--hex takes no files or BPF expression; got '\(expression)'")
    }
    if hex == nil {
      inputs = files
      filter = TcpdumpArguments.combined(filter, expression)
    }
    if hex == nil, inputs.isEmpty, let expression {
      throw ValidationError(
        "no capture file: '\(expression.split(separator: " ").first ?? "")' is not a file")
    }
    if hex != nil && !inputs.isEmpty {
      throw ValidationError("give either --hex or input files, not both")
    }
    if hex == nil && inputs.isEmpty {
      throw ValidationError("nothing to decode: give a capture file, - for stdin, or --hex BYTES")
    }
    if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    if maxFiles < 1 { throw ValidationError("--max-files must be at least 1") }
    if exportJPEG == nil, overwrite || maxFiles != ObjectExport.defaultMaxFiles {
      throw ValidationError("--overwrite and --max-files go with --export-jpeg DIR")
    }
    if let count, count < 1 { throw ValidationError("-c must be at least 1") }
    if fields != nil, format != .csv, format != .tsv {
      throw ValidationError("--fields names the columns of --format csv or tsv")
    }
    if write != nil, hex != nil {
      throw ValidationError("-w writes records of capture files; --hex is one payload")
    }
    if write != nil, inputs.contains("-") {
      throw ValidationError(
        "-w reads its input twice (to decode, then to copy records); give a file, not - (stdin)")
    }
    // A PacketLogger record has no pcapng link type to be copied as.
    if write != nil, let logger = (inputs + read).first(where: { CaptureInput.isPacketLogger(path: $0) }) {
      throw ValidationError(
        "-w copies records of pcap, pcapng and btsnoop files; \(logger) is a PacketLogger file, whose "
          + "records pcapng has no link type for")
    }
  }

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    try RecordFilter.check(
      displayFilter, onePayload: hex != nil || (inputs == ["-"] && routing.codec != nil), codecs: codecs)
    let out = OutputWriter.messages(lineBuffered: lineBuffered)
    defer { out.flush() }
    if let hex {
      let bytes: [UInt8]
      do {
        bytes = try Hex.parse(hex)
      } catch {
        throw CommandFailure("--hex: \(error.description)", status: ExitStatus.usage)
      }
      try decodePayload(bytes, codecs: codecs, out: out)
      return
    }
    if inputs == ["-"], let name = routing.codec, let codec = codecs.named(name) {
      // A capture piped in is decoded as a capture, --codec applying to
      // its payloads as for a file (`tcpdump -w - | pktbench decode
      // --codec rallie -`): no codec's payload starts with a pcap, pcapng
      // or btsnoop magic number. Anything else is one payload.
      let input: StandardInput
      do {
        input = try StandardInput()
      } catch {
        throw CommandFailure(error.text, status: ExitStatus.unreadable)
      }
      if input.format != nil {
        try decodeCaptures(codecs: codecs, out: out, standardInput: input)
        return
      }
      try decodePayload(try Self.payload(input, codec: codec.info), codecs: codecs, out: out)
      return
    }
    try decodeCaptures(codecs: codecs, out: out)
  }

  /// All of stdin as one payload for `codec`: read up to the most it takes
  /// and no further, so a stream of hundreds of MB is refused after
  /// reading that much, not held whole.
  static func payload(_ input: StandardInput, codec: CodecInfo) throws -> [UInt8] {
    let limit = codec.maxPayloadLength
    let bytes: [UInt8]?
    do {
      bytes = try input.readAll(limit: limit)
    } catch {
      throw CommandFailure(error.text, status: ExitStatus.unreadable)
    }
    guard let bytes else {
      throw CommandFailure(
        "standard input holds more than \(limit) bytes; a \(codec.name) payload is at most \(limit) bytes "
          + "(a capture on stdin must be pcap, pcapng or btsnoop)",
        status: ExitStatus.failed)
    }
    return bytes
  }

  /// One payload: tree (default), JSON, and -x hex marks.
  private func decodePayload(_ bytes: [UInt8], codecs: CodecSet, out: OutputWriter) throws {
    var record = DecodedRecord(transport: "raw", payload: bytes, payloadLength: bytes.count)
    if let name = routing.codec, let chosen = codecs.named(name) {
      record.result = chosen.decodeFrame(bytes)
    } else {
      let choice = bytes.withUnsafeBytes { ProbeChoice($0, codecs: codecs) }
      record.routing = choice.explanation
      if let chosen = choice.codec {
        record.result = chosen.decodeFrame(bytes)
      }
    }
    let style = Style.forOutput(out)
    switch format {
    case .json, .ndjson, .csv, .tsv:
      out.bytes(JSONRenderer.object(record))
      out.line()
    case .text:
      for line in TreeRenderer.lines(record, style: style) { out.line(line) }
      if hexDump {
        let fields: [DissectionNode]
        if case .decoded(let frame) = record.result { fields = frame.fields } else { fields = [] }
        for line in HexDump.markedLines(bytes, fields: fields, indent: "  ") { out.line(line) }
      }
    }
    switch record.result {
    case .decoded: break
    case .failed: throw ExitCode(ExitStatus.failed)
    case nil:
      out.flush()
      throw CommandFailure(
        "no codec claims these \(bytes.count) bytes (\(record.routing ?? "")); name one with --codec",
        status: ExitStatus.failed)
    }
  }
}
