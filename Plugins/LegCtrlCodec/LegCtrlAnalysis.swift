import PacketKit

/// The firmware predicted from a capture. Commands are held until the next
/// telemetry (at most `LegCtrlTiming.hold`): its tick says when the deadman
/// was checked, and its state, error_code and last_cmd_age_ms say which way
/// the firmware went where the capture cannot tell (a write that crossed
/// the notification, an I²C failure, the link dropping and coming back).
/// A report no such way explains is a mismatch.
struct LegCtrlAnalysis {
  private var committed = LegCtrlFirmware()
  /// The committed state rests on something uncertain: events from it are
  /// possibilities.
  private var doubt = false
  /// The committed state is assumed, not confirmed by the firmware (the
  /// capture's start, a stretch without telemetry): a report that
  /// disagrees is taken as it is.
  private var assumed = true
  private var lastRefreshFrame: Int?
  private var pending: [LegCtrlInput] = []
  /// The timer's ticks, once a telemetry has shown one.
  private var grid: LegCtrlTickGrid?
  private var ticksDone = -Double.infinity
  private var lastReport: Double?
  private var lastReportFrame: Int?
  /// The latest time the capture has shown.
  private var now = -Double.infinity
  /// The last mismatch said, so a firmware that keeps disagreeing the same
  /// way is reported once per episode.
  private var lastMismatch: String?
  let failingPulse: Int?

  init(failingPulse: Int?) {
    self.failingPulse = failingPulse
  }

  // MARK: DeviceModel

  mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    now = max(now, message.time)
    if let event = message.eventName {
      guard event.hasPrefix("ble.") else { return [] }
      if event.hasSuffix("disconnected") || event.hasSuffix("disconnect") {
        pending.append(LegCtrlInput(frame: message.frame, time: message.time, kind: .linkDown))
      } else if event.hasSuffix("connected") || event.hasSuffix("connect") {
        pending.append(LegCtrlInput(frame: message.frame, time: message.time, kind: .linkUp))
      }
      return overflow()
    }
    switch heading {
    case .toDevice:
      pending.append(LegCtrlInput(frame: message.frame, time: message.time, kind: .write(message.payload)))
      return overflow()
    case .fromDevice:
      guard let report = LegCtrlReport(message.payload) else { return [] }
      return resolve(report, frame: message.frame, time: message.time)
    }
  }

  mutating func advance(to time: Double) -> [DeviceEvent] {
    now = max(now, time)
    guard let deadline = nextDeadline, deadline <= time else { return [] }
    return flush(until: grid == nil ? time : time - LegCtrlTiming.tickGrace)
  }

  var nextDeadline: Double? {
    var deadline = pending.first.map { $0.time + LegCtrlTiming.hold }
    if pending.isEmpty, committed.state == .armed, committed.connected, let last = committed.lastCommand {
      // An ARMED firmware trips unless a command comes: without telemetry
      // once the window has surely passed; with it, once telemetry is overdue.
      let due =
        grid == nil
        ? last + 0.3 + LegCtrlTiming.windowSlack
        : max((lastReport ?? last) + LegCtrlTiming.tick + LegCtrlTiming.hold, ticksDone + LegCtrlTiming.tick)
      deadline = min(deadline ?? due, due)
    }
    return deadline
  }

  mutating func finish(end: Double?) -> [DeviceEvent] {
    stopWatching(at: end ?? now, until: "the capture's end")
  }

  /// A stretch the capture missed: what is held is predicted up to it, an
  /// ARMED firmware may have tripped in it (or been kept alive unseen), and
  /// after it the firmware is whatever its next report says.
  mutating func unobserved(from: Double, to: Double) -> [DeviceEvent] {
    let events = stopWatching(
      at: from, until: "a gap in the capture (\(Format.duration(to - from)) not captured)")
    assumed = true
    grid = nil
    lastReport = nil
    lastReportFrame = nil
    now = max(now, to)
    ticksDone = max(ticksDone, to)
    return events
  }

  /// Predicts what is held up to `horizon`, where watching stops; an ARMED
  /// firmware then trips unless a command nobody saw came.
  private mutating func stopWatching(at horizon: Double, until what: String) -> [DeviceEvent] {
    var events = flush(until: grid == nil ? horizon : horizon - LegCtrlTiming.tickGrace)
    guard committed.state == .armed, committed.connected, let last = committed.lastCommand else {
      return events
    }
    // After the capture: with no further command the firmware trips on the
    // first tick 200 ms after the last one; nobody saw whether one came.
    let time: Double
    if let grid {
      time = grid.first(atOrAfter: max(ticksDone + 1e-6, last + 0.2))
    } else {
      time = last + 0.25
    }
    var replay = LegCtrlReplay(
      committed, doubt: doubt, failingPulse: failingPulse, lastRefreshFrame: lastRefreshFrame)
    let frame = lastRefreshFrame.map { " after frame \($0)" } ?? ""
    replay.trip(
      at: time, certain: false,
      text: "deadman: no valid command\(frame) while ARMED up to \(what); "
        + "with none after it the firmware trips \(grid == nil ? "200–300 ms" : "on its first tick 200 ms") "
        + "after the last → FAULT/DEADMAN_TIMEOUT, servo output off")
    committed = replay.firmware
    events += replay.events
    return events
  }

  // MARK: Batches

  private func batch(grid: LegCtrlTickGrid?) -> LegCtrlBatch {
    LegCtrlBatch(
      start: committed, startDoubt: doubt, inputs: pending, grid: grid, ticksDone: ticksDone,
      lastReport: lastReport, failingPulse: failingPulse, lastRefreshFrame: lastRefreshFrame,
      lastReportFrame: lastReportFrame)
  }

  /// Too many records wait: predict them without telemetry.
  private mutating func overflow() -> [DeviceEvent] {
    pending.count > LegCtrlTiming.pendingLimit ? flush(until: now) : []
  }

  /// What is held, predicted up to `horizon` with no telemetry to confirm
  /// it: ticks that sent none leave the firmware uncertain.
  private mutating func flush(until horizon: Double) -> [DeviceEvent] {
    guard !pending.isEmpty || committed.state == .armed else {
      ticksDone = max(ticksDone, horizon)
      return []
    }
    let batch = batch(grid: grid)
    let replay = batch.replay(until: horizon)
    let missed = batch.missedTicks(before: horizon) != nil
    commit(replay)
    if missed {
      doubt = true
      assumed = true
    }
    ticksDone = max(ticksDone, horizon)
    return replay.events
  }

  private mutating func commit(_ replay: LegCtrlReplay) {
    committed = replay.firmware
    doubt = replay.doubt
    lastRefreshFrame = replay.lastRefreshFrame
    pending = []
  }

  // MARK: Telemetry

  /// A telemetry at `time`: its tick ends the batch. Try the ways the
  /// firmware may have gone, plainest first, and keep the one it reports.
  private mutating func resolve(_ report: LegCtrlReport, frame: Int?, time: Double) -> [DeviceEvent] {
    let batch = batch(grid: LegCtrlTickGrid(phase: time))
    let splits = Self.splits(pending, before: time)
    var chosen: (prediction: LegCtrlBatch.Prediction, assumption: LegCtrlBatch.Assumption, note: String)?
    var uniquely = true

    /// The best of `assumptions` the report agrees with, and which servo
    /// commands' I²C failures did.
    func consider(_ assumptions: [LegCtrlBatch.Assumption], note: String) -> Set<Int> {
      var failures: Set<Int> = []
      for assumption in assumptions {
        let prediction = batch.predict(report, frame: frame, at: time, assumption)
        guard prediction.agrees else { continue }
        if let failure = assumption.pwmFailure { failures.insert(failure) }
        if let best = chosen, best.prediction.score <= prediction.score { continue }
        chosen = (prediction, assumption, note)
      }
      return failures
    }

    _ = consider(
      splits.flatMap { split in [false, true].map { LegCtrlBatch.Assumption(split: split, eagerTrips: $0) } },
      note: "")
    if chosen == nil, report.errorCode == LegCtrlFirmware.ErrorCode.i2cFault.rawValue {
      // Only a servo command the report's age can point at: its time lies
      // that age before the telemetry, give or take the link's latency.
      let refreshed = time - Double(report.ageMilliseconds) / 1000
      let slack = LegCtrlTiming.clockSlackMilliseconds / 1000
      let servos = pending.indices.filter {
        guard case .write(let bytes) = pending[$0].kind, case .servo = LegCtrlWrite(bytes) else {
          return false
        }
        let at = pending[$0].time
        return at >= refreshed - LegCtrlTiming.linkLatency - slack && at <= refreshed + slack
      }
      let assumptions = splits.flatMap { split in
        servos.filter { $0 < split }.map { LegCtrlBatch.Assumption(split: split, pwmFailure: $0) }
      }
      uniquely = consider(assumptions, note: " (after an I²C failure the capture cannot show)").count <= 1
    }
    if chosen == nil {
      _ = consider(
        relinks(batch, splits: splits, before: time), note: " (after a reconnect the capture cannot show)")
    }

    var events: [DeviceEvent]
    if let chosen {
      var replay = chosen.prediction.replay
      // The report grounds the state again, whatever the batch rested on.
      replay.doubt = false
      var note = chosen.note
      if chosen.assumption.split < pending.count, let crossed = pending[chosen.assumption.split].frame {
        note += " (frame \(crossed) crossed this notification: the firmware took it after this tick)"
      }
      replay.append(time: time, frame: frame, name: "telemetry", certain: true, text: report.text + note)
      batch.finish(&replay, chosen.assumption, reportTime: time)
      events = replay.events
      if !uniquely {
        for index in events.indices where events[index].name == "i2c_fault" { events[index].certain = false }
      }
      commit(replay)
      lastMismatch = nil
    } else {
      events = unexplained(report, frame: frame, time: time, batch: batch)
    }
    assumed = false
    grid = LegCtrlTickGrid(phase: time)
    ticksDone = time + LegCtrlTiming.tickGrace
    lastReport = time
    lastReportFrame = frame
    return events
  }

  /// Where the telemetry's tick may have fallen among the last writes: after
  /// all of them, or before those sent within the link's latency of it.
  private static func splits(_ inputs: [LegCtrlInput], before time: Double) -> [Int] {
    var splits = [inputs.count]
    var index = inputs.count
    // At 50 Hz three writes fit in the latency; a flood is cut at eight.
    while index > 0, splits.count < 9, inputs[index - 1].time > time - LegCtrlTiming.linkLatency {
      index -= 1
      splits.append(index)
    }
    return splits
  }

  /// The link dropped and came back unseen. Telemetry stops while it is
  /// down, so the drop came before the first tick that sent none and the
  /// return after the last; without a missed tick, anywhere in the batch.
  /// Each is put halfway through the stretch it may have fallen in.
  private func relinks(_ batch: LegCtrlBatch, splits: [Int], before time: Double) -> [LegCtrlBatch.Assumption]
  {
    let limit = time - LegCtrlTiming.tickGrace
    let missed = batch.missedTicks(before: limit)
    var assumptions: [LegCtrlBatch.Assumption] = []
    for split in splits {
      let tickTime = split < pending.count ? pending[split].time : time
      let inputs = pending.prefix(split).map(\.time)
      // The stretches between consecutive records (and the missed ticks).
      var from = lastReport ?? (inputs.first.map { $0 - LegCtrlTiming.tick } ?? time - LegCtrlTiming.tick)
      var down: Double?
      if let missed {
        let before = inputs.filter { $0 < missed.first }.max() ?? from
        down = (max(before, from) + missed.first) / 2
        from = missed.last
      }
      var ups: [Double] = []
      for next in inputs.filter({ $0 > from }) + [tickTime] {
        ups.append((from + next) / 2)
        from = next
      }
      // The latest stretches only: a flood of writes is not searched through.
      for up in ups.suffix(16) where up < tickTime {
        assumptions.append(LegCtrlBatch.Assumption(split: split, relink: (min(down ?? up, up), up)))
      }
    }
    return assumptions
  }

  /// A report no way explains. An I²C failure the firmware reports, or a
  /// state the capture's start left unknown, is taken as the firmware says;
  /// anything else is a mismatch. Either way the model follows the report.
  private mutating func unexplained(
    _ report: LegCtrlReport, frame: Int?, time: Double, batch: LegCtrlBatch
  ) -> [DeviceEvent] {
    var assumption = LegCtrlBatch.Assumption(split: pending.count)
    let prediction = batch.predict(report, frame: frame, at: time, assumption)
    let predicted = prediction.replay.firmware
    assumption.tickFollowsReport = true
    var replay = batch.predict(report, frame: frame, at: time, assumption).replay
    var mismatch: String?
    var note = ""
    if report.state == LegCtrlFirmware.State.fault.rawValue,
      report.errorCode == LegCtrlFirmware.ErrorCode.i2cFault.rawValue
    {
      replay.firmware = Self.adopt(report, into: replay.firmware, at: time)
      replay.append(
        time: time, frame: nil, name: "i2c_fault", certain: true,
        text:
          "the firmware reports FAULT/I2C_FAULT: a PWM (I²C) write failed that no servo command here explains"
      )
    } else if assumed {
      // What the batch said rested on a state the firmware now contradicts.
      note = " (taken as the firmware's state: what came before was not known)"
      replay.firmware = Self.adopt(report, into: replay.firmware, at: time)
      replay.doubtAll()
    } else {
      let said = Self.reason(report, predicted: predicted, prediction: prediction)
      let key = "\(report.state)/\(report.errorCode)|\(predicted.summary)"
      if key != lastMismatch {
        mismatch =
          "telemetry\(frame.map { " frame \($0)" } ?? "") reports \(report.text); the model predicted "
          + "\(predicted.summary), last_cmd_age_ms \(Self.range(prediction.ages))\(said)"
      }
      lastMismatch = key
      replay.firmware = Self.adopt(report, into: replay.firmware, at: time)
    }
    replay.doubt = false
    replay.append(
      time: time, frame: frame, name: "telemetry", certain: true, text: report.text + note, mismatch: mismatch
    )
    batch.finish(&replay, assumption, reportTime: time)
    commit(replay)
    return replay.events
  }

  private static func reason(
    _ report: LegCtrlReport, predicted: LegCtrlFirmware, prediction: LegCtrlBatch.Prediction
  ) -> String {
    if report.state == predicted.state.rawValue, report.errorCode == predicted.error.rawValue {
      if prediction.ages == 0...0 {
        return
          ": the firmware counts a command where §5's reports 0 (none since start-up, DISARM or a reconnect)"
      }
      return report.ageMilliseconds > prediction.ages.upperBound
        ? ": its last valid command is older than the capture's (it did not get or did not take it)"
        : ": its last valid command is younger than any the capture shows it taking"
    }
    if prediction.trip == .certain, report.state == LegCtrlFirmware.State.armed.rawValue {
      return ": the deadman should have tripped"
    }
    if prediction.trip == .no, report.state == LegCtrlFirmware.State.fault.rawValue,
      report.errorCode == LegCtrlFirmware.ErrorCode.deadmanTimeout.rawValue
    {
      return
        ": the deadman tripped although the capture shows valid commands in time (the firmware did not get them)"
    }
    return ""
  }

  private static func range(_ ages: ClosedRange<Int>) -> String {
    ages.lowerBound == ages.upperBound ? "\(ages.lowerBound)" : "\(ages.lowerBound)–\(ages.upperBound)"
  }

  /// The model takes the firmware's report as its state.
  static func adopt(_ report: LegCtrlReport, into firmware: LegCtrlFirmware, at time: Double)
    -> LegCtrlFirmware
  {
    var adopted = firmware
    if let state = LegCtrlFirmware.State(rawValue: report.state) { adopted.state = state }
    if let error = LegCtrlFirmware.ErrorCode(rawValue: report.errorCode) { adopted.error = error }
    if report.ageMilliseconds == 0 {
      adopted.lastCommand = adopted.state == .armed ? time : nil
    } else {
      adopted.lastCommand = time - Double(report.ageMilliseconds) / 1000
    }
    if adopted.error == .deadmanTimeout, adopted.state == .fault, firmware.state != .fault {
      adopted.pulse = 0
    }
    adopted.connected = true
    return adopted
  }
}
