import PacketKit

/// The firmware living through a stretch of the capture one way: its
/// state after each input and each tick of its 100 ms timer, and the
/// timeline events that says. The analysis runs one replay per way the
/// firmware may have gone (a tick before or after a write, an I²C failure
/// or a reconnect the capture cannot show) and keeps the one its telemetry
/// agrees with.
struct LegCtrlReplay {
  var firmware: LegCtrlFirmware
  private(set) var events: [DeviceEvent] = []
  /// Set once the replay rests on something uncertain (a deadman that may
  /// or may not have tripped, a link that may have been down): what
  /// follows is possible, not certain, until a DISARM or the link coming
  /// back makes every way agree again.
  var doubt = false
  /// The frame of the write that last refreshed the deadman.
  var lastRefreshFrame: Int?
  /// A servo pulse whose PWM write fails (a setting, like the recordings'
  /// injected I²C failure at 1234 µs).
  let failingPulse: Int?

  init(
    _ firmware: LegCtrlFirmware, doubt: Bool = false, failingPulse: Int? = nil, lastRefreshFrame: Int? = nil
  ) {
    self.firmware = firmware
    self.doubt = doubt
    self.failingPulse = failingPulse
    self.lastRefreshFrame = lastRefreshFrame
  }

  /// One write at its time. `pwmFails`: this servo command's I²C write
  /// fails (inferred from telemetry); `certain` false where the firmware
  /// may not have got it.
  mutating func write(frame: Int?, time: Double, bytes: [UInt8], pwmFails: Bool = false, certain: Bool = true)
  {
    let write = LegCtrlWrite(bytes)
    var fails = pwmFails
    if let failingPulse, case .servo(let pulse) = write,
      min(max(pulse, LegCtrlFirmware.pulseRange.lowerBound), LegCtrlFirmware.pulseRange.upperBound)
        == failingPulse
    {
      fails = true
    }
    let refreshedBefore = firmware.lastCommand
    let handling = firmware.take(write, at: time, pwmFails: fails)
    if firmware.lastCommand != refreshedBefore {
      lastRefreshFrame = firmware.lastCommand == nil ? nil : frame
    }
    if case .disarm = write, certain { doubt = false }
    append(time: time, frame: frame, name: handling.verdict.rawValue, certain: certain, text: handling.text)
    if handling.pwmFailed {
      append(
        time: time, frame: frame, name: "i2c_fault", certain: certain,
        text: "the PWM (I²C) write of \(firmware.pulse) µs failed: FAULT/I2C_FAULT")
    }
  }

  /// The deadman tripped on the tick at `time`.
  mutating func trip(at time: Double, certain: Bool, text: String) {
    firmware.tripDeadman()
    append(time: time, frame: nil, name: "deadman_timeout", certain: certain, text: text)
  }

  /// The link dropped (`frame` nil when inferred).
  mutating func disconnect(at time: Double, frame: Int?, certain: Bool = true, text: String) {
    firmware.disconnect()
    append(time: time, frame: frame, name: "disconnect", certain: certain, text: text)
  }

  /// The link came back: every way the firmware may have gone meets again.
  mutating func reconnect(at time: Double, frame: Int?, certain: Bool = true, text: String) {
    firmware.reconnect()
    if certain { doubt = false }
    append(time: time, frame: frame, name: "reconnect", certain: certain, text: text)
  }

  /// Everything so far was a guess after all.
  mutating func doubtAll() {
    for index in events.indices { events[index].certain = false }
  }

  /// An event of the firmware's own (telemetry), with its state now.
  mutating func append(
    time: Double, frame: Int?, name: String, certain: Bool, text: String, replies: [DeviceReply] = [],
    mismatch: String? = nil
  ) {
    events.append(
      DeviceEvent(
        time: time, frame: frame, name: name, certain: certain && !doubt, state: firmware.timelineState,
        text: text, replies: replies, mismatch: mismatch))
  }
}
