import PacketKit

/// Rider's findings: what the robot did with the app's datagrams, as its
/// model says (watchdog stops, datagrams it ignored while its motors ran
/// on, values that ran it at full speed), and what the traffic shows about
/// the app (its 20 Hz rate, values beyond ±100, timestamps that step back
/// or arrive late, a clock that differs from the capture's).
final class RiderRules: FlowRules {
  static let expected = ExpectedRate.hertz(20, text: "20 Hz", rule: "rider.rate")
  static let limit = 100.0
  /// A command this much later than the flow's quickest is stale: five
  /// command periods of input the robot acts on late.
  static let staleAfter = 0.25
  /// Different reasons named in one finding about ignored datagrams.
  static let reasonsShown = 3
  /// Senders remembered, for naming them when there are several.
  static let sendersKept = 16
  /// Senders whose clocks are tracked at most.
  static let clocksKept = 64

  private struct Stamp {
    var frame: Int?
    var time: Double
  }

  /// One sender's clock as its timestamps show it (a class: updated in
  /// place for every command, its samples never copied).
  private final class SenderClock {
    static let samplesKept = 512
    var lastTimestamp: (frame: Int?, value: Double)?
    var quickestDelay: Double?
    var last: Stamp?
    /// One-way delays, thinned to every other one when full (bounded).
    var delays: [Double] = []
    var stride = 1
    var seen = 0

    func add(_ delay: Double) {
      seen += 1
      guard seen % stride == 0 else { return }
      delays.append(delay)
      if delays.count >= Self.samplesKept {
        delays = delays.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        stride *= 2
      }
    }

    var median: Double? {
      guard !delays.isEmpty else { return nil }
      return delays.sorted()[delays.count / 2]
    }
  }

  /// The robot's motors as its model last said, and the datagram that set them.
  private var motors = (left: 0, right: 0)
  private var lastApplied: Stamp?
  private var lastDatagram: Stamp?
  /// A watchdog stop waiting for the datagram that ends its silence.
  private var pendingStop: (event: DeviceEvent, after: Stamp, moving: Bool, motors: String)?
  /// Datagrams the robot ignored in a row, with the motors they kept running.
  private var ignored:
    (first: Stamp, last: Stamp, count: Int, reasons: [String], motors: String, moving: Bool, from: [String])?
  private var moveEpisode: (first: Stamp, count: Int)?
  /// Datagrams in a row whose NaN or Infinity ran the motors at full speed.
  private var fullSpeed: (first: Stamp, last: Stamp, count: Int, values: [String])?
  /// Per sender (every app reaching the robot has its own clock and
  /// sequence): the latest timestamp and the quickest one-way delay.
  private var clocks: [String: SenderClock] = [:]
  /// Senders in the order they came, for the clock findings, and the last one's.
  private var clockOrder: [String] = []
  private var recentClock: (key: String, clock: SenderClock)?
  /// Senders seen (up to a few), and who sent the datagram just read.
  private var senders: [String] = []
  private var sender: String?
  private var stops = 0
  private var possibleStops = 0
  private var ignoredCount = 0
  private var outOfRange = 0

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    guard message.codec == "rider", message.eventName == nil else { return }
    flow.setRoles(client: message.source, server: message.destination, clientRole: "app", serverRole: "robot")
    if message.source != sender {
      sender = message.source
      if let source = message.source, !senders.contains(source), senders.count < Self.sendersKept {
        senders.append(source)
      }
    }
    flow.count(
      "commands", direction: "app → robot", expected: Self.expected, frame: message.frame, time: message.time)
    if let kind = message.message {
      let named = Self.values(of: message, kind: kind)
      checkRange(named, kind: kind, message: message, flow: flow)
      if let timestamp = message.number("timestamp"), kind != "legacy" {
        checkTimestamp(timestamp, message: message, flow: flow)
      }
      noteMove(kind == "move" ? message : nil, flow: flow)
    }
    checkFullSpeed(message, flow: flow)
  }

  /// The robot's parser, not the codec's, decides; the model's events report it.
  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool {
    message.codec == "rider" && message.layerError == nil
  }

  func modelled(_ event: DeviceEvent, flow: any FlowContext) {
    let stamp = Stamp(frame: event.frame, time: event.time)
    let moving = motors.left != 0 || motors.right != 0
    var motorText: String { "left \(motors.left), right \(motors.right)" }
    switch event.name {
    case "applied", "ignored":
      if let pending = pendingStop { reportStop(pending, resume: stamp, flow: flow) }
      if event.name == "ignored" {
        ignoredCount += 1
        let reason = event.text.split(separator: ";").first.map(String.init) ?? event.text
        let from = sender.map { [$0] } ?? []
        if var run = ignored {
          run.last = stamp
          run.count += 1
          if run.reasons.count < Self.reasonsShown, !run.reasons.contains(reason) {
            run.reasons.append(reason)
          }
          if let sender, !run.from.contains(sender), run.from.count < Self.reasonsShown {
            run.from.append(sender)
          }
          ignored = run
        } else {
          ignored = (stamp, stamp, 1, [reason], motorText, moving, from)
        }
      } else {
        reportIgnored(until: stamp, flow: flow)
        lastApplied = stamp
      }
      lastDatagram = stamp
    case "watchdog_stop":
      reportIgnored(until: stamp, flow: flow)
      if let after = lastDatagram {
        pendingStop = (event, after, moving, motorText)
      }
    default:
      break
    }
    motors = (Self.motor(event, "left"), Self.motor(event, "right"))
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    reportIgnored(until: nil, flow: flow)
    reportFullSpeed(flow: flow)
    if let pending = pendingStop { reportStop(pending, resume: nil, flow: flow) }
    noteMove(nil, flow: flow)
    for key in clockOrder {
      guard let clock = clocks[key], let typical = clock.median, abs(typical) > 0.5, let last = clock.last
      else { continue }
      let who = clockOrder.count > 1 ? " (\(key))" : ""
      flow.report(
        Finding(
          "rider.clock-offset", .note, time: last.time, frame: last.frame,
          text: "the app's\(who) timestamps are \(Format.duration(abs(typical))) "
            + (typical > 0 ? "behind" : "ahead of") + " the capture clock (median); "
            + "the clocks differ, so delays are only comparable with each other",
          details: [.init("median_delay_s", .number(typical))]))
    }
  }

  func facts() -> [FieldValue.Member] {
    [
      .init("watchdog_stops", .integer(Int64(stops))),
      .init("possible_watchdog_stops", .integer(Int64(possibleStops))),
      .init("ignored_datagrams", .integer(Int64(ignoredCount))),
      .init("out_of_range_commands", .integer(Int64(outOfRange))),
      .init(
        "final_motors",
        .object([.init("left", .integer(Int64(motors.left))), .init("right", .integer(Int64(motors.right)))])),
    ]
  }

  // MARK: What the robot did

  private func reportStop(
    _ pending: (event: DeviceEvent, after: Stamp, moving: Bool, motors: String), resume: Stamp?,
    flow: any FlowContext
  ) {
    pendingStop = nil
    let certain = pending.event.certain
    // An unknown end of capture: the stop is a guess about time nobody recorded.
    guard resume != nil || certain || flow.captureEndRecorded else { return }
    if certain { stops += 1 } else { possibleStops += 1 }
    let silence = (resume?.time ?? pending.event.time) - pending.after.time
    let after = "frame \(pending.after.frame.map(String.init) ?? "?")"
    let state =
      pending.moving
      ? "while driving (\(pending.motors))"
      : "while standing still (\(pending.motors)): the motors were already stopped"
    let stopAt = Format.offset(pending.event.time, from: flow.origin)
    let text: String
    let rule: String
    var severity: Finding.Severity
    if let resume {
      rule = certain ? "rider.watchdog-gap" : "rider.watchdog-maybe"
      text =
        (certain
          ? "the robot's watchdog stopped the motors at \(stopAt): no datagram for "
            + "\(Format.duration(silence)) after \(after) \(state)"
          : "the robot may have stopped (gap \(Format.duration(silence)) after \(after) \(state); "
            + "its watchdog polls every 100 ms and stops after 1.0 s)")
        + "; datagrams resumed at frame \(resume.frame.map(String.init) ?? "?")"
      severity = pending.moving ? (certain ? .error : .warning) : .note
    } else {
      rule = "rider.ended-moving"
      text =
        "the app sent nothing after \(after) \(state): the robot's watchdog "
        + (certain
          ? "stopped the motors at \(stopAt)" : "may have stopped the motors before the capture ended")
      severity = pending.moving ? .warning : .note
      guard pending.moving else { return }
    }
    if !certain, severity == .error { severity = .warning }
    flow.report(
      Finding(
        rule, severity, time: pending.after.time, frame: pending.after.frame, related: [resume?.frame],
        duration: silence, text: text,
        details: [
          .init("silence_s", .number(silence)),
          .init("resume_frame", resume?.frame.map { .integer(Int64($0)) } ?? .null),
          .init("stop_time", .number(pending.event.time)), .init("certain", .bool(certain)),
          .init("moving", .bool(pending.moving)),
        ]))
  }

  /// One finding per run of ignored datagrams, when it ends: what the
  /// robot's motors did meanwhile.
  private func reportIgnored(until end: Stamp?, flow: any FlowContext) {
    guard let run = ignored else { return }
    ignored = nil
    let frames =
      "frame\(run.count == 1 ? "" : "s") \(run.first.frame.map(String.init) ?? "?")"
      + (run.count > 1 ? "–\(run.last.frame.map(String.init) ?? "?")" : "")
    // With several senders, whose datagrams they were.
    let from = senders.count > 1 && !run.from.isEmpty ? " from \(run.from.joined(separator: ", "))" : ""
    let count =
      "\(run.count) datagram\(run.count == 1 ? "" : "s")\(from) the robot ignored "
      + "(\(frames): \(run.reasons.joined(separator: "; ")))"
    // Without them the watchdog would have stopped the motors 1.0 s after
    // the last command it applied.
    let since = lastApplied?.time ?? run.first.time
    let until = end?.time ?? run.last.time
    let keptRunning = run.moving && until - since > RiderRobotModel.watchdogSeconds
    let text: String
    let severity: Finding.Severity
    if keptRunning {
      text =
        "the robot kept driving \(run.motors) until \(Format.offset(until, from: flow.origin)): "
        + "\(count) reset its watchdog, so it never stopped"
      severity = .error
    } else if run.moving {
      text = "\(count); the motors kept running at \(run.motors)"
      severity = .warning
    } else {
      text = "\(count); the motors stayed stopped"
      severity = .note
    }
    flow.report(
      Finding(
        "rider.ignored", severity, time: run.first.time, frame: run.first.frame, related: [run.last.frame],
        duration: run.last.time - run.first.time, text: text,
        details: [
          .init("datagrams", .integer(Int64(run.count))),
          .init("reasons", .array(run.reasons.map { .string($0) })),
          .init("last_frame", run.last.frame.map { .integer(Int64($0)) } ?? .null),
          .init("kept_driving", .bool(keptRunning)),
        ]))
  }

  /// NaN and ±Infinity are not JSON, but the robot's Python parser takes
  /// them, and its clamp turns them into full speed. One finding per run.
  private func checkFullSpeed(_ message: FlowMessage, flow: any FlowContext) {
    var wild: [(String, Double)] = []
    if message.error != nil || message.message == nil,
      case .applied(let left, let right, _) = RiderRobotParser.read(message.payload)
    {
      wild = [("left", left), ("right", right)].filter { !$0.1.isFinite }
    }
    if !wild.isEmpty {
      let stamp = Stamp(frame: message.frame, time: message.time)
      let values = wild.map { "\($0.0) \(JSONWriter.formatNumber($0.1)) → \(RiderRobotParser.motor($0.1))" }
        .joined(separator: ", ")
      if var run = fullSpeed {
        run.last = stamp
        run.count += 1
        if run.values.count < Self.reasonsShown, !run.values.contains(values) { run.values.append(values) }
        fullSpeed = run
      } else {
        fullSpeed = (stamp, stamp, 1, [values])
      }
      return
    }
    reportFullSpeed(flow: flow)
  }

  private func reportFullSpeed(flow: any FlowContext) {
    guard let run = fullSpeed else { return }
    fullSpeed = nil
    let frames =
      "frame\(run.count == 1 ? "" : "s") \(run.first.frame.map(String.init) ?? "?")"
      + (run.count > 1 ? "–\(run.last.frame.map(String.init) ?? "?")" : "")
    flow.report(
      Finding(
        "rider.full-speed", .error, time: run.first.time, frame: run.first.frame, related: [run.last.frame],
        duration: run.last.time - run.first.time,
        text:
          "\(run.count) datagram\(run.count == 1 ? "" : "s") (\(frames)) with \(run.values.joined(separator: "; ")): not JSON, but "
          + "the robot's Python parser accepts it and its clamp runs the motors at full speed",
        details: [
          .init("datagrams", .integer(Int64(run.count))),
          .init("values", .array(run.values.map { .string($0) })),
          .init("last_frame", run.last.frame.map { .integer(Int64($0)) } ?? .null),
        ]))
  }

  /// The `move` variant has no left/right: the robot applies 0/0, whatever
  /// `speed` asks. One finding per run of moves that asked for motion.
  private func noteMove(_ message: FlowMessage?, flow: any FlowContext) {
    if let message, message.string("command") == "move", (message.number("speed") ?? 0) != 0 {
      moveEpisode =
        moveEpisode.map { ($0.first, $0.count + 1) } ?? (Stamp(frame: message.frame, time: message.time), 1)
      return
    }
    guard let episode = moveEpisode else { return }
    moveEpisode = nil
    flow.report(
      Finding(
        "rider.move-stops", .warning, time: episode.first.time, frame: episode.first.frame,
        text: "\(episode.count) move command\(episode.count == 1 ? "" : "s") from frame "
          + "\(episode.first.frame.map(String.init) ?? "?") asked for motion, but the robot reads only "
          + "left/right: it applied 0/0 and stopped",
        details: [.init("commands", .integer(Int64(episode.count)))]))
  }

  // MARK: What the app sent

  private func checkRange(
    _ named: [(name: String, value: Double)], kind: String, message: FlowMessage, flow: any FlowContext
  ) {
    let beyond = named.filter { abs($0.value) > Self.limit }
    guard !beyond.isEmpty else { return }
    outOfRange += 1
    let list = beyond.map { "\($0.name) \(JSONWriter.formatNumber($0.value))" }.joined(separator: ", ")
    flow.report(
      Finding(
        "rider.out-of-range", .warning, time: message.time, frame: message.frame,
        text: "\(kind) command with \(list): beyond ±100, the robot clamps it to ±100",
        details: beyond.map { .init($0.name, .number($0.value)) }))
  }

  private func checkTimestamp(_ timestamp: Double, message: FlowMessage, flow: any FlowContext) {
    let key = message.source ?? ""
    let clock: SenderClock
    if let recent = recentClock, recent.key == key {
      clock = recent.clock
    } else if let known = clocks[key] {
      clock = known
    } else {
      guard clocks.count < Self.clocksKept else { return }
      clock = SenderClock()
      clocks[key] = clock
      clockOrder.append(key)
    }
    recentClock = (key, clock)
    clock.last = Stamp(frame: message.frame, time: message.time)
    clock.add(message.time - timestamp)
    if let previous = clock.lastTimestamp, timestamp < previous.value {
      flow.report(
        Finding(
          "rider.timestamp-backwards", .warning, time: message.time, frame: message.frame,
          related: [previous.frame],
          text:
            "timestamp \(JSONWriter.formatNumber(timestamp)) is \(Format.duration(previous.value - timestamp)) "
            + "earlier than the previous command's (frame \(previous.frame.map(String.init) ?? "?")): "
            + "the app's clock stepped back or commands were reordered",
          details: [
            .init("timestamp", .number(timestamp)), .init("previous_timestamp", .number(previous.value)),
          ]))
    }
    clock.lastTimestamp = (message.frame, max(timestamp, clock.lastTimestamp?.value ?? timestamp))
    let delay = message.time - timestamp
    flow.measure("one_way_delay", text: "capture time − command timestamp", delay)
    let quickest = min(clock.quickestDelay ?? delay, delay)
    clock.quickestDelay = quickest
    if delay - quickest > Self.staleAfter {
      flow.report(
        Finding(
          "rider.stale-command", .warning, time: message.time, frame: message.frame,
          text: "the command reached the capture \(Format.duration(delay - quickest)) later than the "
            + "sender's quickest (one-way delay \(Format.duration(delay)) by its timestamp): "
            + "the robot acts on stale input",
          details: [.init("delay_s", .number(delay)), .init("lag_s", .number(delay - quickest))]))
    }
  }

  /// The speed-like values of each Rider message kind.
  private static func values(of message: FlowMessage, kind: String) -> [(name: String, value: Double)] {
    let names = kind == "move" ? ["speed", "direction"] : ["left", "right"]
    return names.compactMap { name in message.number(name).map { (name, $0) } }
  }

  private static func motor(_ event: DeviceEvent, _ key: String) -> Int {
    event.state(key)?.numericValue.map { Int($0) } ?? 0
  }
}

extension RiderCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { [RiderRules()] }
}
