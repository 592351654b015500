import PacketKit

/// A LegCtrl message (docs/protocols.md §2): a 4-byte header and a payload.
public struct LegCtrlMessage: Sendable, Equatable {
  public enum Body: Sendable, Equatable {
    case arm
    case disarm
    case setServoCh0(pulseMicroseconds: UInt16)
    case ping
    case telemetry(LegCtrlTelemetry)
    /// A well-formed header with a msg_type the firmware does not know.
    case unknown(msgType: UInt8, payload: [UInt8])
  }

  public var body: Body
  /// Header `version`; 1 is the only valid value.
  public var version: UInt8
  /// Header `reserved`; 0 on the wire, anything else decodes with a warning.
  public var reserved: UInt8

  public init(_ body: Body, version: UInt8 = 1, reserved: UInt8 = 0) {
    self.body = body
    self.version = version
    self.reserved = reserved
  }

  public var msgType: UInt8 {
    switch body {
    case .arm: LegCtrlMsgType.arm
    case .disarm: LegCtrlMsgType.disarm
    case .setServoCh0: LegCtrlMsgType.setServoCh0
    case .ping: LegCtrlMsgType.ping
    case .telemetry: LegCtrlMsgType.telemetry
    case .unknown(let type, _): type
    }
  }
}

/// The TELEMETRY payload: u8 state, u8 error_code, u16 last_cmd_age_ms,
/// u16 battery_mv, u16 reserved.
public struct LegCtrlTelemetry: Sendable, Equatable {
  public var state: UInt8
  public var errorCode: UInt8
  public var lastCommandAgeMilliseconds: UInt16
  public var batteryMillivolts: UInt16
  public var reserved: UInt16

  public init(
    state: UInt8, errorCode: UInt8, lastCommandAgeMilliseconds: UInt16,
    batteryMillivolts: UInt16, reserved: UInt16 = 0
  ) {
    self.state = state
    self.errorCode = errorCode
    self.lastCommandAgeMilliseconds = lastCommandAgeMilliseconds
    self.batteryMillivolts = batteryMillivolts
    self.reserved = reserved
  }
}

/// msg_type values.
public enum LegCtrlMsgType {
  public static let arm: UInt8 = 0x01
  public static let disarm: UInt8 = 0x02
  public static let setServoCh0: UInt8 = 0x03
  public static let ping: UInt8 = 0x04
  public static let telemetry: UInt8 = 0x10
}
