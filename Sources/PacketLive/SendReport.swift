import PacketDecode
import PacketKit

/// What `send` says at the end: per step and in all, how many messages
/// went out, over how long, the mean rate and interval, and how late the
/// latest one left compared with its schedule.
struct SendReport: LiveReport {
  package struct Step {
    package var label: String
    package var count = 0
    var firstNanoseconds: UInt64?
    var lastNanoseconds: UInt64?
    var maximumLatenessNanoseconds: UInt64 = 0
    var latenessSumNanoseconds: UInt64 = 0

    package var durationSeconds: Double {
      guard let firstNanoseconds, let lastNanoseconds else { return 0 }
      return Double(lastNanoseconds - firstNanoseconds) / 1e9
    }

    /// Messages per second over the n − 1 intervals between first and last.
    package var meanRate: Double? {
      count > 1 && durationSeconds > 0 ? Double(count - 1) / durationSeconds : nil
    }
  }

  package var target: String
  package var steps: [Step]
  package var received = 0
  /// Datagrams the peer refused (ICMP port unreachable), as the kernel reported them.
  package var refused = 0
  /// Messages the kernel did not take (a full socket buffer); not in `total`.
  var notSent = 0
  package var stopReason = ""
  package var notes: [String] = []

  package init(target: String, steps: [String]) {
    self.target = target
    self.steps = steps.map { Step(label: $0) }
  }

  package mutating func sent(step index: Int, at nanoseconds: UInt64, latenessNanoseconds: Int64) {
    guard steps.indices.contains(index) else { return }
    let lateness = UInt64(max(0, latenessNanoseconds))
    steps[index].count += 1
    if steps[index].firstNanoseconds == nil { steps[index].firstNanoseconds = nanoseconds }
    steps[index].lastNanoseconds = nanoseconds
    steps[index].maximumLatenessNanoseconds = max(steps[index].maximumLatenessNanoseconds, lateness)
    steps[index].latenessSumNanoseconds += lateness
  }

  package var total: Int { steps.reduce(0) { $0 + $1.count } }

  var maximumLatenessNanoseconds: UInt64 { steps.map(\.maximumLatenessNanoseconds).max() ?? 0 }

  package var durationSeconds: Double {
    let first = steps.compactMap(\.firstNanoseconds).min()
    let last = steps.compactMap(\.lastNanoseconds).max()
    guard let first, let last else { return 0 }
    return Double(last - first) / 1e9
  }

  package func lines() -> [String] {
    var out: [String] = []
    var head = "sent \(total) message\(total == 1 ? "" : "s") to \(target)"
    head += " in \(SummaryRenderer.fixed(durationSeconds, digits: 3)) s"
    if total > 1, durationSeconds > 0 {
      let rate = Double(total - 1) / durationSeconds
      head += ": mean rate \(SummaryRenderer.fixed(rate, digits: 2))/s"
    }
    head += ", max lateness \(Self.ms(maximumLatenessNanoseconds)) ms; stopped by \(stopReason)"
    out.append(head)
    for (index, step) in steps.enumerated() where steps.count > 1 || step.meanRate != nil {
      var line = "  step \(index + 1) \(step.label): \(step.count) sent"
      if let rate = step.meanRate {
        line += " in \(SummaryRenderer.fixed(step.durationSeconds, digits: 3)) s"
        line += ", \(SummaryRenderer.fixed(rate, digits: 2))/s"
        line += " (interval \(SummaryRenderer.fixed(1e3 / rate, digits: 3)) ms)"
      }
      if step.count > 0 {
        let mean = step.latenessSumNanoseconds / UInt64(step.count)
        line += ", lateness mean \(Self.ms(mean)) / max \(Self.ms(step.maximumLatenessNanoseconds)) ms"
      }
      out.append(line)
    }
    if refused > 0 {
      out.append("  \(total) sent, \(refused) refused by the peer (port unreachable)")
    }
    if notSent > 0 {
      out.append("  \(notSent) not sent: the kernel did not take them (the socket's send buffer was full)")
    }
    if received > 0 { out.append("  received \(received) message\(received == 1 ? "" : "s") back") }
    for note in notes { out.append("  \(note)") }
    return out
  }

  package func json() -> [UInt8] {
    var json = JSONWriter()
    json.value(
      .object([
        .init("sent", .integer(Int64(total))),
        .init("to", .string(target)),
        .init("duration", .number(durationSeconds)),
        .init(
          "mean_rate", total > 1 && durationSeconds > 0 ? .number(Double(total - 1) / durationSeconds) : .null
        ),
        .init("max_lateness_ms", .number(Double(maximumLatenessNanoseconds) / 1e6)),
        .init("received", .integer(Int64(received))),
        .init("refused", .integer(Int64(refused))),
        .init("not_sent", .integer(Int64(notSent))),
        .init("stopped_by", .string(stopReason)),
        .init("notes", .array(notes.map { .string($0) })),
        .init(
          "steps",
          .array(
            steps.map { step in
              .object([
                .init("step", .string(step.label)),
                .init("sent", .integer(Int64(step.count))),
                .init("duration", .number(step.durationSeconds)),
                .init("mean_rate", step.meanRate.map { .number($0) } ?? .null),
                .init("max_lateness_ms", .number(Double(step.maximumLatenessNanoseconds) / 1e6)),
              ])
            })),
      ]))
    return json.bytes
  }

  package static func ms(_ nanoseconds: UInt64) -> String {
    SummaryRenderer.fixed(Double(nanoseconds) / 1e6, digits: 3)
  }
}
