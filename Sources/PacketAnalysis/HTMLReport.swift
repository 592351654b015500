import PacketDecode
import PacketKit

/// `--html FILE`: one self-contained page (inline CSS and SVG; no scripts,
/// fonts or links to fetch) for people who would rather look: per device a
/// lane group (its clients' rates and gaps, coloured by client, and the
/// device's state below) with the findings marked, per client its tables
/// and histograms, and the findings as a table.
public enum HTMLReport {
  static let minimumHistogram = 5

  public static func page(_ report: AnalysisReport) -> String {
    var html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    html += "<title>pktbench analyze — \(escape(report.file))</title><style>\(style)</style></head><body>"
    html += header(report)
    html += overview(report)
    for device in report.devices { html += section(device, report: report) }
    for flow in report.loneFlows { html += section(flow, report: report) }
    html += allFindings(report)
    html += "<footer>Made by pktbench analyze. Times are seconds from the capture's first record; "
    html += "frames are 1-based capture records, as in Wireshark.</footer></body></html>\n"
    return html
  }

  // MARK: Parts

  private static func header(_ report: AnalysisReport) -> String {
    var html = "<header><h1>Health report</h1><p class=\"file\">\(escape(report.file))</p><p>"
    html += "\(report.records) records over \(Format.duration(report.duration)), "
    if !report.devices.isEmpty {
      html += "\(report.devices.count) device\(report.devices.count == 1 ? "" : "s"), "
    }
    html += "\(report.flows.count) flow\(report.flows.count == 1 ? "" : "s")"
    if let first = report.firstTime { html += " · starts \(TreeRenderer.format6(first)) (Unix)" }
    html += "</p>"
    html += "<p class=\"verdict \(report.verdict)\">Verdict: \(report.verdict.uppercased()) — "
    html += "\(TextReport.counts(report.count(.error), report.count(.warning), report.count(.note)))</p>"
    if let stopped = report.stoppedEarly {
      html += "<p class=\"damaged\">The file is damaged: analysed up to it, stopped \(escape(stopped)).</p>"
    } else if let stopped = report.stopNote {
      html += "<p class=\"damaged\">Not the whole capture: \(escape(stopped)).</p>"
    }
    return html + "</header>"
  }

  private static func overview(_ report: AnalysisReport) -> String {
    guard !report.flows.isEmpty else {
      return "<p>No flow in this capture carried a protocol pktbench knows.</p>"
    }
    var html =
      "<table class=\"overview\"><thead><tr><th>flow</th><th>transport and ends</th><th>protocol</th>"
    html += "<th class=\"num\">messages</th><th class=\"num\">errors</th><th class=\"num\">warnings</th>"
    html += "<th class=\"num\">notes</th><th>verdict</th></tr></thead><tbody>"
    for flow in report.flows {
      let device = flow.device.map { " <a href=\"#device-\($0.id)\">(device \($0.id))</a>" } ?? ""
      html += "<tr><td><a href=\"#flow-\(flow.id)\">\(flow.id)</a></td><td>\(escape(flow.name))\(device)</td>"
      html += "<td>\(escape(flow.codec ?? "—"))</td><td class=\"num\">\(flow.messages)</td>"
      html +=
        "<td class=\"num\">\(flow.findings.count(.error))</td><td class=\"num\">\(flow.findings.count(.warning))</td>"
      html += "<td class=\"num\">\(flow.findings.count(.note))</td>"
      html += "<td><span class=\"badge \(flow.verdict)\">\(flow.verdict)</span></td></tr>"
    }
    return html + "</tbody></table>"
  }

  /// A device: its lane group, its facts, then each client's tables, and
  /// every finding of it and its clients in one table.
  private static func section(_ device: DeviceAnalyzer, report: AnalysisReport) -> String {
    let origin = report.origin
    let findings = device.allFindings
    let markers = findings.enumerated().map {
      HTMLCharts.Marker(number: $0.offset + 1, time: $0.element.time, finding: $0.element)
    }
    var html =
      "<section class=\"flow\" id=\"device-\(device.id)\"><h2>Device \(device.id) · \(escape(device.name))"
    html += " <span class=\"badge \(device.verdict)\">\(device.verdict)</span></h2><p class=\"meta\">"
    html += "\(escape(device.codec)) · \(device.clients.count) client\(device.clients.count == 1 ? "" : "s")"
    html +=
      " · \(Format.offset(device.firstTime, from: origin)) … \(Format.offset(device.lastTime, from: origin))</p>"
    if let line = device.clientsLine { html += "<p>\(escape(line))</p>" }
    html += "<figure>" + HTMLCharts.timeline(device, markers: markers, origin: origin)
    let banded = device.clients.contains { flow in
      flow.series.contains { $0.expected?.rule != nil && $0.count > HTMLCharts.tickSeriesLimit }
    }
    html += "<figcaption>Messages per second per series of each client"
    html += device.clients.count > 1 ? " (one colour per client)" : ""
    if banded { html += "; green band: the protocol's expected rate" }
    html += "; shaded: long gaps; numbered circles: the findings below. Below them, what the "
    html +=
      "\(escape(device.description.name)) did as its model predicts it: numbers as steps, states as bands, "
    html += "and a line at each event of time (dotted: it may have).</figcaption></figure>"
    var facts: [FieldValue.Member] = []
    for rule in device.rules { facts += rule.facts() }
    var summary: [String] = []
    for rule in device.rules { summary += rule.summaryLines() }
    let lines = TextReport.factLines(facts) + summary
    if !lines.isEmpty {
      html +=
        "<pre class=\"facts\">\(lines.map { escape($0.trimmingLeadingSpaces) }.joined(separator: "\n"))</pre>"
    }
    for flow in device.clients {
      html += "<h3 id=\"flow-\(flow.id)\">Flow \(flow.id) · \(escape(flow.name))</h3><p class=\"meta\">"
      html += "frames \(flow.firstFrame.map(String.init) ?? "?")–\(flow.lastFrame.map(String.init) ?? "?")"
      html += " · \(flow.messages) message\(flow.messages == 1 ? "" : "s"), \(Format.bytes(flow.bytes))</p>"
      html += seriesTable(flow, origin: origin)
      html += valuesTable(flow)
      html += histograms(flow)
      html += self.facts(flow)
    }
    html += findingsTable(findings, numbered: true, report: report, showFlow: device.clients.count > 1)
    for (rule, count) in device.findings.suppressed {
      html += "<p class=\"meta\">… and \(count) more \(escape(rule)) findings, counted but not listed.</p>"
    }
    return html + "</section>"
  }

  private static func section(_ flow: FlowAnalyzer, report: AnalysisReport) -> String {
    let origin = report.origin
    let findings = flow.findings.kept.sorted { $0.time < $1.time }
    let markers = findings.enumerated().map {
      HTMLCharts.Marker(number: $0.offset + 1, time: $0.element.time, finding: $0.element)
    }
    var html = "<section class=\"flow\" id=\"flow-\(flow.id)\"><h2>Flow \(flow.id) · \(escape(flow.name))"
    html += " <span class=\"badge \(flow.verdict)\">\(flow.verdict)</span></h2><p class=\"meta\">"
    html += "\(escape(flow.codec ?? "no codec"))"
    if flow.client != nil { html += " · \(escape(flow.clientRole)) → \(escape(flow.serverRole))" }
    html += " · frames \(flow.firstFrame.map(String.init) ?? "?")–\(flow.lastFrame.map(String.init) ?? "?")"
    html +=
      " · \(Format.offset(flow.firstTime, from: origin)) … \(Format.offset(flow.lastTime, from: origin))"
    html += " · \(flow.messages) message\(flow.messages == 1 ? "" : "s"), \(Format.bytes(flow.bytes))</p>"
    html += "<figure>" + HTMLCharts.timeline(flow, markers: markers, origin: origin)
    let banded = flow.series.contains { $0.expected?.rule != nil && $0.count > HTMLCharts.tickSeriesLimit }
    html += "<figcaption>Messages per second per series ("
    if banded { html += "green band: the protocol's expected rate; " }
    html += "shaded: long gaps; numbered circles: the findings below)."
    html += "</figcaption></figure>"
    html += seriesTable(flow, origin: origin)
    html += valuesTable(flow)
    html += histograms(flow)
    html += facts(flow)
    html += findingsTable(findings, numbered: true, report: report, showFlow: false)
    for (rule, count) in flow.findings.suppressed {
      html += "<p class=\"meta\">… and \(count) more \(escape(rule)) findings, counted but not listed.</p>"
    }
    return html + "</section>"
  }

  private static func seriesTable(_ flow: FlowAnalyzer, origin: Double) -> String {
    guard !flow.series.isEmpty else { return "" }
    var html = "<table><thead><tr><th>series</th><th>direction</th><th class=\"num\">messages</th>"
    html += "<th class=\"num\">rate</th><th>expected</th><th class=\"num\">p50</th><th class=\"num\">p90</th>"
    html += "<th class=\"num\">p99</th><th class=\"num\">max</th><th>longest gap</th></tr></thead><tbody>"
    for series in flow.series {
      let p = series.intervals.percentiles
      let verdict = series.verdict
      html += "<tr><td>\(escape(series.name))</td><td>\(escape(series.direction ?? ""))</td>"
      html += "<td class=\"num\">\(series.count)</td>"
      html += "<td class=\"num\">\((series.activeRate ?? series.meanRate).map(Format.hertz) ?? "—")</td>"
      html += "<td>\(escape(series.expected?.text ?? "—"))"
      if let verdict {
        html += " <span class=\"badge \(verdict == .ok ? "ok" : verdict == .tooFew ? "note" : "warning")\">"
        html += "\(verdict.rawValue)</span>"
      }
      html += "</td>"
      for value in [p?.p50, p?.p90, p?.p99, p?.maximum] {
        html += "<td class=\"num\">\(value.map(Format.duration) ?? "—")</td>"
      }
      if let gap = series.gaps.gaps.first {
        html += "<td>\(Format.duration(gap.seconds)) at \(Format.offset(gap.fromTime, from: origin)) (frames "
        html += "\(gap.fromFrame.map(String.init) ?? "?")→\(gap.toFrame.map(String.init) ?? "?"))</td>"
      } else {
        html += "<td>—</td>"
      }
      html += "</tr>"
    }
    return html + "</tbody></table>"
  }

  private static func valuesTable(_ flow: FlowAnalyzer) -> String {
    let shown = flow.values.filter { $0.values.count > 0 }
    guard !shown.isEmpty else { return "" }
    var html = "<table><thead><tr><th>latency or size</th><th>measured</th><th class=\"num\">count</th>"
    html += "<th class=\"num\">p50</th><th class=\"num\">p90</th><th class=\"num\">p99</th>"
    html += "<th class=\"num\">max</th></tr></thead><tbody>"
    for values in shown {
      guard let p = values.values.percentiles else { continue }
      html += "<tr><td>\(escape(values.name.replacingOccurrences(of: "_", with: " ")))</td>"
      html += "<td>\(escape(values.text))</td><td class=\"num\">\(p.count)</td>"
      for value in [p.p50, p.p90, p.p99, p.maximum] {
        html += "<td class=\"num\">\(HTMLCharts.show(value, values.unit))</td>"
      }
      html += "</tr>"
    }
    return html + "</tbody></table>"
  }

  /// Histograms where there are enough values for a shape to show.
  private static func histograms(_ flow: FlowAnalyzer) -> String {
    var charts: [String] = []
    for values in flow.values where values.values.count >= minimumHistogram {
      charts.append(
        HTMLCharts.histogram(
          title: values.name.replacingOccurrences(of: "_", with: " "),
          samples: values.values.samples, unit: values.unit, count: values.values.count))
    }
    for series in flow.series where series.intervals.count >= minimumHistogram {
      charts.append(
        HTMLCharts.histogram(
          title: "\(series.name) inter-arrival", samples: series.intervals.samples, unit: .seconds,
          count: series.intervals.count))
    }
    guard !charts.isEmpty else { return "" }
    return "<div class=\"charts\">" + charts.joined() + "</div>"
  }

  private static func facts(_ flow: FlowAnalyzer) -> String {
    var facts: [FieldValue.Member] = []
    for rule in flow.rules { facts += rule.facts() }
    let lines = TextReport.factLines(facts)
    var summary: [String] = []
    for rule in flow.rules { summary += rule.summaryLines() }
    guard !lines.isEmpty || !summary.isEmpty else { return "" }
    let text = (lines + summary).map { escape($0.trimmingLeadingSpaces) }.joined(separator: "\n")
    return "<pre class=\"facts\">\(text)</pre>"
  }

  private static func allFindings(_ report: AnalysisReport) -> String {
    let findings = report.findings
    var html = "<section><h2>All findings (\(findings.count))</h2>"
    if findings.isEmpty { return html + "<p>None.</p></section>" }
    html += findingsTable(findings, numbered: false, report: report, showFlow: true)
    return html + "</section>"
  }

  private static func findingsTable(
    _ findings: [Finding], numbered: Bool, report: AnalysisReport, showFlow: Bool
  ) -> String {
    guard !findings.isEmpty else { return "<p class=\"meta\">No findings.</p>" }
    var html = "<table class=\"findings\"><thead><tr>"
    if numbered { html += "<th>#</th>" }
    html += "<th>severity</th><th>time</th><th>frames</th>"
    if showFlow { html += "<th>flow</th>" }
    html += "<th>rule</th><th>what happened</th></tr></thead><tbody>"
    for (index, finding) in findings.enumerated() {
      html += "<tr class=\"\(finding.severity.rawValue)\">"
      if numbered { html += "<td class=\"num\">\(index + 1)</td>" }
      html +=
        "<td><span class=\"badge \(finding.severity.rawValue)\">\(finding.severity.rawValue)</span></td>"
      html += "<td class=\"num\">\(Format.offset(finding.time, from: report.origin))</td>"
      html += "<td>\(finding.frames.map(String.init).joined(separator: ", "))</td>"
      if showFlow {
        html +=
          "<td>"
          + (finding.flowID.map { "<a href=\"#flow-\($0)\">\($0)</a>" }
            ?? finding.deviceID.map { "<a href=\"#device-\($0)\">device \($0)</a>" } ?? "capture") + "</td>"
      }
      html += "<td><code>\(escape(finding.rule))</code></td><td>\(escape(finding.text))</td></tr>"
    }
    return html + "</tbody></table>"
  }

  // MARK: Text

  package static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(character)
      }
    }
    return out
  }

  package static let style = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1140px;\
    color:#1c2833;background:#fdfefe;padding:0 12px}
    h1{margin:0 0 4px;font-size:24px}h2{font-size:18px;margin:28px 0 6px}
    .file{font-family:ui-monospace,Menlo,Consolas,monospace;margin:0}
    .verdict{font-weight:600;padding:6px 10px;border-radius:4px;display:inline-block}
    .verdict.error{background:#fadbd8;color:#922b21}.verdict.warning{background:#fdebd0;color:#9a5b07}
    .verdict.ok{background:#d5f5e3;color:#196f3d}.damaged{color:#922b21}
    table{border-collapse:collapse;width:100%;margin:10px 0;font-size:13px}
    th,td{border-bottom:1px solid #d5dbdb;padding:4px 6px;text-align:left;vertical-align:top}
    th{background:#f2f4f4;font-weight:600}td.num,th.num{text-align:right;white-space:nowrap}
    .badge{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
    .badge.error{background:#c0392b;color:#fff}.badge.warning{background:#d68910;color:#fff}
    .badge.note{background:#aab7b8;color:#fff}.badge.ok{background:#1e8449;color:#fff}
    section.flow{border-top:2px solid #d5dbdb;margin-top:24px}.meta{color:#566573;margin:2px 0}
    figure{margin:8px 0}figcaption{color:#566573;font-size:12px}
    svg text{font:11px system-ui,sans-serif;fill:#1c2833}
    .lane{fill:#f8f9f9;stroke:#e5e8e8}.lane-label{font-weight:600}.lane-sub{fill:#566573}
    .rate{fill:none;stroke:#2471a3;stroke-width:1.6}.band{fill:#abebc6;opacity:.55}
    .state-line{fill:none;stroke:#1e8449;stroke-width:1.6}.zero{stroke:#bbb;stroke-width:.6}
    .state-band{opacity:.85}.state-text{font-size:11px;fill:#333}
    .device-event{stroke:#c0392b;stroke-width:1.4}.device-event.maybe{stroke-dasharray:2 3}
    .tick{stroke:#2471a3;stroke-width:1.2}.gap{fill:#f5b7b1;opacity:.6}.gap-label{fill:#922b21}
    .axis{stroke:#7f8c8d}.axis-label{fill:#566573}
    .marker circle{stroke:#fff;stroke-width:1}.marker text{fill:#fff;font-weight:700;font-size:10px}
    .marker.error circle{fill:#c0392b}.marker.warning circle{fill:#d68910}.marker.note circle{fill:#95a5a6}
    .mark-line{stroke-dasharray:3 3;stroke-width:1}.mark-line.error{stroke:#c0392b}
    .mark-line.warning{stroke:#d68910}.span.error{fill:#e74c3c;opacity:.16}.span.warning{fill:#f39c12;opacity:.16}
    .span.note{fill:#95a5a6;opacity:.12}
    .charts{display:flex;flex-wrap:wrap;gap:8px}.histogram{background:#f8f9f9;border:1px solid #e5e8e8}
    .bar{fill:#5499c7}.hist-title{font-weight:600}
    pre.facts{background:#f8f9f9;padding:8px;font-size:12px;white-space:pre-wrap}
    tr.error td:first-child{border-left:3px solid #c0392b}tr.warning td:first-child{border-left:3px solid #d68910}
    code{font-size:12px}footer{margin:32px 0 8px;color:#7f8c8d;font-size:12px}
    """
}

extension String {
  fileprivate var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
