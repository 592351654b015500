import PacketDecode
import PacketKit

/// The MessageSink behind `pktbench analyze`: it hands each record to its
/// flow's analyzer, and the flow's records to the device they reach (one
/// device per endpoint, every client's records in capture order); it keeps
/// nothing else, so memory grows with the number of flows, not of records.
package final class AnalysisSink: MessageSink {
  /// Flows beyond this are counted, not analysed (a scan or a flood must
  /// not exhaust memory).
  static let flowLimit = 1024

  private let options: AnalysisOptions
  private let catalog: RuleCatalog
  private var flows: [FlowKey: FlowAnalyzer] = [:]
  private var order: [FlowAnalyzer] = []
  private var devices: [DeviceKey: DeviceAnalyzer] = [:]
  private var deviceOrder: [DeviceAnalyzer] = []
  private var origin: Double?
  private let budget = FindingBudget()
  private lazy var captureFindings = FindingLog(budget: budget)
  private var untracked = 0
  private var unclaimed = 0
  /// The capture layer's notices, summed per kind: one finding each at the end.
  private var notices: [String: CaptureNoticeTally] = [:]
  package private(set) var report: AnalysisReport?
  /// `--timeline`: where the device models' events go, in time order.
  private let timeline: TimelineWriter?
  /// Devices with a model, and a time no later than the earliest of their
  /// models' deadlines: until a record passes it, no timer is due.
  private var modelled: [DeviceAnalyzer] = []
  private var earliestDeadline = Double.infinity

  package init(
    codecs: CodecSet, options: AnalysisOptions = AnalysisOptions(), timeline: TimelineWriter? = nil
  ) {
    self.options = options
    catalog = RuleCatalog(codecs: codecs, options: options)
    self.timeline = timeline
  }

  /// Device models read the payload as the device got it.
  package var wantsPayload: Bool { true }

  package func emit(_ record: DecodedRecord) {
    guard let time = record.time, time.isFinite else { return }
    if origin == nil { origin = time }
    passTime(to: time)
    if let event = record.event, let rule = CaptureNoticeTally.rule(forEvent: event.name) {
      notices[rule, default: CaptureNoticeTally(rule: rule)].add(record, event: event)
      return
    }
    guard let key = FlowKey(record) else {
      if let error = record.layerError {
        captureFindings.add(
          Finding(
            "capture.damaged", .warning, time: time, frame: record.frame,
            text: "a damaged \(record.transport) packet (\(error.code)): \(error.text)",
            details: [.init("code", .string(error.code))]))
      }
      return
    }
    let flow: FlowAnalyzer
    if let known = flows[key] {
      flow = known
    } else {
      // A flow starts with a payload a codec claimed or a WebSocket event;
      // unclaimed traffic (DNS, anything else on the wire) is only counted.
      guard
        record.codecName != nil || record.transport == "websocket"
          || FlowKey.family(of: record.transport) == "ble"
      else {
        unclaimed += 1
        return
      }
      guard flows.count < Self.flowLimit else {
        untracked += 1
        return
      }
      flow = FlowAnalyzer(
        id: order.count + 1, key: key, origin: origin ?? time, transport: record.transport, time: time,
        catalog: catalog, budget: budget)
      flows[key] = flow
      order.append(flow)
    }
    guard let message = FlowMessage(record) else { return }
    flow.observe(record, message)
    if let device = flow.device {
      device.take(message, from: flow)
      noteDeadline(of: device)
      return
    }
    guard !flow.unmodelled else { return }
    let behaviour = flow.codec.flatMap(catalog.behaviour(forCodec:))
    if flow.codec != nil, behaviour == nil { return flow.noDevice() }
    flow.hold(message, description: behaviour?.device)
    flow.learnDeviceEnd(description: behaviour?.device) { end in
      self.devices.keys.contains { $0.family == flow.key.family && $0.endpoint == end }
    }
    guard let device = device(for: flow, time: time) else { return }
    device.attach(flow)
    noteDeadline(of: device)
  }

  /// The device `flow` reaches, made when it is the first client.
  private func device(for flow: FlowAnalyzer, time: Double) -> DeviceAnalyzer? {
    guard let end = flow.deviceEnd else { return nil }
    var key = DeviceKey(family: flow.key.family, endpoint: end)
    if key.family == "ble", end.hasSuffix("peripheral"), let peer = flow.blePeer {
      key.endpoint = "peripheral \(peer)"
    }
    if let codec = flow.codec, catalog.behaviour(forCodec: codec)?.device.identity == .connection {
      key.connection = flow.key.ends
    }
    if let known = devices[key] { return known }
    guard let codec = flow.codec,
      let made = DeviceAnalyzer(
        id: deviceOrder.count + 1, key: key, codec: codec, origin: origin ?? time, time: time,
        catalog: catalog, budget: budget)
    else { return nil }
    if let timeline {
      made.onDeviceEvent = { event, device, flow in timeline.add(event, device: device, flow: flow) }
    }
    devices[key] = made
    deviceOrder.append(made)
    return made
  }

  package func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String) {
    flows[FlowKey(family: "tcp", client, server)]?.connectionEnded(frame: frame, time: time, reason: reason)
  }

  /// The capture missed `from`…`to` (between files): said as such, and the
  /// models told nothing was seen.
  func captureGap(from: Double, to: Double, text: String, frame: Int) {
    passTime(to: from)
    captureFindings.add(
      Finding(
        "capture.gap", .note, time: from, frame: frame, duration: to - from,
        text: "not captured from \(Format.offset(from, from: origin ?? from)) to "
          + "\(Format.offset(to, from: origin ?? from)) (\(text)): what the devices did meanwhile is not known",
        details: [.init("from", .number(from)), .init("to", .number(to))]))
    for device in deviceOrder { device.unobserved(from: from, to: to) }
    timeline?.passed(from)
  }

  package func finish(name: String, stats: CaptureStats) {
    let recordedEnd = stats.recordedEnd.flatMap { $0 >= (stats.lastTime ?? $0) ? $0 : nil }
    let end = recordedEnd ?? stats.lastTime ?? order.map(\.lastTime).max() ?? 0
    for device in deviceOrder {
      device.captureEndRecorded = recordedEnd != nil
      device.finish(captureEnd: end)
    }
    for flow in order {
      flow.captureEndRecorded = recordedEnd != nil
      flow.finish(captureEnd: end)
    }
    timeline?.finish()
    for rule in notices.keys.sorted() {
      if let finding = notices[rule]?.finding { captureFindings.add(finding) }
    }
    for note in stats.recordedTimeNotes {
      captureFindings.add(
        Finding(
          "capture.recorded-times", .note, time: note.atStart ? stats.firstTime ?? end : end,
          frame: note.atStart ? 1 : max(stats.records, 1), text: note.text))
    }
    if let stopped = stats.stoppedEarly {
      captureFindings.add(
        Finding(
          "capture.truncated", .warning, time: end, frame: stats.records,
          text: "the file is damaged: analysed up to it, stopped \(stopped); later traffic is missing"))
    }
    report = AnalysisReport(
      file: name, stats: stats, flows: order, devices: deviceOrder, captureFindings: captureFindings,
      unclaimedPayloads: unclaimed, untrackedRecords: untracked)
  }

  // MARK: Device models' time

  /// Fires the timers of every model whose deadline `time` passed, so
  /// events of time come out when they fell, not at their device's next record.
  private func passTime(to time: Double) {
    guard time >= earliestDeadline else { return }
    earliestDeadline = .infinity
    for device in modelled {
      device.advance(to: time)
      if let deadline = device.deadline { earliestDeadline = min(earliestDeadline, deadline) }
    }
    timeline?.passed(time)
  }

  private func noteDeadline(of device: DeviceAnalyzer) {
    if !device.isTrackedForTime {
      device.isTrackedForTime = true
      modelled.append(device)
    }
    if let deadline = device.deadline { earliestDeadline = min(earliestDeadline, deadline) }
  }
}

/// What the capture layer said about one kind of its own doing (fragments
/// dropped, connections evicted, bytes that disagreed), summed over the
/// capture: a flood makes millions, and one finding says it.
struct CaptureNoticeTally {
  /// The notice events, and their finding's rule.
  package static let rules: [String: String] = [
    "ip.fragments-dropped": "capture.fragments-dropped",
    "tcp.overlap": "capture.tcp-overlap",
    "tcp.evicted": "capture.tcp-evicted",
    "tcp.resumed": "capture.tcp-evicted",
    "tcp.out-of-window": "capture.tcp-out-of-window",
    "tcp.desync": "capture.tcp-desync",
    "capture.beyond-snaplen": "capture.beyond-snaplen",
  ]
  /// Frames named in a finding, at most.
  static let frameLimit = 5

  package static func rule(forEvent name: String) -> String? { rules[name] }

  package let rule: String
  private var count = 0
  private var resumed = 0
  private var firstTime = 0.0
  private var frames: [Int] = []
  private var reasons: [String: Int] = [:]
  private var bytes = 0
  private var firstText = ""

  package init(rule: String) { self.rule = rule }

  package mutating func add(_ record: DecodedRecord, event: (name: String, fields: [FieldValue.Member])) {
    if event.name == "tcp.resumed" {
      resumed += 1
      return
    }
    if count == 0 {
      firstTime = record.time ?? 0
      firstText = record.layerDiagnostics.first?.text ?? ""
    }
    count += 1
    if let frame = record.frame, frames.count < Self.frameLimit { frames.append(frame) }
    for field in event.fields {
      if field.key == "reason", case .string(let reason) = field.value { reasons[reason, default: 0] += 1 }
      if field.key == "bytes", case .integer(let value) = field.value { bytes += Int(value) }
    }
  }

  package var finding: Finding? {
    guard count > 0 else { return nil }
    let times = count == 1 ? "once" : "\(count) times"
    var details: [FieldValue.Member] = [.init("count", .integer(Int64(count)))]
    let text: String
    switch rule {
    case "capture.fragments-dropped":
      let order = ["limit", "expired", "end", "overlap", "cut"]
      let words = [
        "limit": "to stay within the reassembly limits", "expired": "expired incomplete",
        "end": "incomplete at the end", "overlap": "with overlapping fragments (RFC 5722)",
        "cut": "cut by the capture",
      ]
      let parts = order.compactMap { reason in reasons[reason].map { "\($0) \(words[reason] ?? reason)" } }
      text =
        "\(count) incomplete IP datagram\(count == 1 ? " was" : "s were") dropped (\(parts.joined(separator: ", "))), "
        + "\(bytes) bytes held; their payloads never reached a decoder"
      details += order.compactMap { reason in reasons[reason].map { .init(reason, .integer(Int64($0))) } }
      details.append(.init("bytes", .integer(Int64(bytes))))
    case "capture.tcp-evicted":
      text =
        "the TCP connection table filled: connections that carried data were evicted \(times)"
        + " (\(resumed) spoke again and were picked up where they left off); first: \(firstText)"
      details.append(.init("resumed", .integer(Int64(resumed))))
    default:
      text = "\(times): \(firstText)"
    }
    let severity: Finding.Severity = rule == "capture.tcp-evicted" && resumed >= count ? .note : .warning
    return Finding(
      rule, severity, time: firstTime, frame: frames.first, related: frames, text: text, details: details)
  }
}
