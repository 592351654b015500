import PacketDecode
import PacketKit

/// The `--stats` summary of a live run: why and when it stopped, the
/// counters `decode --stats` shows (with rates measured over the run), and
/// per source the message rate and the gaps between arrivals.
package struct LiveSummary: LiveReport {
  package var name: String
  package var stopReason: String
  package var elapsedSeconds: Double
  package var stats: CaptureStats
  var timings: [(source: String, timing: SourceTiming)]
  /// Extra lines for the command (packets captured, drops, bytes written).
  package var notes: [String] = []
  /// udp: datagrams the kernel dropped before they were read (nil: not a UDP listener).
  var kernelDrops: Int?

  package init(name: String, stopReason: String, elapsedSeconds: Double, recorder: LiveRecorder) {
    self.name = name
    self.stopReason = stopReason
    self.elapsedSeconds = elapsedSeconds
    self.stats = recorder.stats
    self.timings = recorder.sourceOrder.compactMap { key in recorder.timings[key].map { (key, $0) } }
  }

  package func lines() -> [String] {
    var out: [String] = []
    let messages = timings.reduce(0) { $0 + $1.timing.count }
    let overall =
      elapsedSeconds > 0
      ? " (\(SummaryRenderer.fixed(Double(messages) / elapsedSeconds, digits: 1))/s over the run)" : ""
    out.append(
      "\(name): stopped by \(stopReason) after \(SummaryRenderer.fixed(elapsedSeconds, digits: 3)) s; "
        + "\(messages) messages\(overall)")
    out.append(contentsOf: stats.lines(name: "records").map { "  " + $0 })
    for (source, timing) in timings {
      var line = "  from \(source): \(timing.count) messages"
      if let rate = timing.rate { line += ", \(SummaryRenderer.fixed(rate, digits: 2))/s" }
      if let mean = timing.meanGap {
        line +=
          ", gap min \(Self.ms(timing.minimumGap)) / mean \(Self.ms(mean)) / max \(Self.ms(timing.maximumGap)) ms"
      }
      out.append(line)
    }
    if let kernelDrops { out.append("  kernel drops: \(Self.kernelDropsText(kernelDrops))") }
    for note in notes { out.append("  \(note)") }
    return out
  }

  package func json() -> [UInt8] {
    var json = JSONWriter()
    json.raw("{\"summary\":")
    json.string(name)
    json.raw(",\"stopped_by\":")
    json.string(stopReason)
    json.raw(",\"elapsed\":")
    json.number(elapsedSeconds)
    json.raw(",\"sources\":")
    json.value(
      .array(
        timings.map { source, timing in
          .object([
            .init("src", .string(source)),
            .init("messages", .integer(Int64(timing.count))),
            .init("rate", timing.rate.map { .number($0) } ?? .null),
            .init("gap_min_ms", timing.count > 1 ? .number(timing.minimumGap * 1e3) : .null),
            .init("gap_mean_ms", timing.meanGap.map { .number($0 * 1e3) } ?? .null),
            .init("gap_max_ms", timing.count > 1 ? .number(timing.maximumGap * 1e3) : .null),
          ])
        }))
    if let kernelDrops {
      json.raw(",\"kernel_drops\":")
      json.integer(kernelDrops)
    }
    json.raw(",\"notes\":")
    json.value(.array(notes.map { .string($0) }))
    json.raw(",\"stats\":")
    json.append(contentsOf: stats.json(name: name))
    json.raw("}")
    return json.bytes
  }

  static func kernelDropsText(_ drops: Int) -> String {
    guard drops > 0 else { return "none (no datagram was dropped by the kernel)" }
    return "\(drops) datagram\(drops == 1 ? "" : "s") dropped by the kernel before pktbench read them "
      + "(the socket's receive buffer was full; raise it with --receive-buffer)"
  }

  package static func ms(_ seconds: Double) -> String {
    SummaryRenderer.fixed(seconds * 1e3, digits: 3)
  }
}
