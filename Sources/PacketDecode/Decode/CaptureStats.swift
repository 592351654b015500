import PacketCapture
import PacketKit

/// What `--stats` reports: counts per codec and message, errors and
/// warnings by code, bytes and the time span, and what was not decoded.
package struct CaptureStats {
  /// The codecs whose messages are counted (their names, for reports).
  package let codecs: CodecSet
  package var records = 0
  package var firstTime: Double?
  package var lastTime: Double?
  /// Per codec, per message: count and bytes. Nested, so that counting
  /// does not build a "codec message" string for every packet.
  var perCodec: [String: [String: MessageTally]] = [:]
  package var errors: [String: Int] = [:]
  package var warnings: [String: Int] = [:]
  package var transports: [String: Int] = [:]
  package var undecoded: [String: Int] = [:]
  package var damaged: [String: Int] = [:]
  package var unclaimedPayloads = 0
  var unclaimedBytes = 0
  package var events: [String: Int] = [:]
  /// Per flow and kind of message: counts and rates over the flow's own span.
  var flows = FlowRates()
  /// Where a damaged file stopped the reading.
  package var stoppedEarly: String?
  /// The signal that stopped the reading (SIGINT, SIGTERM), if one did.
  package var interrupted: String?
  /// When the capture started and ended, as the file recorded them (a
  /// pcapng Interface Statistics Block's `isb_starttime`, `isb_endtime`,
  /// checked against the records); nil when the file does not say.
  package var recordedStart: Double?
  package var recordedEnd: Double?
  /// A recorded time read in another unit, or ignored, in words.
  package var recordedTimeNotes: [PcapngRecordedTimes.Note] = []
  /// Messages counted by `countClean`: per codec and message index (see
  /// `CodecSet.messageNames`), count and bytes; folded into `perCodec` for reports.
  /// One flat array (a nested one is two uniqueness checks per count):
  /// codec `c`'s kinds start at `cleanStart[c]`.
  private var cleanCounts: [MessageTally]
  /// Where each codec's kinds start in `cleanCounts`.
  private let cleanStart: [Int]
  /// Per `CleanTransport`, records counted by `countClean`.
  private var cleanTransportCounts = Array(repeating: 0, count: CleanTransport.allCases.count)

  /// The transports `countClean` counts without hashing their names.
  enum CleanTransport: Int, CaseIterable {
    case udp, bleATT

    /// The name `transports` counts it under (a record's `transport`).
    package var name: String {
      switch self {
      case .udp: "udp"
      case .bleATT: "ble-att"
      }
    }
  }

  package init(codecs: CodecSet) {
    self.codecs = codecs
    var start = 0
    cleanStart = codecs.messageNames.map { names in
      defer { start += names.count }
      return start
    }
    cleanCounts = Array(repeating: MessageTally(), count: start)
  }

  /// Why reading stopped before the input's end, as the reports say it:
  /// damage, or a signal (the counts are then those of what was read).
  package var stopNote: String? {
    stoppedEarly ?? interrupted.map { "interrupted by \($0) after \(records) records" }
  }

  package mutating func record(frame: Int, time: Double) {
    records += 1
    if firstTime == nil { firstTime = time }
    lastTime = time
  }

  /// A message its codec's `cleanKind` classified: no diagnostics, so only
  /// its kind and size count.
  mutating func countClean(codec: Int, kind: Int, bytes: Int, time: Double, transport: CleanTransport) {
    cleanCounts[cleanStart[codec] + kind].add(bytes: bytes, time: time)
    cleanTransportCounts[transport.rawValue] += 1
  }

  /// A clean message of a flow whose slot `flows.cleanSlot` gave: its one
  /// tally is the flow's, folded into the per-message counts for reports.
  @inline(__always)
  mutating func countClean(slot: Int, bytes: Int, time: Double) {
    flows.addClean(slot: slot, bytes: bytes, time: time)
  }

  /// These counts with `countClean`'s folded in, for reports.
  private var merged: CaptureStats {
    var merged = self
    for (kind, tally) in flows.cleanCounts {
      merged.perCodec[codecs.names[kind.codec], default: [:]][
        codecs.messageNames[kind.codec][kind.kind], default: MessageTally()
      ].merge(tally)
      merged.transports[kind.transport.name, default: 0] += tally.count
    }
    for codec in codecs.messageNames.indices {
      for kind in codecs.messageNames[codec].indices {
        let entry = cleanCounts[cleanStart[codec] + kind]
        guard entry.count > 0 else { continue }
        let codecName = codecs.names[codec]
        let message = codecs.messageNames[codec][kind]
        merged.perCodec[codecName, default: [:]][message, default: MessageTally()].merge(entry)
      }
    }
    for transport in CleanTransport.allCases where cleanTransportCounts[transport.rawValue] > 0 {
      merged.transports[transport.name, default: 0] += cleanTransportCounts[transport.rawValue]
    }
    merged.cleanCounts = []
    merged.cleanTransportCounts = []
    return merged
  }

  package mutating func add(_ record: DecodedRecord) {
    transports[record.transport, default: 0] += 1
    if let error = record.layerError {
      damaged[error.code, default: 0] += 1
      return
    }
    if let event = record.event {
      events[event.name, default: 0] += 1
      return
    }
    if let source = record.source, let destination = record.destination, let time = record.time,
      let codec = record.codecName, let message = record.messageName, record.error == nil
    {
      flows.add(source: source, destination: destination, codec: codec, message: message, time: time)
    }
    switch record.result {
    case .decoded(let frame):
      // One access to both dictionaries (two hashed each key twice).
      perCodec[frame.codec, default: [:]][frame.message, default: MessageTally()].add(
        bytes: record.payloadLength, time: record.time)
    case .failed(let codec, let error):
      errors["\(codec) \(error.code)", default: 0] += 1
    case nil:
      if let flat = record.flat {
        // A clean message the display filter read as flat fields (`--stats -Y`).
        perCodec[flat.codec, default: [:]][flat.fields.pointee.message.description, default: MessageTally()]
          .add(
            bytes: record.payloadLength, time: record.time)
      } else {
        unclaimedPayloads += 1
        unclaimedBytes += record.payloadLength
      }
    }
    for diagnostic in record.allDiagnostics where diagnostic.severity >= .warning {
      warnings[diagnostic.code, default: 0] += 1
    }
  }

  /// "codec message" → count, for reports (of `merged` counts).
  private var messages: [String: Int] {
    var out: [String: Int] = [:]
    for (codec, byMessage) in perCodec {
      for (message, entry) in byMessage { out["\(codec) \(message)"] = entry.count }
    }
    return out
  }

  private var messageBytes: [String: Int] {
    var out: [String: Int] = [:]
    for (codec, byMessage) in perCodec {
      for (message, entry) in byMessage { out["\(codec) \(message)"] = entry.bytes }
    }
    return out
  }

  package func lines(name: String) -> [String] {
    merged.reportLines(name: name)
  }

  private func reportLines(name: String) -> [String] {
    var out: [String] = []
    let span = (lastTime ?? 0) - (firstTime ?? 0)
    out.append(
      "\(TerminalText.escaped(name)): \(records) records, \(SummaryRenderer.fixed(span, digits: 3)) s")
    if let firstTime, let lastTime {
      out.append("  time: \(TreeRenderer.format6(firstTime)) … \(TreeRenderer.format6(lastTime))")
    }
    let bytesByKey = messageBytes
    section("messages (count, bytes)", messages, into: &out) { key, count in
      "\(count)  \(bytes(bytesByKey[key] ?? 0))"
    }
    out += flows.lines()
    section("decode errors", errors, into: &out)
    section("warnings", warnings, into: &out)
    section("transport events", events, into: &out)
    section("damaged packets", damaged, into: &out)
    section("not decoded (link type or protocol)", undecoded, into: &out)
    section("by transport", transports, into: &out)
    if unclaimedPayloads > 0 {
      out.append("  payloads no codec claimed: \(unclaimedPayloads) (\(unclaimedBytes) B)")
    }
    if let stopNote { out.append("  stopped early: \(TerminalText.escaped(stopNote))") }
    return out
  }

  private func bytes(_ count: Int) -> String { "\(count) B" }

  private func section(
    _ title: String, _ counts: [String: Int], into out: inout [String],
    detail: ((String, Int) -> String)? = nil
  ) {
    guard !counts.isEmpty else { return }
    out.append("  \(title):")
    let width = counts.keys.map { TerminalText.escaped($0).count }.max() ?? 0
    for (key, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
      let shown = TerminalText.escaped(key)
      out.append("    \(shown.padding(toLength: width))  \(detail?(key, count) ?? String(count))")
    }
  }

  /// The same, as one JSON object, for `--stats --format json`.
  package func json(name: String) -> [UInt8] {
    merged.reportJSON(name: name)
  }

  private func reportJSON(name: String) -> [UInt8] {
    var json = JSONWriter()
    func counts(_ dictionary: [String: Int]) -> FieldValue {
      .object(dictionary.sorted { $0.key < $1.key }.map { .init($0.key, .integer(Int64($0.value))) })
    }
    json.value(
      .object([
        .init("file", .string(name)),
        .init("records", .integer(Int64(records))),
        .init("first_time", firstTime.map { .number($0) } ?? .null),
        .init("last_time", lastTime.map { .number($0) } ?? .null),
        .init("messages", counts(messages)),
        .init("message_bytes", counts(messageBytes)),
        .init("flows", flows.json()),
        .init("errors", counts(errors)),
        .init("warnings", counts(warnings)),
        .init("events", counts(events)),
        .init("damaged", counts(damaged)),
        .init("undecoded", counts(undecoded)),
        .init("transports", counts(transports)),
        .init("unclaimed_payloads", .integer(Int64(unclaimedPayloads))),
        .init("stopped_early", stopNote.map { .string($0) } ?? .null),
      ]))
    return json.bytes
  }
}
