import PacketKit

/// The LegCtrl firmware's state machine as its own code runs it
/// (docs/protocols.md §5, checked against the logs in device-truth/legctrl):
/// state, error_code, the time of the last command that refreshed the
/// deadman, the servo output and the link. Times are seconds on one clock;
/// the firmware counts whole milliseconds, and so does `age(at:)`.
struct LegCtrlFirmware: Sendable, Equatable {
  enum State: UInt8, Sendable {
    case disarmed = 0
    case armed = 1
    case fault = 2

    var name: String { LegCtrlSchema.stateName(rawValue)?.description ?? "unknown" }
  }

  enum ErrorCode: UInt8, Sendable {
    case none = 0
    case deadmanTimeout = 1
    case lowBattery = 2
    case i2cFault = 3
    case invalidCommand = 4
    case unknown = 0xFF

    var name: String { LegCtrlSchema.errorCodeName(rawValue)?.description ?? "unknown" }
  }

  /// What the firmware did with one write.
  struct Handling: Sendable, Equatable {
    enum Verdict: String, Sendable {
      case executed, ignored, rejected
    }

    var verdict: Verdict
    /// A few words for people: "servo 3000 µs clamped to 2500 µs".
    var text: String
    /// The pulse a servo command asked for when the firmware clamped it
    /// (the firmware's `pulse` is what it put out).
    var clampedFrom: Int?
    /// The PWM (I²C) write of this servo command failed: FAULT / I2C_FAULT.
    var pwmFailed = false
  }

  /// No valid command for this long while ARMED trips the deadman.
  static let deadmanMilliseconds = 200
  /// The telemetry timer's period: the deadman check, then a notification.
  static let tickSeconds = 0.1
  /// The servo channel's pulse from start-up, before any command.
  static let startupPulse = 1500
  static let pulseRange = 500...2500

  var state = State.disarmed
  var error = ErrorCode.none
  /// When a command last refreshed the deadman (ARM from DISARMED, a servo
  /// command or PING in ARMED); nil before any, after DISARM and after a
  /// reconnect, when the firmware reports age 0.
  var lastCommand: Double?
  /// The servo channel's pulse in µs; 0 when the output is off.
  var pulse = LegCtrlFirmware.startupPulse
  /// Whether the BLE link is up (telemetry is only sent then).
  var connected = true

  /// last_cmd_age_ms at `time`: whole milliseconds, 0 without a command,
  /// saturating at 65535.
  func age(at time: Double) -> Int {
    guard let lastCommand else { return 0 }
    // A hair over, so that 10.014 − 10 (13.999999… in binary) counts 14.
    let milliseconds = (time - lastCommand) * 1000 + 1e-6
    guard milliseconds.isFinite else { return 0xFFFF }
    return Int(min(max(milliseconds, 0), 65535).rounded(.down))
  }

  // MARK: Writes

  /// One write to the command characteristic at `time`. `pwmFails` makes
  /// the servo output's I²C write fail, as the PCA9685 can.
  mutating func take(_ write: LegCtrlWrite, at time: Double, pwmFails: Bool = false) -> Handling {
    switch write {
    case .rejected:
      return Handling(verdict: .rejected, text: "rejected: " + (write.rejectionText ?? "malformed"))
    case .arm(let payloadLength):
      let extra = Self.payloadNote(payloadLength)
      switch state {
      case .disarmed:
        state = .armed
        error = .none
        lastCommand = time
        return Handling(verdict: .executed, text: "ARM\(extra): DISARMED → ARMED")
      case .armed:
        return Handling(verdict: .executed, text: "ARM\(extra) while ARMED: no change")
      case .fault:
        return Handling(verdict: .ignored, text: "ARM\(extra) refused in FAULT: DISARM first")
      }
    case .disarm(let payloadLength):
      let from = state
      state = .disarmed
      error = .none
      lastCommand = nil
      pulse = 0
      return Handling(
        verdict: .executed,
        text: "DISARM\(Self.payloadNote(payloadLength)): \(from.name) → DISARMED, servo output off")
    case .servo(let requested):
      guard state == .armed else {
        return Handling(verdict: .ignored, text: "servo \(requested) µs ignored: not ARMED (\(state.name))")
      }
      lastCommand = time
      let applied = min(max(requested, Self.pulseRange.lowerBound), Self.pulseRange.upperBound)
      pulse = applied
      var handling = Handling(
        verdict: .executed,
        text: applied == requested ? "servo \(applied) µs" : "servo \(requested) µs clamped to \(applied) µs",
        clampedFrom: applied == requested ? nil : requested)
      if pwmFails {
        state = .fault
        error = .i2cFault
        handling.pwmFailed = true
        handling.text += ": the PWM (I²C) write failed → FAULT/I2C_FAULT"
      }
      return handling
    case .servoBadLength(let payloadLength):
      return Handling(
        verdict: .ignored, text: "SET_SERVO_CH0 with payload_len \(payloadLength) ignored: it needs exactly 2"
      )
    case .ping(let payloadLength):
      let extra = Self.payloadNote(payloadLength)
      guard state == .armed else {
        return Handling(verdict: .executed, text: "PING\(extra) in \(state.name): no effect")
      }
      lastCommand = time
      return Handling(verdict: .executed, text: "PING\(extra): deadman refreshed")
    case .unknown:
      error = .invalidCommand
      return Handling(verdict: .ignored, text: "unknown command (\(write.name)): error_code INVALID_CMD")
    }
  }

  /// " with a 2-byte payload" for a command that takes none: the firmware
  /// runs it all the same.
  private static func payloadNote(_ length: Int) -> String {
    length == 0 ? "" : " with a \(length)-byte payload"
  }

  // MARK: The 100 ms timer

  /// Whether the deadman check at `time` trips: ARMED and age ≥ 200 ms.
  func deadmanDue(at time: Double) -> Bool {
    state == .armed && lastCommand != nil && age(at: time) >= Self.deadmanMilliseconds
  }

  /// The deadman tripped: FAULT / DEADMAN_TIMEOUT, servo output off.
  mutating func tripDeadman() {
    state = .fault
    error = .deadmanTimeout
    pulse = 0
  }

  /// The TELEMETRY notification the timer sends at `time`.
  func telemetry(at time: Double, batteryMillivolts: UInt16) -> [UInt8] {
    let age = UInt16(age(at: time))
    return [
      1, LegCtrlMsgType.telemetry, 8, 0, state.rawValue, error.rawValue, UInt8(age & 0xFF), UInt8(age >> 8),
      UInt8(batteryMillivolts & 0xFF), UInt8(batteryMillivolts >> 8), 0, 0,
    ]
  }

  // MARK: The link

  /// The BLE link dropped: FAULT with error NONE, servo output off,
  /// telemetry stops.
  mutating func disconnect() {
    state = .fault
    error = .none
    pulse = 0
    connected = false
  }

  /// The link came back: DISARMED, error NONE, age 0; the output stays off.
  mutating func reconnect() {
    state = .disarmed
    error = .none
    lastCommand = nil
    connected = true
  }

  // MARK: Reports

  /// The timeline's `state` object.
  var timelineState: [FieldValue.Member] {
    [
      .init("state", .string(state.name)), .init("error_code", .string(error.name)),
      .init("pulse_us", .integer(Int64(pulse))),
    ]
  }

  /// "ARMED/NONE".
  var summary: String { "\(state.name)/\(error.name)" }

  /// Whether the firmware's report agrees with this state: same state and
  /// error_code, and an age in `ages` (milliseconds).
  func agrees(with report: LegCtrlReport, ages: ClosedRange<Int>) -> Bool {
    report.state == state.rawValue && report.errorCode == error.rawValue
      && ages.contains(report.ageMilliseconds)
  }
}
