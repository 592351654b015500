import PacketDecode
import PacketKit

/// The report for a terminal: per flow its series against the expected
/// rates, distributions, facts, findings and a verdict line; then a summary.
/// Texts that can quote the traffic (findings, facts, the rules' lines,
/// names) are escaped (`TerminalText`).
public enum TextReport {

  public static func lines(_ report: AnalysisReport, style: Style = Style(enabled: false)) -> [String] {
    var out: [String] = []
    let flows = report.flows.count
    let devices = report.devices.count
    out.append(
      "\(TerminalText.escaped(report.file)): \(report.records) records over \(Format.duration(report.duration)), "
        + (devices > 0 ? "\(devices) device\(devices == 1 ? "" : "s"), " : "")
        + "\(flows) flow\(flows == 1 ? "" : "s")")
    if let signal = report.interrupted {
      out.append(
        "  interrupted by \(signal) after \(report.records) records: the report is of what was read")
    }
    if let first = report.firstTime, let last = report.lastTime {
      out.append(
        "  capture time \(TreeRenderer.format6(first)) … \(TreeRenderer.format6(last))"
          + (report.recordedEnd.map { "; the file records its end at \(TreeRenderer.format6($0))" }
            ?? "; the file does not record when the capture ended"))
    }
    for device in report.devices {
      out.append("")
      out += deviceLines(device, report: report, style: style)
    }
    for flow in report.loneFlows {
      out.append("")
      out += flowLines(flow, report: report, style: style)
    }
    if !report.captureFindings.kept.isEmpty {
      out.append("")
      out.append(style.bold("capture"))
      for finding in report.captureFindings.kept {
        out += findingLines(finding, origin: report.origin, style: style)
      }
    }
    out.append("")
    var extra: [String] = []
    if report.unclaimedPayloads > 0 { extra.append("\(report.unclaimedPayloads) payloads no codec claimed") }
    if report.untrackedRecords > 0 {
      extra.append("\(report.untrackedRecords) records of flows beyond the limit")
    }
    if !extra.isEmpty { out.append("not analysed: " + extra.joined(separator: ", ")) }
    let verdicts = ["error", "warning", "ok"].compactMap { verdict -> String? in
      let count = report.flows.filter { $0.verdict == verdict }.count
      return count > 0 ? "\(count) \(verdict)" : nil
    }
    out.append(
      "summary: "
        + (devices > 0 ? "\(devices) device\(devices == 1 ? "" : "s"), " : "")
        + "\(flows) flow\(flows == 1 ? "" : "s")"
        + (verdicts.isEmpty ? "" : " (\(verdicts.joined(separator: ", ")))")
        + "; \(counts(report.count(.error), report.count(.warning), report.count(.note)))"
        + "; verdict \(verdictText(report.verdict, style: style))")
    return out
  }

  /// A device once: what reached it, each client's rates and gaps, the
  /// facts of its model's rules, and every finding of it and its clients
  /// in one time line.
  static func deviceLines(_ device: DeviceAnalyzer, report: AnalysisReport, style: Style) -> [String] {
    var out: [String] = []
    let origin = report.origin
    out.append(
      style.bold("device \(device.id)  \(TerminalText.escaped(device.name))") + "  "
        + style.codec(device.codec)
        + "  \(device.clients.count) client\(device.clients.count == 1 ? "" : "s")")
    if let line = device.clientsLine { out.append("  " + TerminalText.escaped(line)) }
    out.append(
      "  \(Format.offset(device.firstTime, from: origin)) … \(Format.offset(device.lastTime, from: origin))")
    var facts: [FieldValue.Member] = []
    for rule in device.rules { facts += rule.facts() }
    out += factLines(facts)
    for rule in device.rules { out += rule.summaryLines().map { "  " + TerminalText.escaped($0) } }
    for flow in device.clients {
      out += flowLines(flow, report: report, style: style, indent: "  ", withFindings: false)
    }
    let kept = device.allFindings
    if !kept.isEmpty {
      out.append("  findings:")
      for finding in kept {
        let client = device.clients.count > 1 ? finding.flowID.map { "flow \($0)" } : nil
        out += findingLines(finding, origin: origin, style: style, client: client)
      }
      for (rule, count) in device.findings.suppressed {
        out.append("    … and \(count) more \(rule) (not listed)")
      }
      for flow in device.clients {
        for (rule, count) in flow.findings.suppressed {
          out.append("    … and \(count) more \(rule) on flow \(flow.id) (not listed)")
        }
      }
    }
    let counts = counts(device.count(.error), device.count(.warning), device.count(.note))
    out.append("  verdict: \(verdictText(device.verdict, style: style)) — \(counts)")
    return out
  }

  static func flowLines(
    _ flow: FlowAnalyzer, report: AnalysisReport, style: Style, indent: String = "", withFindings: Bool = true
  ) -> [String] {
    var out: [String] = []
    let origin = report.origin
    let roles = flow.client != nil ? " (\(flow.clientRole) → \(flow.serverRole))" : ""
    out.append(
      indent + style.bold("flow \(flow.id)  \(TerminalText.escaped(flow.name))") + "  "
        + style.codec(flow.codec ?? "no codec") + roles)
    let frames = [flow.firstFrame, flow.lastFrame].compactMap { $0 }.map(String.init).joined(separator: "–")
    out.append(
      indent + "  frames \(frames), \(Format.offset(flow.firstTime, from: origin)) … "
        + "\(Format.offset(flow.lastTime, from: origin)), \(flow.messages) message\(flow.messages == 1 ? "" : "s") "
        + "(\(Format.bytes(flow.bytes)))" + (flow.events > 0 ? ", \(flow.events) transport events" : "")
        + (flow.decodeErrors > 0 ? ", \(flow.decodeErrors) did not decode" : ""))
    for series in flow.series { out += seriesLines(series, origin: origin, style: style).map { indent + $0 } }
    for values in flow.values where values.values.count > 0 {
      out.append(indent + "  " + valuesLine(values))
    }
    var facts: [FieldValue.Member] = []
    for rule in flow.rules { facts += rule.facts() }
    out += factLines(facts).map { indent + $0 }
    for rule in flow.rules { out += rule.summaryLines().map { indent + "  " + TerminalText.escaped($0) } }
    guard withFindings else { return out }
    let kept = flow.findings.kept.sorted { $0.time < $1.time }
    if !kept.isEmpty {
      out.append("  findings:")
      for finding in kept { out += findingLines(finding, origin: origin, style: style) }
      for (rule, count) in flow.findings.suppressed {
        out.append("    … and \(count) more \(rule) (not listed)")
      }
    }
    let counts = counts(
      flow.findings.count(.error), flow.findings.count(.warning), flow.findings.count(.note))
    out.append("  verdict: \(verdictText(flow.verdict, style: style)) — \(counts)")
    return out
  }

  static func seriesLines(_ series: MessageSeries, origin: Double, style: Style) -> [String] {
    var head = "  \(series.name)"
    if let direction = series.direction { head += " (\(direction))" }
    head += ": \(series.count) message\(series.count == 1 ? "" : "s")"
    if let rate = series.activeRate ?? series.meanRate { head += ", \(Format.hertz(rate))" }
    if let expected = series.expected, let verdict = series.verdict {
      let judged =
        verdict == .ok ? "ok" : verdict == .tooFew ? verdict.rawValue : style.warning(verdict.rawValue)
      head += "; expected \(expected.text): \(judged)"
    }
    var out = [head]
    if let p = series.intervals.percentiles {
      out.append(
        "    inter-arrival p50 \(Format.duration(p.p50))  p90 \(Format.duration(p.p90))  "
          + "p99 \(Format.duration(p.p99))  max \(Format.duration(p.maximum))"
          + (p.exact ? "" : "  (sampled)"))
    }
    let gaps = series.gaps.gaps.prefix(3).map { gap in
      "\(Format.duration(gap.seconds)) at \(Format.offset(gap.fromTime, from: origin)) "
        + "(frames \(gap.fromFrame.map(String.init) ?? "?")→\(gap.toFrame.map(String.init) ?? "?"))"
    }
    if !gaps.isEmpty { out.append("    longest gaps: " + gaps.joined(separator: ", ")) }
    return out
  }

  static func valuesLine(_ values: ValueSeries) -> String {
    func show(_ value: Double) -> String {
      values.unit == .bytes ? Format.bytes(Int(exactly: value.rounded()) ?? 0) : Format.duration(value)
    }
    guard let p = values.values.percentiles else { return "\(values.name): none" }
    if p.count == 1 { return "\(values.name) (\(values.text)): \(show(p.maximum))" }
    return "\(values.name) (\(values.text)): \(p.count) values, p50 \(show(p.p50))  p90 \(show(p.p90))  "
      + "p99 \(show(p.p99))  max \(show(p.maximum))"
  }

  static func findingLines(_ finding: Finding, origin: Double, style: Style, client: String? = nil)
    -> [String]
  {
    let label: String =
      switch finding.severity {
      case .error: style.error("ERROR  ")
      case .warning: style.warning("WARNING")
      case .note: style.dim("note   ")
      }
    return [
      "    \(label) \(Format.offset(finding.time, from: origin).leftPadded(to: 10))  "
        + "\(Format.frames(finding.frames))  \(style.bold(finding.rule))"
        + (client.map { "  (\($0))" } ?? ""),
      "            \(TerminalText.escaped(finding.text))",
    ]
  }

  /// Facts on one line; lists are for JSON (the rules' summary lines say
  /// them for people, and closes are findings).
  static func factLines(_ facts: [FieldValue.Member]) -> [String] {
    let scalars = facts.compactMap { fact -> String? in
      if case .array = fact.value { return nil }
      return "\(fact.key.replacingOccurrences(of: "_", with: " ")) \(compact(fact.value))"
    }
    return scalars.isEmpty ? [] : ["  " + TerminalText.escaped(scalars.joined(separator: ", "))]
  }

  package static func compact(_ value: FieldValue) -> String {
    switch value {
    case .object(let members):
      return "{" + members.map { "\($0.key) \(compact($0.value))" }.joined(separator: ", ") + "}"
    case .array(let items): return "[" + items.map(compact).joined(separator: ", ") + "]"
    case .number(let number): return JSONWriter.formatNumber(number)
    case .string(let text): return text
    default: return value.display
    }
  }

  package static func counts(_ errors: Int, _ warnings: Int, _ notes: Int) -> String {
    "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), "
      + "\(notes) note\(notes == 1 ? "" : "s")"
  }

  static func verdictText(_ verdict: String, style: Style) -> String {
    switch verdict {
    case "error": style.error("ERROR")
    case "warning": style.warning("WARNING")
    default: "OK"
    }
  }
}
