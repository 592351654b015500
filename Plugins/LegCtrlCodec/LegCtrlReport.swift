/// A TELEMETRY notification as the app reads it: the firmware's own report
/// of its state, error_code and last_cmd_age_ms at one tick of its 100 ms
/// timer. The app accepts 12 bytes or more and reads the first 12
/// (docs/protocols.md §5).
struct LegCtrlReport: Sendable, Equatable {
  var state: UInt8
  var errorCode: UInt8
  var ageMilliseconds: Int
  var batteryMillivolts: Int

  init?(_ bytes: [UInt8]) {
    guard bytes.count >= 12, bytes[0] == 1, bytes[1] == LegCtrlMsgType.telemetry else { return nil }
    state = bytes[4]
    errorCode = bytes[5]
    ageMilliseconds = Int(bytes[6]) | Int(bytes[7]) << 8
    batteryMillivolts = Int(bytes[8]) | Int(bytes[9]) << 8
  }

  init(state: UInt8, errorCode: UInt8, ageMilliseconds: Int, batteryMillivolts: Int = 7400) {
    self.state = state
    self.errorCode = errorCode
    self.ageMilliseconds = ageMilliseconds
    self.batteryMillivolts = batteryMillivolts
  }

  var stateName: String { LegCtrlSchema.stateName(state)?.description ?? "unknown(\(state))" }

  var errorName: String { LegCtrlSchema.errorCodeName(errorCode)?.description ?? "unknown(\(errorCode))" }

  /// "FAULT/DEADMAN_TIMEOUT, last_cmd_age_ms 223".
  var text: String { "\(stateName)/\(errorName), last_cmd_age_ms \(ageMilliseconds)" }
}
