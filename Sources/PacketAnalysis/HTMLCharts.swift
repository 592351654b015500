import Foundation
import PacketKit

/// Inline SVG for the HTML report: a timeline per flow (message rate per
/// series, the expected band, the long gaps, the findings marked, and under
/// them what the modelled device did: a number as steps, a state as bands,
/// its timer events as lines) and small histograms. No scripts, no external
/// anything: the page works offline.
enum HTMLCharts {
  package static let width = 1100.0
  static let labelWidth = 150.0
  static let laneHeight = 64.0
  static let markerLane = 30.0
  static let axisHeight = 26.0
  static let deviceLaneHeight = 44.0
  /// Series with at most this many messages are drawn as ticks, not a rate.
  static let tickSeriesLimit = 60

  struct Marker {
    package var number: Int
    package var time: Double
    package var finding: Finding
  }

  // MARK: Timeline

  /// One lane of message rates: a series of a client, in the client's colour.
  struct Lane {
    package var series: MessageSeries
    /// "flow 2 · 127.0.0.1:45785", for a device's lanes.
    package var client: String?
    package var color: String?
  }

  /// Clients' colours, in the order a device's clients came.
  static let clientColors = ["#2471a3", "#ca6f1e", "#7d3c98", "#148f77", "#b03a2e", "#5d6d7e"]

  /// The timeline spans the flow's own stretch of the capture (a short
  /// connection late in a long capture stays readable); the axis counts
  /// from the capture's start, like every time in the report.
  package static func timeline(_ flow: FlowAnalyzer, markers: [Marker], origin: Double) -> String {
    timeline(
      lanes: flow.series.map { Lane(series: $0) }, track: nil, deviceName: "device", start: flow.firstTime,
      end: flow.lastTime, markers: markers, origin: origin, label: "flow \(flow.id)")
  }

  /// A device's lane group: each client's series in its own colour, then
  /// the device's state.
  package static func timeline(_ device: DeviceAnalyzer, markers: [Marker], origin: Double) -> String {
    var lanes: [Lane] = []
    for (index, flow) in device.clients.enumerated() {
      let color = device.clients.count > 1 ? clientColors[index % clientColors.count] : nil
      let client = device.clients.count > 1 ? "flow \(flow.id) · \(flow.peerEnd ?? "?")" : nil
      lanes += flow.series.map { Lane(series: $0, client: client, color: color) }
    }
    let start = device.clients.map(\.firstTime).min() ?? device.firstTime
    let end = max(
      device.clients.map(\.lastTime).max() ?? device.lastTime, device.deviceTrack.points.last?.time ?? 0)
    return timeline(
      lanes: lanes, track: device.deviceTrack, deviceName: device.description.name, start: start, end: end,
      markers: markers, origin: origin, label: "device \(device.id)")
  }

  private static func timeline(
    lanes: [Lane], track: DeviceTrack?, deviceName: String, start first: Double, end last: Double,
    markers: [Marker], origin: Double, label: String
  ) -> String {
    var start = first
    var end = last
    for marker in markers {
      start = min(start, marker.time)
      end = max(end, marker.time + (marker.finding.duration ?? 0))
    }
    let pad = max((end - start) * 0.02, 1e-3)
    start -= pad
    end += pad
    let span = end - start
    let plot = width - labelWidth - 16
    func x(_ time: Double) -> Double { labelWidth + min(max((time - start) / span, 0), 1) * plot }
    // Markers closer than their width go to the next row.
    var rows: [Double] = []
    var placed: [(marker: Marker, row: Int)] = []
    for marker in markers.sorted(by: { $0.time < $1.time }) {
      let position = x(marker.time)
      let row = rows.firstIndex { position - $0 >= 20 } ?? rows.count
      if row == rows.count { rows.append(position) } else { rows[row] = position }
      placed.append((marker, row))
    }
    let markerHeight = max(markerLane, 10 + Double(rows.count) * 20)
    let points = track?.points ?? []
    let deviceTop = markerHeight + Double(lanes.count) * laneHeight
    let bottom = deviceTop + Double(points.isEmpty ? 0 : track?.keys.count ?? 0) * deviceLaneHeight
    let height = bottom + axisHeight
    var svg = "<svg class=\"timeline\" viewBox=\"0 0 \(n(width)) \(n(height))\" width=\"\(n(width))\" "
    svg += "height=\"\(n(height))\" role=\"img\" aria-label=\"message rates and gaps of \(label)\">"
    svg += "<text x=\"4\" y=\"19\" class=\"lane-label\">findings</text>"
    for (index, lane) in lanes.enumerated() {
      svg += self.lane(lane, top: markerHeight + Double(index) * laneHeight, x: x, origin: origin)
    }
    if let track, !points.isEmpty {
      svg += deviceLanes(track, device: deviceName, top: deviceTop, end: end, x: x)
    }
    // Findings: a numbered marker, a shaded span for those that last, and a
    // line through the lanes for errors and warnings.
    for (marker, row) in placed {
      let position = x(marker.time)
      let kind = marker.finding.severity.rawValue
      let cy = 14 + Double(row) * 20
      if let duration = marker.finding.duration, duration > 0 {
        let right = max(x(marker.time + duration), position + 2)
        svg += "<rect class=\"span \(kind)\" x=\"\(n(position))\" y=\"\(n(cy + 9))\" "
        svg += "width=\"\(n(right - position))\" height=\"\(n(bottom - cy - 9))\"><title>#\(marker.number) "
        svg += "\(Format.duration(duration))</title></rect>"
      }
      if marker.finding.severity != .note {
        svg += "<line class=\"mark-line \(kind)\" x1=\"\(n(position))\" y1=\"\(n(cy + 9))\" "
        svg += "x2=\"\(n(position))\" y2=\"\(n(bottom))\"/>"
      }
      svg +=
        "<g class=\"marker \(kind)\"><title>#\(marker.number) \(HTMLReport.escape(marker.finding.rule)): "
      svg += "\(HTMLReport.escape(marker.finding.text))</title>"
      svg += "<circle cx=\"\(n(position))\" cy=\"\(n(cy))\" r=\"9\"/>"
      svg +=
        "<text x=\"\(n(position))\" y=\"\(n(cy + 4))\" text-anchor=\"middle\">\(marker.number)</text></g>"
    }
    svg += axis(top: bottom, x: x, start: start, end: end, origin: origin)
    svg += "</svg>"
    return svg
  }

  private static func lane(
    _ lane: Lane, top: Double, x: (Double) -> Double, origin: Double
  ) -> String {
    let series = lane.series
    let inner = laneHeight - 14
    let base = top + laneHeight - 6
    let stroke = lane.color.map { " style=\"stroke:\($0)\"" } ?? ""
    var svg = "<rect class=\"lane\" x=\"\(n(labelWidth))\" y=\"\(n(top + 4))\" "
    svg += "width=\"\(n(width - labelWidth - 16))\" height=\"\(n(laneHeight - 8))\"/>"
    svg +=
      "<text x=\"4\" y=\"\(n(top + 24))\" class=\"lane-label\"\(lane.color.map { " style=\"fill:\($0)\"" } ?? "")>"
    svg += "\(HTMLReport.escape(series.name))</text>"
    if let sub = lane.client ?? series.direction {
      svg += "<text x=\"4\" y=\"\(n(top + 40))\" class=\"lane-sub\">\(HTMLReport.escape(sub))</text>"
    }
    let timeline = series.timeline
    // Long gaps first, so the rate is drawn over them.
    let typical = series.intervals.percentiles?.p50 ?? 0
    for gap in series.gaps.gaps where gap.seconds > max(2.5 * typical, 1e-6) && series.count > 2 {
      let from = x(gap.fromTime)
      let to = max(x(gap.toTime), from + 2)
      svg += "<rect class=\"gap\" x=\"\(n(from))\" y=\"\(n(top + 4))\" width=\"\(n(to - from))\" "
      svg += "height=\"\(n(laneHeight - 8))\"><title>gap \(Format.duration(gap.seconds)), frames "
      svg += "\(gap.fromFrame.map(String.init) ?? "?")→\(gap.toFrame.map(String.init) ?? "?")</title></rect>"
      if to - from > 60 {
        svg +=
          "<text class=\"gap-label\" x=\"\(n((from + to) / 2))\" y=\"\(n(top + 16))\" text-anchor=\"middle\">"
        svg += "\(Format.duration(gap.seconds))</text>"
      }
    }
    if series.count <= tickSeriesLimit {
      for (index, count) in timeline.counts.enumerated() where count > 0 {
        let time = timeline.origin + (Double(index) + 0.5) * timeline.width
        svg +=
          "<line class=\"tick\"\(stroke) x1=\"\(n(x(time)))\" y1=\"\(n(top + 12))\" x2=\"\(n(x(time)))\" "
        svg += "y2=\"\(n(base))\"><title>\(count) at \(Format.offset(time, from: origin))</title></line>"
      }
      svg += "<text x=\"\(n(width - 20))\" y=\"\(n(top + 16))\" class=\"lane-sub\" text-anchor=\"end\">"
      svg += "\(series.count) message\(series.count == 1 ? "" : "s")</text>"
      return svg
    }
    let points = displayRates(series, span: max((series.lastTime ?? 0) - (series.firstTime ?? 0), 1e-3))
    let expected = series.expected
    let top95 = max(points.map(\.rate).max() ?? 0, expected?.highHz ?? 0) * 1.15
    let scale = top95 > 0 ? inner / top95 : 0
    func y(_ rate: Double) -> Double { base - rate * scale }
    if let expected, expected.rule != nil {
      svg += "<rect class=\"band\" x=\"\(n(labelWidth))\" y=\"\(n(y(expected.highHz)))\" "
      svg +=
        "width=\"\(n(width - labelWidth - 16))\" height=\"\(n(max(1, y(expected.lowHz) - y(expected.highHz))))\">"
      svg += "<title>expected \(HTMLReport.escape(expected.text))</title></rect>"
    }
    var path = ""
    for point in points {
      let left = x(point.start)
      let right = x(point.end)
      path += path.isEmpty ? "M\(n(left)) \(n(y(point.rate)))" : " L\(n(left)) \(n(y(point.rate)))"
      path += " L\(n(right)) \(n(y(point.rate)))"
    }
    svg += "<path class=\"rate\"\(stroke) d=\"\(path)\"/>"
    svg += "<text x=\"\(n(width - 20))\" y=\"\(n(top + 16))\" class=\"lane-sub\" text-anchor=\"end\">"
    svg += "0–\(Format.hertz(top95))</text>"
    return svg
  }

  // MARK: The device

  /// One lane per state member: numbers as steps between their lowest and
  /// highest value (0 included), anything else as coloured bands named by
  /// value; the device's timer events as lines across them (dotted where
  /// the model is not certain the device did it).
  private static func deviceLanes(
    _ track: DeviceTrack, device: String, top: Double, end: Double, x: (Double) -> Double
  ) -> String {
    var svg = ""
    let points = track.points
    for (row, key) in track.keys.enumerated() {
      let laneTop = top + Double(row) * deviceLaneHeight
      svg += "<rect class=\"lane device\" x=\"\(n(labelWidth))\" y=\"\(n(laneTop + 4))\" "
      svg += "width=\"\(n(width - labelWidth - 16))\" height=\"\(n(deviceLaneHeight - 8))\"/>"
      svg += "<text x=\"4\" y=\"\(n(laneTop + 20))\" class=\"lane-label\">\(HTMLReport.escape(key))</text>"
      svg += "<text x=\"4\" y=\"\(n(laneTop + 34))\" class=\"lane-sub\">\(HTMLReport.escape(device))</text>"
      let values = points.map { point in point.state.first { $0.key == key }?.value }
      let numbers = values.compactMap { value -> Double? in
        guard let value, case .enumeration = value else { return value?.numericValue }
        return nil
      }
      // Each value holds from its point to the next one (or the flow's end).
      let segments = points.indices.map { index in
        (
          from: points[index].time, to: index + 1 < points.count ? points[index + 1].time : end,
          value: values[index]
        )
      }
      if numbers.count == values.compactMap({ $0 }).count, !numbers.isEmpty {
        let low = min(0, numbers.min() ?? 0)
        let high = max(0, numbers.max() ?? 0)
        let range = max(high - low, 1e-9)
        let inner = deviceLaneHeight - 16
        func y(_ value: Double) -> Double { laneTop + 8 + inner * (1 - (value - low) / range) }
        var path = ""
        for segment in segments {
          guard let value = segment.value?.numericValue else { continue }
          path +=
            path.isEmpty ? "M\(n(x(segment.from))) \(n(y(value)))" : " L\(n(x(segment.from))) \(n(y(value)))"
          path += " L\(n(x(segment.to))) \(n(y(value)))"
        }
        svg += "<line class=\"zero\" x1=\"\(n(labelWidth))\" y1=\"\(n(y(0)))\" x2=\"\(n(width - 16))\" "
        svg += "y2=\"\(n(y(0)))\"/><path class=\"state-line\" d=\"\(path)\"/>"
        svg += "<text x=\"\(n(width - 20))\" y=\"\(n(laneTop + 16))\" class=\"lane-sub\" text-anchor=\"end\">"
        svg += "\(JSONWriter.formatNumber(low))…\(JSONWriter.formatNumber(high))</text>"
      } else {
        // A state holds across the points where other members changed.
        var merged: [(from: Double, to: Double, value: FieldValue?)] = []
        for segment in segments {
          if let last = merged.last, last.value == segment.value {
            merged[merged.count - 1].to = segment.to
          } else {
            merged.append(segment)
          }
        }
        for segment in merged {
          guard let value = segment.value else { continue }
          let left = x(segment.from)
          let right = max(x(segment.to), left + 1)
          let name = value.stringValue ?? value.display
          let text = HTMLReport.escape(name)
          svg += "<rect class=\"state-band\" style=\"fill:\(color(of: name))\" x=\"\(n(left))\" "
          svg +=
            "y=\"\(n(laneTop + 8))\" width=\"\(n(right - left))\" height=\"\(n(deviceLaneHeight - 16))\">"
          svg += "<title>\(HTMLReport.escape(key)) \(text)</title></rect>"
          if right - left > Double(name.count) * 7 + 8 {
            svg += "<text class=\"state-text\" x=\"\(n(left + 4))\" y=\"\(n(laneTop + 26))\">\(text)</text>"
          }
        }
      }
    }
    let bottom = top + Double(track.keys.count) * deviceLaneHeight
    for point in points {
      guard let timed = point.timed else { continue }
      let position = x(point.time)
      svg += "<line class=\"device-event\(timed.certain ? "" : " maybe")\" x1=\"\(n(position))\" "
      svg += "y1=\"\(n(top + 4))\" x2=\"\(n(position))\" y2=\"\(n(bottom - 4))\"><title>"
      svg +=
        "\(HTMLReport.escape(timed.name))\(timed.certain ? "" : " (may have)"): \(HTMLReport.escape(timed.text))"
      svg += "</title></line>"
    }
    if track.dropped > 0 {
      svg += "<text x=\"\(n(width - 20))\" y=\"\(n(bottom - 8))\" class=\"lane-sub\" text-anchor=\"end\">"
      svg += "\(track.dropped) later changes not drawn</text>"
    }
    return svg
  }

  /// A state's colour: the protocols' usual meanings where the name says
  /// them, else a stable colour per name.
  package static func color(of name: String) -> String {
    switch name.uppercased() {
    case "ARMED", "AUTHENTICATED", "READY", "START", "ACCEPTED": return "#abebc6"
    case "DISARMED", "STOP", "CLOSED", "NONE": return "#d5d8dc"
    case "FAULT", "REJECTED", "DEADMAN_TIMEOUT", "I2C_FAULT", "INVALID_CMD", "LOW_BATTERY", "UNKNOWN":
      return "#f5b7b1"
    case "UNAUTHENTICATED", "REGISTERING", "CONNECTING": return "#fad7a0"
    default:
      let palette = ["#aed6f1", "#d2b4de", "#a3e4d7", "#f9e79f", "#f5cba7", "#a9cce3"]
      let hash = name.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
      return palette[Int(hash % UInt32(palette.count))]
    }
  }

  /// The timeline's buckets merged so each holds a few messages: rate
  /// steps that show stalls without drowning in quantisation noise.
  static func displayRates(_ series: MessageSeries, span: Double) -> [(
    start: Double, end: Double, rate: Double
  )] {
    let timeline = series.timeline
    guard !timeline.counts.isEmpty else { return [] }
    let rate = series.activeRate ?? series.meanRate ?? 1
    // About ten messages a step, and at least a dozen steps across the series.
    let wanted = min(max(timeline.width, 10 / max(rate, 1e-6)), max(span / 12, timeline.width))
    let merge = max(1, Int((wanted / timeline.width).rounded()))
    var out: [(Double, Double, Double)] = []
    var index = 0
    let firstIndex = timeline.counts.firstIndex { $0 > 0 } ?? 0
    index = firstIndex
    while index < timeline.counts.count {
      let upper = min(index + merge, timeline.counts.count)
      let total = timeline.counts[index..<upper].reduce(0, +)
      let start = timeline.origin + Double(index) * timeline.width
      let end = timeline.origin + Double(upper) * timeline.width
      out.append((start, end, Double(total) / (end - start)))
      index = upper
    }
    return out
  }

  private static func axis(
    top: Double, x: (Double) -> Double, start: Double, end: Double, origin: Double
  ) -> String {
    var svg = "<line class=\"axis\" x1=\"\(n(labelWidth))\" y1=\"\(n(top + 2))\" x2=\"\(n(width - 16))\" "
    svg += "y2=\"\(n(top + 2))\"/>"
    let step = niceStep(end - start, ticks: 10)
    var tick = ((start - origin) / step).rounded(.up) * step
    while tick + origin <= end {
      let position = x(origin + tick)
      svg +=
        "<line class=\"axis\" x1=\"\(n(position))\" y1=\"\(n(top + 2))\" x2=\"\(n(position))\" y2=\"\(n(top + 7))\"/>"
      svg += "<text class=\"axis-label\" x=\"\(n(position))\" y=\"\(n(top + 19))\" text-anchor=\"middle\">"
      svg += "+\(trimmed(tick, step: step)) s</text>"
      tick += step
    }
    return svg
  }

  // MARK: Histogram

  package static func histogram(title: String, samples: [Double], unit: ValueSeries.Unit, count: Int)
    -> String
  {
    let w = 340.0
    let h = 150.0
    let plotTop = 26.0
    let plotBottom = h - 26
    var svg = "<svg class=\"histogram\" viewBox=\"0 0 \(n(w)) \(n(h))\" width=\"\(n(w))\" height=\"\(n(h))\" "
    svg += "role=\"img\" aria-label=\"\(HTMLReport.escape(title))\">"
    svg += "<text x=\"6\" y=\"16\" class=\"hist-title\">\(HTMLReport.escape(title)) (\(count))</text>"
    guard let histogram = Histogram(samples, bins: 24), let most = histogram.counts.max(), most > 0 else {
      return svg + "</svg>"
    }
    let barWidth = (w - 20) / Double(histogram.counts.count)
    for (index, bin) in histogram.counts.enumerated() where bin > 0 {
      let barHeight = (plotBottom - plotTop) * Double(bin) / Double(most)
      let low = histogram.lower + Double(index) * histogram.width
      svg +=
        "<rect class=\"bar\" x=\"\(n(10 + Double(index) * barWidth + 0.5))\" y=\"\(n(plotBottom - barHeight))\" "
      svg += "width=\"\(n(max(barWidth - 1, 1)))\" height=\"\(n(barHeight))\"><title>\(bin) in "
      svg += "\(show(low, unit))–\(show(low + histogram.width, unit))</title></rect>"
    }
    svg +=
      "<line class=\"axis\" x1=\"10\" y1=\"\(n(plotBottom))\" x2=\"\(n(w - 10))\" y2=\"\(n(plotBottom))\"/>"
    // The count axis: 0 at the base, the fullest bin's count at the top.
    svg += "<line class=\"axis\" x1=\"10\" y1=\"\(n(plotTop))\" x2=\"10\" y2=\"\(n(plotBottom))\"/>"
    svg += "<line class=\"axis\" x1=\"6\" y1=\"\(n(plotTop))\" x2=\"10\" y2=\"\(n(plotTop))\"/>"
    svg += "<text class=\"axis-label\" x=\"13\" y=\"\(n(plotTop + 9))\">\(most) per bin</text>"
    svg += "<text class=\"axis-label\" x=\"10\" y=\"\(n(h - 8))\">\(show(histogram.lower, unit))</text>"
    let more = histogram.overflow > 0 ? " and \(histogram.overflow) above" : ""
    svg += "<text class=\"axis-label\" x=\"\(n(w - 10))\" y=\"\(n(h - 8))\" text-anchor=\"end\">"
    svg += "\(show(histogram.upper, unit))\(more)</text></svg>"
    return svg
  }

  // MARK: Numbers

  package static func show(_ value: Double, _ unit: ValueSeries.Unit) -> String {
    unit == .bytes ? Format.bytes(Int(exactly: value.rounded()) ?? 0) : Format.duration(value)
  }

  static func niceStep(_ span: Double, ticks: Int) -> Double {
    let raw = max(span, 1e-9) / Double(max(ticks, 1))
    let magnitude = pow(10, (log10(raw)).rounded(.down))
    let scaled = raw / magnitude
    return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * magnitude
  }

  package static func trimmed(_ value: Double, step: Double) -> String {
    let digits = step >= 1 ? 0 : min(6, Int((-log10(step)).rounded(.up)))
    return digits == 0
      ? (Int(exactly: value.rounded()).map(String.init) ?? Format.fixed(value, digits: 0))
      : Format.fixed(value, digits: digits)
  }

  /// A coordinate with one decimal.
  package static func n(_ value: Double) -> String {
    value.isFinite ? Format.fixed(value, digits: 1) : "0"
  }
}
