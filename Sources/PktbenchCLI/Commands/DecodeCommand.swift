import ArgumentParser
import CodecRegistry
import Foundation
import PacketCapture
import PacketKit

/// `pktbench decode`: captures (pcap, pcapng) or the bytes of one payload.
struct DecodeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "decode",
    abstract: "Decode a capture file, or the bytes of one payload (--hex, or - with --codec).",
    discussion: HelpExamples.text(
      "decode",
      generic: [
        "pktbench decode Captures/field-session.pcapng",
        "pktbench decode capture.pcap --stats",
        "tcpdump -i eth0 -U -w - | pktbench decode - -l   # live",
        "pktbench decode a.pcap b.pcap --jobs 2",
        "pktbench decode --hex 'BYTES'   # no --codec: the best probe wins",
      ]))

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, ndjson
  }

  @Argument(help: "Capture file(s) (pcap, pcapng, btsnoop), or - for stdin.")
  var inputs: [String] = []

  @Option(help: "Payload bytes as hex, decoded as one message.")
  var hex: String?

  @OptionGroup var routing: RoutingOptions

  @Option(help: "Output: text, json or ndjson.")
  var format: Format = .text

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

  func validate() throws {
    if hex != nil && !inputs.isEmpty {
      throw ValidationError("give either --hex or input files, not both")
    }
    if hex == nil && inputs.isEmpty {
      throw ValidationError("nothing to decode: give a capture file, - for stdin, or --hex BYTES")
    }
    if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
  }

  func run() throws {
    try RecordFilter.check(displayFilter, onePayload: hex != nil || (inputs == ["-"] && routing.codec != nil))
    let out = OutputWriter.messages(lineBuffered: lineBuffered)
    defer { out.flush() }
    if let hex {
      let bytes: [UInt8]
      do {
        bytes = try Hex.parse(hex)
      } catch {
        throw CommandFailure("--hex: \(error.description)", status: ExitStatus.usage)
      }
      try decodePayload(bytes, out: out)
      return
    }
    if inputs == ["-"], let name = routing.codec, let codec = Codecs.named(name) {
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
        try decodeCaptures(out: out, standardInput: input)
        return
      }
      try decodePayload(try Self.payload(input, codec: codec.info), out: out)
      return
    }
    try decodeCaptures(out: out)
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
  private func decodePayload(_ bytes: [UInt8], out: OutputWriter) throws {
    var record = DecodedRecord(transport: "raw", payload: bytes, payloadLength: bytes.count)
    if let name = routing.codec, let chosen = Codecs.named(name) {
      record.result = chosen.decodeFrame(bytes)
    } else {
      let choice = bytes.withUnsafeBytes { ProbeChoice($0) }
      record.routing = choice.explanation
      if let chosen = choice.codec {
        record.result = chosen.decodeFrame(bytes)
      }
    }
    let style = Style.forOutput(out)
    switch format {
    case .json, .ndjson:
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
