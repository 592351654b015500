import PacketKit

/// Being the firmware on a socket: it takes writes as they come and runs
/// its own 100 ms timer from the first one (the link and its notifications
/// come up with the app's first write): each tick checks the deadman, then
/// sends telemetry. Writes get no answer, as over BLE.
///
/// The real timer runs from boot, out of phase with the app. Apps write on
/// a 20, 50 or 100 ms grid from their first write, so a tick in phase
/// with it would race a write on every tick, and scheduling would decide
/// the deadman; `firstTickDelay` keeps ticks clear of those grids.
struct LegCtrlEmulation {
  private var firmware = LegCtrlFirmware()
  private var lastRefreshFrame: Int?
  private var nextTick: Double?
  /// As far from a write grid as can be: 10 ms clear of a 20 ms grid, 20 ms
  /// of a 50 ms one, 30 ms of a 100 ms one.
  static let firstTickDelay = 0.030
  let batteryMillivolts: UInt16
  let failingPulse: Int?

  init(batteryMillivolts: UInt16, failingPulse: Int?) {
    self.batteryMillivolts = batteryMillivolts
    self.failingPulse = failingPulse
  }

  mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    guard heading == .toDevice, message.event == nil else { return [] }
    var events = advance(to: message.time)
    if nextTick == nil { nextTick = message.time + Self.firstTickDelay }
    var replay = LegCtrlReplay(firmware, failingPulse: failingPulse, lastRefreshFrame: lastRefreshFrame)
    replay.write(frame: message.frame, time: message.time, bytes: message.payload)
    firmware = replay.firmware
    lastRefreshFrame = replay.lastRefreshFrame
    events += replay.events
    return events
  }

  mutating func advance(to time: Double) -> [DeviceEvent] {
    var replay = LegCtrlReplay(firmware, failingPulse: failingPulse, lastRefreshFrame: lastRefreshFrame)
    // Behind by more than a second (the process was stopped, the clock
    // jumped): the ticks missed meanwhile sent nothing anyone got.
    if let tick = nextTick, time - tick > 1 {
      nextTick = tick + ((time - tick - 1) / LegCtrlTiming.tick).rounded(.down) * LegCtrlTiming.tick
    }
    while let tick = nextTick, tick <= time {
      if replay.firmware.deadmanDue(at: tick) {
        replay.trip(
          at: tick, certain: true,
          text: "deadman: no valid command for \(replay.firmware.age(at: tick)) ms while ARMED"
            + "\(lastRefreshFrame.map { " (last at frame \($0))" } ?? "") → FAULT/DEADMAN_TIMEOUT, servo output off"
        )
      }
      let bytes = replay.firmware.telemetry(at: tick, batteryMillivolts: batteryMillivolts)
      let report = LegCtrlReport(bytes)
      replay.append(
        time: tick, frame: nil, name: "telemetry", certain: true,
        text: (report?.text ?? "") + ", battery_mv \(batteryMillivolts)", replies: [.send(bytes)])
      nextTick = tick + LegCtrlTiming.tick
    }
    firmware = replay.firmware
    return replay.events
  }

  var nextDeadline: Double? { nextTick }
}
