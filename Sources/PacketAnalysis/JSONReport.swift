import PacketKit

/// `--format json`: one object for the capture. Every finding names its
/// rule, severity, flow, time and the frames it rests on (`frame`,
/// `frames`, and `*_frame` details), so other tools can point back into the
/// capture. The schema is described in the README ("Health report").
public enum JSONReport {
  package static let schema = "pktbench-analyze/1"

  public static func bytes(_ report: AnalysisReport) -> [UInt8] {
    var json = JSONWriter(capacity: 1 << 14)
    json.value(object(report))
    return json.bytes
  }

  package static func object(_ report: AnalysisReport) -> FieldValue {
    .object([
      .init("schema", .string(schema)),
      .init("file", .string(report.file)),
      .init("records", int(report.records)),
      .init("first_time", number(report.firstTime)),
      .init("last_time", number(report.lastTime)),
      .init("recorded_end", number(report.recordedEnd)),
      .init("duration_s", .number(report.duration)),
      .init("stopped_early", report.stopNote.map { .string($0) } ?? .null),
      .init("verdict", .string(report.verdict)),
      .init(
        "counts",
        counts(error: report.count(.error), warning: report.count(.warning), note: report.count(.note))),
      .init("unclaimed_payloads", int(report.unclaimedPayloads)),
      .init("untracked_records", int(report.untrackedRecords)),
      .init("devices", .array(report.devices.map(device))),
      .init("flows", .array(report.flows.map(flow))),
      .init("findings", .array(report.findings.map { finding($0, report: report) })),
    ])
  }

  /// A device: what it is, the flows that reached it, its rules' facts.
  static func device(_ device: DeviceAnalyzer) -> FieldValue {
    var facts: [FieldValue.Member] = []
    for rule in device.rules { facts += rule.facts() }
    return .object([
      .init("id", int(device.id)),
      .init("name", .string(device.name)),
      .init("device", .string(device.description.name)),
      .init("endpoint", .string(device.key.name)),
      .init("protocol", .string(device.codec)),
      .init("clients", .array(device.clients.map { int($0.id) })),
      .init(
        "client_endpoints", .array(device.clients.map { flow in flow.peerEnd.map { .string($0) } ?? .null })),
      .init("clients_text", device.clientsLine.map { .string($0) } ?? .null),
      .init("first_time", .number(device.firstTime)),
      .init("last_time", .number(device.lastTime)),
      .init("verdict", .string(device.verdict)),
      .init(
        "counts",
        counts(error: device.count(.error), warning: device.count(.warning), note: device.count(.note))),
      .init("suppressed", .object(device.findings.suppressed.map { .init($0.rule, int($0.count)) })),
      .init("facts", .object(facts)),
    ])
  }

  static func flow(_ flow: FlowAnalyzer) -> FieldValue {
    var facts: [FieldValue.Member] = []
    for rule in flow.rules { facts += rule.facts() }
    return .object([
      .init("id", int(flow.id)),
      .init("device_id", int(flow.device?.id)),
      .init("name", .string(flow.name)),
      .init("transport", .string(flow.transport)),
      .init("protocol", flow.codec.map { .string($0) } ?? .null),
      .init("ends", .array(flow.key.ends.map { .string($0) })),
      .init("client", flow.client.map { .string($0) } ?? .null),
      .init("server", flow.server.map { .string($0) } ?? .null),
      .init("client_role", .string(flow.clientRole)),
      .init("server_role", .string(flow.serverRole)),
      .init("first_frame", int(flow.firstFrame)),
      .init("last_frame", int(flow.lastFrame)),
      .init("first_time", .number(flow.firstTime)),
      .init("last_time", .number(flow.lastTime)),
      .init("messages", int(flow.messages)),
      .init("bytes", int(flow.bytes)),
      .init("events", int(flow.events)),
      .init("decode_errors", int(flow.decodeErrors)),
      .init(
        "codec_warnings",
        .object(flow.codecWarnings.sorted { $0.key < $1.key }.map { .init($0.key, int($0.value)) })),
      .init("verdict", .string(flow.verdict)),
      .init(
        "counts",
        counts(
          error: flow.findings.count(.error), warning: flow.findings.count(.warning),
          note: flow.findings.count(.note))),
      .init("suppressed", .object(flow.findings.suppressed.map { .init($0.rule, int($0.count)) })),
      .init("series", .array(flow.series.map(series))),
      .init("values", .array(flow.values.map(values))),
      .init("facts", .object(facts)),
    ])
  }

  static func series(_ series: MessageSeries) -> FieldValue {
    .object([
      .init("name", .string(series.name)),
      .init("direction", series.direction.map { .string($0) } ?? .null),
      .init("count", int(series.count)),
      .init("first_frame", int(series.firstFrame)),
      .init("last_frame", int(series.lastFrame)),
      .init("first_time", number(series.firstTime)),
      .init("last_time", number(series.lastTime)),
      .init("rate_hz", number(series.activeRate)),
      .init("mean_rate_hz", number(series.meanRate)),
      .init(
        "expected",
        series.expected.map { expected in
          .object([
            .init("text", .string(expected.text)), .init("low_hz", .number(expected.lowHz)),
            .init("high_hz", .number(expected.highHz)),
            .init("rule", expected.rule.map { .string($0) } ?? .null),
          ])
        } ?? .null),
      .init("rate_verdict", series.verdict.map { .string($0.rawValue) } ?? .null),
      .init("interarrival_s", percentiles(series.intervals.percentiles)),
      .init(
        "longest_gaps",
        .array(
          series.gaps.gaps.map { gap in
            .object([
              .init("seconds", .number(gap.seconds)), .init("from_frame", int(gap.fromFrame)),
              .init("to_frame", int(gap.toFrame)), .init("from_time", .number(gap.fromTime)),
              .init("to_time", .number(gap.toTime)),
            ])
          })),
      .init(
        "timeline",
        .object([
          .init("origin", .number(series.timeline.origin)), .init("bucket_s", .number(series.timeline.width)),
          .init("counts", .array(series.timeline.counts.map { int($0) })),
          .init("longest_gap_s", .array(series.timeline.longestGaps.map { .number($0) })),
        ])),
    ])
  }

  static func values(_ values: ValueSeries) -> FieldValue {
    .object([
      .init("name", .string(values.name)), .init("text", .string(values.text)),
      .init("unit", .string(values.unit.rawValue)), .init("summary", percentiles(values.values.percentiles)),
    ])
  }

  package static func finding(_ finding: Finding, report: AnalysisReport) -> FieldValue {
    .object([
      .init("rule", .string(finding.rule)),
      .init("severity", .string(finding.severity.rawValue)),
      .init("device_id", int(finding.deviceID)),
      .init("device", report.device(finding.deviceID).map { .string($0.name) } ?? .null),
      .init("flow_id", int(finding.flowID)),
      .init("flow", report.flow(finding.flowID).map { .string($0.name) } ?? .null),
      .init("time", .number(finding.time)),
      .init("offset_s", .number(finding.time - report.origin)),
      .init("duration_s", finding.duration.map { .number($0) } ?? .null),
      .init("frame", int(finding.frame)),
      .init("frames", .array(finding.frames.map { int($0) })),
      .init("text", .string(finding.text)),
      .init("details", .object(finding.details)),
    ])
  }

  static func percentiles(_ p: Percentiles?) -> FieldValue {
    guard let p else { return .null }
    return .object([
      .init("count", int(p.count)), .init("p50", .number(p.p50)), .init("p90", .number(p.p90)),
      .init("p99", .number(p.p99)), .init("max", .number(p.maximum)), .init("min", .number(p.minimum)),
      .init("mean", .number(p.mean)), .init("exact", .bool(p.exact)),
    ])
  }

  package static func counts(error: Int, warning: Int, note: Int) -> FieldValue {
    .object([.init("error", int(error)), .init("warning", int(warning)), .init("note", int(note))])
  }

  private static func int(_ value: Int?) -> FieldValue { value.map { .integer(Int64($0)) } ?? .null }
  private static func number(_ value: Double?) -> FieldValue { value.map { .number($0) } ?? .null }
}
