import PacketKit

/// The MessageSink behind `pktbench analyze`: it hands each record to its
/// flow's analyzer and keeps nothing else, so memory grows with the number
/// of flows, not of records.
final class AnalysisSink: MessageSink {
  /// Flows beyond this are counted, not analysed (a scan or a flood must
  /// not exhaust memory).
  static let flowLimit = 1024

  private let options: AnalysisOptions
  private var flows: [FlowKey: FlowAnalyzer] = [:]
  private var order: [FlowAnalyzer] = []
  private var origin: Double?
  private let budget = FindingBudget()
  private lazy var captureFindings = FindingLog(budget: budget)
  private var untracked = 0
  private var unclaimed = 0
  private(set) var report: AnalysisReport?
  /// `--timeline`: where the device models' events go, in time order.
  private let timeline: TimelineWriter?
  /// Flows with a device model, and a time no later than the earliest of
  /// their models' deadlines: until a record passes it, no timer is due.
  private var modelled: [FlowAnalyzer] = []
  private var earliestDeadline = Double.infinity

  init(options: AnalysisOptions = AnalysisOptions(), timeline: TimelineWriter? = nil) {
    self.options = options
    self.timeline = timeline
  }

  /// Device models read the payload as the device got it.
  var wantsPayload: Bool { true }

  func emit(_ record: DecodedRecord) {
    guard let time = record.time, time.isFinite else { return }
    if origin == nil { origin = time }
    passTime(to: time)
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
    if let flow = flows[key] {
      flow.observe(record)
      noteDeadline(of: flow)
      return
    }
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
    let flow = FlowAnalyzer(
      id: order.count + 1, key: key, origin: origin ?? time, transport: record.transport, time: time,
      options: options, budget: budget)
    if let timeline { flow.onDeviceEvent = { event, flow in timeline.add(event, flow: flow) } }
    flows[key] = flow
    order.append(flow)
    flow.observe(record)
    noteDeadline(of: flow)
  }

  func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String) {
    flows[FlowKey(family: "tcp", client, server)]?.connectionEnded(frame: frame, time: time, reason: reason)
  }

  func finish(name: String, stats: CaptureStats) {
    let recordedEnd = stats.recordedEnd.flatMap { $0 >= (stats.lastTime ?? $0) ? $0 : nil }
    let end = recordedEnd ?? stats.lastTime ?? order.map(\.lastTime).max() ?? 0
    for flow in order {
      flow.captureEndRecorded = recordedEnd != nil
      flow.finish(captureEnd: end)
    }
    timeline?.finish()
    if let stopped = stats.stoppedEarly {
      captureFindings.add(
        Finding(
          "capture.truncated", .warning, time: end, frame: stats.records,
          text: "the file is damaged: analysed up to it, stopped \(stopped); later traffic is missing"))
    }
    report = AnalysisReport(
      file: name, stats: stats, flows: order, captureFindings: captureFindings,
      unclaimedPayloads: unclaimed, untrackedRecords: untracked)
  }

  // MARK: Device models' time

  /// Fires the timers of every model whose deadline `time` passed, so
  /// events of time come out when they fell, not at their flow's next record.
  private func passTime(to time: Double) {
    guard time >= earliestDeadline else { return }
    earliestDeadline = .infinity
    for flow in modelled {
      flow.advanceDevice(to: time)
      if let deadline = flow.deviceDeadline { earliestDeadline = min(earliestDeadline, deadline) }
    }
    timeline?.passed(time)
  }

  private func noteDeadline(of flow: FlowAnalyzer) {
    guard flow.device != nil else { return }
    if !flow.isTrackedForTime {
      flow.isTrackedForTime = true
      modelled.append(flow)
    }
    if let deadline = flow.deviceDeadline { earliestDeadline = min(earliestDeadline, deadline) }
  }
}
