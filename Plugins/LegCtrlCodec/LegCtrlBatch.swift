/// The records since the last telemetry and the ways the firmware may have
/// lived through them: which of the writes just before the telemetry it had
/// taken when its timer fired, whether a servo command's I²C write failed,
/// whether the link dropped and came back. Each way is a replay; the
/// telemetry that ends the batch says which one happened.
struct LegCtrlBatch {
  /// The firmware when the batch starts, and whether that rests on
  /// something uncertain.
  var start: LegCtrlFirmware
  var startDoubt: Bool
  var inputs: [LegCtrlInput]
  /// The timer's ticks, when telemetry has shown them.
  var grid: LegCtrlTickGrid?
  /// Ticks up to this time were replayed before this batch.
  var ticksDone: Double
  /// The last telemetry before the batch: a tick after it that sent none
  /// was missed (the notification lost, or the link down).
  var lastReport: Double?
  var failingPulse: Int?
  /// The frame of the write that last refreshed the deadman before the batch.
  var lastRefreshFrame: Int?
  var lastReportFrame: Int?

  /// One way the firmware may have gone.
  struct Assumption {
    /// The inputs before this index were taken before the telemetry's tick,
    /// the rest after it (they travelled while the notification did).
    var split: Int
    /// This input, a servo command, failed its I²C write.
    var pwmFailure: Int?
    /// The link dropped at `down` and came back at `up`, unseen.
    var relink: (down: Double, up: Double)?
    /// A deadman check that may or may not have tripped did.
    var eagerTrips = false
    /// The telemetry's own tick trips the deadman exactly when the telemetry
    /// says it did (for a report nothing explains: the model follows it).
    var tickFollowsReport = false
  }

  /// What a replay predicts for the telemetry that ends the batch.
  struct Prediction {
    var replay: LegCtrlReplay
    /// The ages (ms) the report may carry.
    var ages: ClosedRange<Int>
    /// How far the report's age is from the no-latency prediction.
    var score: Double
    var agrees: Bool
    /// The deadman check at the telemetry's tick: certain, possible or not.
    var trip: Trip
  }

  enum Trip {
    case no, possible, certain
  }

  // MARK: Replaying

  /// The batch up to the telemetry at `time` under `assumption`, with the
  /// deadman check of that telemetry's tick, compared with `report`.
  func predict(_ report: LegCtrlReport, frame: Int?, at time: Double, _ assumption: Assumption) -> Prediction
  {
    var run = Run(batch: self, assumption: assumption, reportTime: time)
    run.reportFrame = frame
    let split = min(assumption.split, inputs.count)
    for index in 0..<split { run.input(index) }
    // Each write and the notification wait up to a connection interval on
    // their own, so the firmware's tick fell somewhere in the last
    // `linkLatency` before the telemetry was captured, whichever writes it
    // had taken by then.
    let low = time - LegCtrlTiming.linkLatency
    let high = time
    run.relinkDue(until: high)
    run.ticks(until: min(time - LegCtrlTiming.tickGrace, low), closing: false)
    return run.observedTick(report, low: low, high: high)
  }

  /// The inputs from `split` on, taken after the telemetry's tick.
  func finish(_ replay: inout LegCtrlReplay, _ assumption: Assumption, reportTime: Double) {
    var run = Run(batch: self, assumption: assumption, reportTime: reportTime)
    run.replay = replay
    run.cursor = reportTime
    run.linkDown = true
    run.linkBack = true
    for index in min(assumption.split, inputs.count)..<inputs.count { run.input(index) }
    replay = run.replay
  }

  /// The batch with no telemetry to end it, up to `horizon`: ticks without
  /// a notification are missed, so what they did is uncertain.
  func replay(until horizon: Double) -> LegCtrlReplay {
    var run = Run(batch: self, assumption: Assumption(split: inputs.count), reportTime: nil)
    for index in inputs.indices { run.input(index) }
    run.ticks(until: horizon, closing: false)
    return run.replay
  }

  /// The first tick after the last telemetry that sent none, and the last
  /// before `limit`.
  func missedTicks(before limit: Double) -> (first: Double, last: Double)? {
    guard let grid, let lastReport else { return nil }
    let first = grid.first(atOrAfter: lastReport + LegCtrlTiming.tickGrace)
    let last = grid.last(atOrBefore: limit)
    return first <= last ? (first, last) : nil
  }

  /// One replay in progress.
  private struct Run {
    let batch: LegCtrlBatch
    let assumption: Assumption
    /// The telemetry's time, or nil for a batch that no telemetry ends.
    let reportTime: Double?
    var replay: LegCtrlReplay
    /// Ticks up to here are done.
    var cursor: Double
    var linkDown = false
    var linkBack = false
    var reportFrame: Int?
    /// The first tick that sent no telemetry: from it on the link may be down.
    let firstMissed: Double?

    init(batch: LegCtrlBatch, assumption: Assumption, reportTime: Double?) {
      self.batch = batch
      self.assumption = assumption
      self.reportTime = reportTime
      replay = LegCtrlReplay(
        batch.start, doubt: batch.startDoubt, failingPulse: batch.failingPulse,
        lastRefreshFrame: batch.lastRefreshFrame)
      cursor = batch.ticksDone
      let limit = (reportTime.map { $0 - LegCtrlTiming.tickGrace }) ?? .infinity
      firstMissed = batch.missedTicks(before: limit)?.first
    }

    mutating func input(_ index: Int) {
      let input = batch.inputs[index]
      relinkDue(until: input.time)
      ticks(until: input.time, closing: true)
      switch input.kind {
      case .write(let bytes):
        replay.write(
          frame: input.frame, time: input.time, bytes: bytes, pwmFails: assumption.pwmFailure == index,
          certain: mayHaveArrived(input.time))
      case .linkDown:
        replay.disconnect(at: input.time, frame: input.frame, text: "the BLE link dropped: servo output off")
      case .linkUp:
        replay.reconnect(at: input.time, frame: input.frame, text: "the BLE link is up: DISARMED, error NONE")
      }
    }

    /// Whether the firmware surely got a write made at `time`: not when
    /// the link may have been down then.
    private func mayHaveArrived(_ time: Double) -> Bool {
      if let relink = assumption.relink { return time > relink.up }
      if reportTime == nil, let firstMissed { return time < firstMissed }
      return true
    }

    /// The unseen drop and return of the link, once their time has come.
    mutating func relinkDue(until time: Double) {
      guard let relink = assumption.relink else { return }
      let after = batch.lastReportFrame.map { ": no telemetry after frame \($0)" } ?? ""
      let reported = reportFrame.map { " from telemetry frame \($0)" } ?? ""
      if !linkDown, relink.down <= time {
        linkDown = true
        ticks(until: relink.down, closing: false)
        replay.disconnect(
          at: relink.down, frame: nil,
          text: "the BLE link dropped (inferred\(after)): servo output off")
      }
      if !linkBack, relink.up <= time {
        linkBack = true
        ticks(until: relink.up, closing: false)
        replay.reconnect(
          at: relink.up, frame: nil,
          text: "the BLE link came back (inferred\(reported)): DISARMED, error NONE, age 0")
      }
    }

    /// The timer's deadman checks before `limit`. `closing`: a write comes
    /// at `limit`, which ends a window the deadman may have tripped in.
    mutating func ticks(until limit: Double, closing: Bool) {
      defer { cursor = max(cursor, limit) }
      guard limit > cursor, replay.firmware.state == .armed, replay.firmware.connected,
        let last = replay.firmware.lastCommand
      else { return }
      guard let grid = batch.grid else {
        phaseUnknownWindow(last: last, until: limit, closing: closing)
        return
      }
      let slack = LegCtrlTiming.clockSlackMilliseconds / 1000
      var tick = grid.first(atOrAfter: max(cursor + 1e-6, last + 0.2 - slack))
      // The deadman is certain within four ticks of the first that may trip it.
      for _ in 0..<5 where tick < limit {
        let high = (tick - last) * 1000
        let low = high - LegCtrlTiming.linkLatency * 1000
        let deadman = Double(LegCtrlFirmware.deadmanMilliseconds)
        if low - LegCtrlTiming.clockSlackMilliseconds >= deadman {
          replay.trip(
            at: tick, certain: reportTime != nil, text: tripText(ageMilliseconds: high, certain: true))
          return
        }
        if high + LegCtrlTiming.clockSlackMilliseconds >= deadman, assumption.eagerTrips {
          replay.trip(at: tick, certain: false, text: tripText(ageMilliseconds: high, certain: false))
          return
        }
        tick += LegCtrlTiming.tick
      }
    }

    /// Without telemetry the timer's phase is unknown: the deadman trips
    /// on the first tick 200–300 ms after the last valid command.
    private mutating func phaseUnknownWindow(last: Double, until limit: Double, closing: Bool) {
      let opens = last + 0.2
      let closes = last + 0.3
      if limit >= closes + LegCtrlTiming.windowSlack {
        replay.trip(
          at: last + 0.25, certain: true,
          text: tripText(ageMilliseconds: 250, certain: true, window: true))
      } else if closing, limit > opens {
        // The next write came while a tick may or may not have fallen in
        // the window: follow the likelier way, and doubt what follows.
        if (limit - opens) / LegCtrlTiming.tick >= 0.5 {
          replay.trip(
            at: (opens + limit) / 2, certain: false,
            text: tripText(ageMilliseconds: (limit - last) * 1000, certain: false, window: true))
        }
        replay.doubt = true
      }
    }

    private func tripText(ageMilliseconds: Double, certain: Bool, window: Bool = false) -> String {
      let frame = replay.lastRefreshFrame.map { " (last at frame \($0))" } ?? ""
      let age =
        window || !ageMilliseconds.isFinite ? "200–300 ms" : "\(Int(ageMilliseconds.rounded(.down))) ms"
      return (certain ? "deadman" : "deadman may have tripped")
        + ": no valid command for \(age) while ARMED\(frame) → FAULT/DEADMAN_TIMEOUT, servo output off"
    }

    /// The telemetry's tick: its deadman check, then the report, which
    /// shows the firmware at some instant in [low, high].
    mutating func observedTick(_ report: LegCtrlReport, low: Double, high: Double) -> Prediction {
      cursor = max(cursor, high)
      var firmware = replay.firmware
      var trip = Trip.no
      var ages = 0...0
      var score = Double(report.ageMilliseconds)
      let slack = LegCtrlTiming.clockSlackMilliseconds
      if let last = firmware.lastCommand {
        let lowAge = (low - last) * 1000
        let highAge = (high - last) * 1000
        if firmware.state == .armed, firmware.connected {
          let deadman = Double(LegCtrlFirmware.deadmanMilliseconds)
          if lowAge - slack >= deadman {
            trip = .certain
          } else if highAge + slack >= deadman {
            trip = .possible
          }
        }
        let youngest = Self.milliseconds((lowAge - slack).rounded(.down))
        let oldest = Self.milliseconds((highAge + slack).rounded(.up))
        ages = min(youngest, oldest)...oldest
        score = abs(Double(report.ageMilliseconds) - min(highAge, 65535))
      }
      let reportsDeadman =
        report.state == LegCtrlFirmware.State.fault.rawValue
        && report.errorCode == LegCtrlFirmware.ErrorCode.deadmanTimeout.rawValue
      let trips =
        assumption.tickFollowsReport
        ? reportsDeadman && trip != .no : trip == .certain || (trip == .possible && reportsDeadman)
      if trips {
        let age = (high - (firmware.lastCommand ?? high)) * 1000
        replay.trip(at: high, certain: true, text: tripText(ageMilliseconds: age, certain: true))
        firmware = replay.firmware
      }
      return Prediction(
        replay: replay, ages: ages, score: score, agrees: firmware.agrees(with: report, ages: ages),
        trip: trip)
    }

    /// An age as the firmware reports it: 0…65535.
    private static func milliseconds(_ value: Double) -> Int {
      value.isFinite ? Int(min(max(value, 0), 65535)) : 65535
    }
  }
}
