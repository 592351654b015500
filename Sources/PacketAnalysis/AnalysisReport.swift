import PacketDecode
import PacketKit

/// The finished analysis of one capture, as every report format reads it.
public struct AnalysisReport {
  public package(set) var file: String
  public package(set) var records: Int
  public package(set) var firstTime: Double?
  public package(set) var lastTime: Double?
  /// Where a damaged file stopped the reading.
  public package(set) var stoppedEarly: String?
  /// Why the reading stopped before the input's end (damage or a signal).
  public package(set) var stopNote: String?
  /// The signal that stopped the reading, if one did.
  public package(set) var interrupted: String?
  /// When the capture ended, as the file recorded it (pcapng isb_endtime).
  public package(set) var recordedEnd: Double?
  var flows: [FlowAnalyzer]
  /// The modelled devices, each with the flows that reached it.
  var devices: [DeviceAnalyzer]
  /// Findings about the capture itself (damage, gaps), not a flow.
  var captureFindings: FindingLog
  public package(set) var unclaimedPayloads: Int
  /// Records of flows beyond AnalysisSink.flowLimit.
  public package(set) var untrackedRecords: Int

  init(
    file: String, stats: CaptureStats, flows: [FlowAnalyzer], devices: [DeviceAnalyzer] = [],
    captureFindings: FindingLog, unclaimedPayloads: Int, untrackedRecords: Int
  ) {
    self.file = file
    self.records = stats.records
    self.firstTime = stats.firstTime
    self.lastTime = stats.lastTime
    self.stoppedEarly = stats.stoppedEarly
    self.stopNote = stats.stopNote
    self.interrupted = stats.interrupted
    self.recordedEnd = stats.recordedEnd
    self.flows = flows
    self.devices = devices
    self.captureFindings = captureFindings
    self.unclaimedPayloads = unclaimedPayloads
    self.untrackedRecords = untrackedRecords
  }

  /// Where relative times count from: the capture's first record.
  public var origin: Double { firstTime ?? flows.map(\.firstTime).min() ?? 0 }

  public var duration: Double { max(0, (lastTime ?? origin) - origin) }

  /// Every kept finding, capture-level ones first, then by time.
  public var findings: [Finding] {
    let all = captureFindings.kept + devices.flatMap(\.findings.kept) + flows.flatMap(\.findings.kept)
    return all.enumerated().sorted { lhs, rhs in
      if lhs.element.time != rhs.element.time { return lhs.element.time < rhs.element.time }
      return lhs.offset < rhs.offset
    }.map(\.element)
  }

  /// Findings per severity, suppressed ones included.
  public func count(_ severity: Finding.Severity) -> Int {
    captureFindings.count(severity) + devices.reduce(0) { $0 + $1.findings.count(severity) }
      + flows.reduce(0) { $0 + $1.findings.count(severity) }
  }

  public var verdict: String {
    count(.error) > 0 ? "error" : count(.warning) > 0 ? "warning" : "ok"
  }

  func flow(_ id: Int?) -> FlowAnalyzer? {
    guard let id else { return nil }
    return flows.first { $0.id == id }
  }

  func device(_ id: Int?) -> DeviceAnalyzer? {
    guard let id else { return nil }
    return devices.first { $0.id == id }
  }

  /// Flows that reached no modelled device.
  var loneFlows: [FlowAnalyzer] { flows.filter { $0.device == nil } }

  /// Whether findings at or above `severity` were found (for `--fail-on`).
  public func fails(at severity: Finding.Severity) -> Bool {
    [Finding.Severity.error, .warning, .note].contains { $0 >= severity && count($0) > 0 }
  }
}
