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

  init(options: AnalysisOptions = AnalysisOptions()) {
    self.options = options
  }

  var wantsPayload: Bool { false }

  func emit(_ record: DecodedRecord) {
    guard let time = record.time, time.isFinite else { return }
    if origin == nil { origin = time }
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
    flows[key] = flow
    order.append(flow)
    flow.observe(record)
  }

  func streamClosed(client: String, server: String, frame: Int, time: Double, reason: String) {
    flows[FlowKey(family: "tcp", client, server)]?.connectionEnded(frame: frame, time: time, reason: reason)
  }

  func finish(name: String, stats: CaptureStats) {
    let end = stats.lastTime ?? order.map(\.lastTime).max() ?? 0
    for flow in order { flow.finish(captureEnd: end) }
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
}
