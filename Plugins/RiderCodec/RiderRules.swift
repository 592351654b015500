import PacketKit

/// Rider (PROTOCOLS.md §1): the app drives at 20 Hz; the robot's watchdog
/// stops the motors when no command arrives for more than 1.0 s (checked
/// every 100 ms); values beyond ±100 are clamped; the timestamp is the
/// app's clock, so capture time minus timestamp estimates the one-way delay.
final class RiderRules: FlowRules {
  static let expected = ExpectedRate.hertz(20, text: "20 Hz", rule: "rider.rate")
  static let watchdogSeconds = 1.0
  static let limit = 100.0
  /// A command this much later than the flow's quickest is stale: five
  /// command periods of input the robot acts on late.
  static let staleAfter = 0.25

  private struct Command {
    var frame: Int?
    var time: Double
    var moving: Bool
    var values: String
  }

  private var last: Command?
  private var lastTimestamp: (frame: Int?, value: Double)?
  private var quickestDelay: Double?
  private var silences = 0
  private var outOfRange = 0

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    guard message.codec == "rider", let kind = message.message else { return }
    // Only datagrams that decode move the robot; the others it ignores, so
    // they do not feed its watchdog either.
    flow.setRoles(client: message.source, server: message.destination, clientRole: "app", serverRole: "robot")
    flow.count(
      "commands", direction: "app → robot", expected: Self.expected, frame: message.frame, time: message.time)

    let named = Self.values(of: message, kind: kind)
    let command = Command(
      frame: message.frame, time: message.time,
      moving: named.contains { $0.name != "direction" && $0.value != 0 }
        && message.string("command") != "stop",
      values: named.map { "\($0.name) \(JSONWriter.formatNumber($0.value))" }.joined(separator: ", "))
    if let last, message.time - last.time > Self.watchdogSeconds {
      silence(from: last, to: command, flow: flow)
    }
    checkRange(named, kind: kind, message: message, flow: flow)
    if let timestamp = message.number("timestamp"), kind != "legacy" {
      checkTimestamp(timestamp, message: message, flow: flow)
    }
    last = command
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    // The app stopped sending while the robot was moving: the watchdog
    // stops it, as in a silence, if the capture saw that long.
    if let last, last.moving, captureEnd - last.time > Self.watchdogSeconds {
      silence(from: last, to: nil, flow: flow, captureEnd: captureEnd)
    }
    if let typical = flow.median(of: "one_way_delay"), abs(typical) > 0.5, let last {
      flow.report(
        Finding(
          "rider.clock-offset", .note, time: last.time, frame: last.frame,
          text: "the app's timestamps are \(Format.duration(abs(typical))) "
            + (typical > 0 ? "behind" : "ahead of") + " the capture clock (median); "
            + "the clocks differ, so delays are only comparable with each other",
          details: [.init("median_delay_s", .number(typical))]))
    }
  }

  func facts() -> [FieldValue.Member] {
    [
      .init("watchdog_silences", .integer(Int64(silences))),
      .init("out_of_range_commands", .integer(Int64(outOfRange))),
    ]
  }

  // MARK: Rules

  private func silence(
    from last: Command, to next: Command?, flow: any FlowContext, captureEnd: Double? = nil
  ) {
    silences += 1
    let seconds = (next?.time ?? captureEnd ?? last.time) - last.time
    let tail =
      next == nil
      ? "the app sent nothing more in the remaining \(Format.duration(seconds)) of the capture"
      : "no command for \(Format.duration(seconds))"
    let state =
      last.moving
      ? "while driving (\(last.values)): the robot's watchdog stopped the motors 1.0–1.1 s after it"
      : "while standing still (\(last.values)): the watchdog trips, the motors were already stopped"
    // A silence mid-drive stops the robot unexpectedly; an app that stops
    // sending without a stop command leaves stopping to the watchdog.
    let rule = next == nil ? "rider.ended-moving" : "rider.watchdog-gap"
    let severity: Finding.Severity = next == nil ? .warning : last.moving ? .error : .note
    flow.report(
      Finding(
        rule, severity, time: last.time, frame: last.frame,
        related: [next?.frame], duration: seconds,
        text: "\(tail) after frame \(last.frame.map(String.init) ?? "?") \(state)",
        details: [
          .init("silence_s", .number(seconds)),
          .init("resume_frame", next?.frame.map { .integer(Int64($0)) } ?? .null),
          .init("watchdog_trip_time", .number(last.time + Self.watchdogSeconds)),
          .init("moving", .bool(last.moving)),
        ]))
  }

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
    if let previous = lastTimestamp, timestamp < previous.value {
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
    lastTimestamp = (message.frame, max(timestamp, lastTimestamp?.value ?? timestamp))
    let delay = message.time - timestamp
    flow.measure("one_way_delay", text: "capture time − command timestamp", delay)
    let quickest = min(quickestDelay ?? delay, delay)
    quickestDelay = quickest
    if delay - quickest > Self.staleAfter {
      flow.report(
        Finding(
          "rider.stale-command", .warning, time: message.time, frame: message.frame,
          text: "the command reached the capture \(Format.duration(delay - quickest)) later than the "
            + "flow's quickest (one-way delay \(Format.duration(delay)) by its timestamp): "
            + "the robot acts on stale input",
          details: [.init("delay_s", .number(delay)), .init("lag_s", .number(delay - quickest))]))
    }
  }

  /// The speed-like values of each Rider message kind.
  private static func values(of message: FlowMessage, kind: String) -> [(name: String, value: Double)] {
    let names = kind == "move" ? ["speed", "direction"] : ["left", "right"]
    return names.compactMap { name in message.number(name).map { (name, $0) } }
  }
}

extension RiderCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { [RiderRules()] }
}
