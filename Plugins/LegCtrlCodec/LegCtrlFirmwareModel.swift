import PacketKit

/// The LegCtrl firmware as a device model (docs/protocols.md §5): in analysis it
/// predicts the firmware from a capture and checks it against the
/// firmware's own telemetry; in emulation it is the firmware.
///
/// Timeline: `state` is `{"state", "error_code", "pulse_us"}` (pulse 0: the
/// servo output is off). Events: `executed`, `ignored`, `rejected` (one per
/// write), `deadman_timeout`, `i2c_fault`, `disconnect`, `reconnect`, and
/// `telemetry` (the firmware's report in analysis, what it sends in
/// emulation).
public struct LegCtrlFirmwareModel: DeviceModel {
  private enum Role {
    case analysis(LegCtrlAnalysis)
    case emulation(LegCtrlEmulation)
  }

  private var role: Role

  /// `failingPulse`: a servo pulse (µs, after clamping) whose PWM write
  /// fails, as the recordings' injected I²C failure.
  public init(mode: ModelMode, batteryMillivolts: UInt16 = 7400, failingPulse: Int? = nil) {
    switch mode {
    case .analysis: role = .analysis(LegCtrlAnalysis(failingPulse: failingPulse))
    case .emulation:
      role = .emulation(LegCtrlEmulation(batteryMillivolts: batteryMillivolts, failingPulse: failingPulse))
    }
  }

  public mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    switch role {
    case .analysis(var analysis):
      defer { role = .analysis(analysis) }
      return analysis.take(message, heading: heading)
    case .emulation(var emulation):
      defer { role = .emulation(emulation) }
      return emulation.take(message, heading: heading)
    }
  }

  public mutating func advance(to time: Double) -> [DeviceEvent] {
    switch role {
    case .analysis(var analysis):
      defer { role = .analysis(analysis) }
      return analysis.advance(to: time)
    case .emulation(var emulation):
      defer { role = .emulation(emulation) }
      return emulation.advance(to: time)
    }
  }

  public var nextDeadline: Double? {
    switch role {
    case .analysis(let analysis): analysis.nextDeadline
    case .emulation(let emulation): emulation.nextDeadline
    }
  }

  public mutating func finish(end: Double?) -> [DeviceEvent] {
    switch role {
    case .analysis(var analysis):
      defer { role = .analysis(analysis) }
      return analysis.finish(end: end)
    case .emulation: return []
    }
  }

  public mutating func unobserved(from: Double, to: Double) -> [DeviceEvent] {
    switch role {
    case .analysis(var analysis):
      defer { role = .analysis(analysis) }
      return analysis.unobserved(from: from, to: to)
    case .emulation: return []
    }
  }
}
