import PacketKit

/// LegCtrl (PROTOCOLS.md §2). While ARMED the app must send a valid command
/// at least every 200 ms: the firmware's 100 ms timer trips the deadman at
/// 200–300 ms (FAULT, DEADMAN_TIMEOUT). ARM is refused in FAULT; only
/// DISARM leaves it. Servo pulses are clamped to 500–2500 µs. Telemetry
/// runs at 10 Hz ± 10 % and reports the firmware's own last_cmd_age_ms.
final class LegCtrlRules: FlowRules {
  static let servoRate = ExpectedRate.hertz(50, text: "50 Hz keep-alive", rule: "legctrl.servo-rate")
  static let telemetryRate = ExpectedRate.hertz(10, text: "10 Hz ± 10 %", rule: "legctrl.telemetry-rate")
  static let deadmanAfter = 0.200
  static let deadmanBy = 0.300
  /// Telemetry reports a trip in the tick that made it; allow one more
  /// telemetry period for the transport before calling it late.
  static let reportSlack = 0.100
  /// How far the firmware's last_cmd_age_ms may stray from the capture's
  /// view (transport latency both ways, BLE connection events).
  static let ageTolerance = 0.075
  /// Telemetry silent this long missed at least one notification.
  static let telemetryGap = 0.250
  static let commands: Set<String> = ["arm", "disarm", "set_servo_ch0", "ping"]

  enum State: String {
    case unknown, DISARMED, ARMED, FAULT
  }

  private struct Stamp {
    var frame: Int?
    var time: Double
  }

  private var state = State.unknown
  /// Where the state came from: telemetry, or inferred from commands.
  private var stateFromTelemetry = false
  private var lastCommand: Stamp?
  private var armedAtLastCommand = false
  /// The FAULT/DEADMAN_TIMEOUT report inside the current command gap.
  private var trip: (stamp: Stamp, age: Double?)?
  private var notTrippedReported = false
  private var faultSince: (stamp: Stamp, error: String)?
  private var inFault: (first: Stamp, last: Stamp, count: Int, kinds: Set<String>)?
  private var telemetrySeen = false
  private var lastTelemetry: Stamp?
  private var deadmanGaps = 0
  private var states: [String: Int] = [:]

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    guard message.codec == "legctrl", let kind = message.message else { return }
    if kind == "telemetry" {
      flow.setRoles(
        client: message.destination, server: message.source, clientRole: "app", serverRole: "device")
      telemetry(message, flow: flow)
    } else if Self.commands.contains(kind) {
      flow.setRoles(
        client: message.source, server: message.destination, clientRole: "app", serverRole: "device")
      command(kind, message, flow: flow)
    }
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    if let lastCommand, armedAtLastCommand, captureEnd - lastCommand.time > Self.deadmanAfter {
      deadmanGap(from: lastCommand, to: nil, end: captureEnd, flow: flow)
    }
    closeFaultEpisode(flow: flow)
  }

  func facts() -> [FieldValue.Member] {
    [
      .init("final_state", .string(state.rawValue)),
      .init("state_from", .string(stateFromTelemetry ? "telemetry" : "commands")),
      .init("deadman_gaps", .integer(Int64(deadmanGaps))),
      .init(
        "telemetry_states",
        .object(states.sorted { $0.key < $1.key }.map { .init($0.key, .integer(Int64($0.value))) })),
    ]
  }

  // MARK: Commands

  private func command(_ kind: String, _ message: FlowMessage, flow: any FlowContext) {
    let now = Stamp(frame: message.frame, time: message.time)
    if kind == "set_servo_ch0" {
      flow.count(
        "set_servo_ch0", direction: "app → device", expected: Self.servoRate, frame: message.frame,
        time: message.time)
      checkPulse(message, flow: flow)
    }
    if let lastCommand, armedAtLastCommand, message.time - lastCommand.time > Self.deadmanAfter {
      deadmanGap(from: lastCommand, to: now, end: message.time, flow: flow)
    }
    switch kind {
    case "arm":
      if state == .FAULT {
        let since =
          faultSince.map { " since frame \($0.stamp.frame.map(String.init) ?? "?") (\($0.error))" } ?? ""
        flow.report(
          Finding(
            "legctrl.arm-refused", .warning, time: message.time, frame: message.frame,
            related: [faultSince?.stamp.frame],
            text: "ARM sent while the firmware is in FAULT\(since): the firmware refuses it; "
              + "the app must DISARM first"))
      } else {
        setState(.ARMED, fromTelemetry: false, flow: flow)
      }
    case "disarm":
      closeFaultEpisode(flow: flow)
      setState(.DISARMED, fromTelemetry: false, flow: flow)
    default:
      if state == .FAULT { noteCommandInFault(kind, now) }
    }
    lastCommand = now
    armedAtLastCommand = state == .ARMED
    trip = nil
    notTrippedReported = false
  }

  private func checkPulse(_ message: FlowMessage, flow: any FlowContext) {
    guard let pulse = message.number("pulse_us"), !(500...2500).contains(pulse) else { return }
    let clamp = pulse < 500 ? 500 : 2500
    flow.report(
      Finding(
        "legctrl.pulse-out-of-range", .warning, time: message.time, frame: message.frame,
        text: "set_servo_ch0 pulse_us \(JSONWriter.formatNumber(pulse)) µs is outside 500–2500 µs: "
          + "the firmware clamps it to \(clamp) µs",
        details: [.init("pulse_us", .number(pulse))]))
  }

  private func deadmanGap(from last: Stamp, to next: Stamp?, end: Double, flow: any FlowContext) {
    deadmanGaps += 1
    let gap = end - last.time
    let lastText = "frame \(last.frame.map(String.init) ?? "?")"
    var text =
      next == nil
      ? "no command after \(lastText) while ARMED for the remaining \(Format.duration(gap)) of the capture"
      : "no command for \(Format.duration(gap)) while ARMED (after \(lastText))"
    var details: [FieldValue.Member] = [
      .init("gap_s", .number(gap)),
      .init("next_command_frame", next?.frame.map { .integer(Int64($0)) } ?? .null),
    ]
    var severity = Finding.Severity.error
    if let trip {
      let after = trip.stamp.time - last.time
      text +=
        "; FAULT/DEADMAN_TIMEOUT reported at frame \(trip.stamp.frame.map(String.init) ?? "?"), "
        + "\(Format.duration(after)) after the last command"
      if let age = trip.age { text += " (last_cmd_age_ms \(Int(age * 1000)))" }
      let late = after > Self.deadmanBy + Self.reportSlack
      text += late ? ": later than the 200–300 ms the firmware trips at" : ", as expected (200–300 ms)"
      details += [
        .init("fault_frame", trip.stamp.frame.map { .integer(Int64($0)) } ?? .null),
        .init("fault_after_s", .number(after)), .init("fault_late", .bool(late)),
      ]
    } else if gap <= Self.deadmanBy {
      severity = .warning
      text += "; the deadman may trip from 200 ms (it must by 300 ms); no FAULT was reported"
    } else if notTrippedReported {
      text += "; telemetry stayed ARMED: the deadman did not trip"
    } else if telemetrySeen {
      text += "; a deadman FAULT was due within 200–300 ms but no telemetry in the gap reported it"
    } else {
      text += "; a deadman FAULT was due within 200–300 ms (no telemetry in this capture to confirm it)"
      // Without telemetry the firmware's state can only be inferred.
      setState(.FAULT, fromTelemetry: false, flow: flow)
      faultSince = (Stamp(frame: last.frame, time: last.time + Self.deadmanBy), "DEADMAN_TIMEOUT, inferred")
    }
    flow.report(
      Finding(
        "legctrl.deadman-gap", severity, time: last.time, frame: last.frame,
        related: [trip?.stamp.frame, next?.frame], duration: gap, text: text, details: details))
  }

  private func noteCommandInFault(_ kind: String, _ stamp: Stamp) {
    if var episode = inFault {
      episode.last = stamp
      episode.count += 1
      episode.kinds.insert(kind)
      inFault = episode
    } else {
      inFault = (stamp, stamp, 1, [kind])
    }
  }

  /// One finding per FAULT episode, however many commands the app sent into it.
  private func closeFaultEpisode(flow: any FlowContext) {
    guard let episode = inFault else { return }
    inFault = nil
    let frames =
      "frame \(episode.first.frame.map(String.init) ?? "?")"
      + (episode.count > 1 ? "…\(episode.last.frame.map(String.init) ?? "?")" : "")
    flow.report(
      Finding(
        "legctrl.command-in-fault", .warning, time: episode.first.time, frame: episode.first.frame,
        related: [episode.last.frame, faultSince?.stamp.frame],
        text: "\(episode.count) command\(episode.count == 1 ? "" : "s") "
          + "(\(episode.kinds.sorted().joined(separator: ", "))) sent in FAULT, \(frames): "
          + "the firmware ignores them until DISARM; the app did not notice the fault",
        details: [
          .init("commands", .integer(Int64(episode.count))),
          .init("last_frame", episode.last.frame.map { .integer(Int64($0)) } ?? .null),
        ]))
  }

  // MARK: Telemetry

  private func telemetry(_ message: FlowMessage, flow: any FlowContext) {
    telemetrySeen = true
    let now = Stamp(frame: message.frame, time: message.time)
    let gap = flow.count(
      "telemetry", direction: "device → app", expected: Self.telemetryRate, frame: message.frame,
      time: message.time)
    if let gap, gap.seconds > Self.telemetryGap {
      flow.report(
        Finding(
          "legctrl.telemetry-gap", .warning, time: gap.fromTime, frame: gap.fromFrame, related: [gap.toFrame],
          duration: gap.seconds,
          text: "no telemetry for \(Format.duration(gap.seconds)): notifications at 10 Hz were missed",
          details: [.init("gap_s", .number(gap.seconds))]))
    }
    lastTelemetry = now
    let reported = State(rawValue: message.string("state") ?? "") ?? .FAULT
    let error = message.string("error_code") ?? "?"
    let age = message.number("last_cmd_age_ms").map { $0 / 1000 }
    states[reported.rawValue, default: 0] += 1
    checkAge(age, message: message, flow: flow)

    if reported == .FAULT, state != .FAULT {
      faultSince = (now, error)
      if error == "DEADMAN_TIMEOUT" {
        deadmanReport(now, age: age, flow: flow)
      } else {
        flow.report(
          Finding(
            "legctrl.fault", .error, time: message.time, frame: message.frame,
            text: "the firmware reports FAULT with error \(error)"
              + (error == "NONE" ? " (what a BLE disconnect leaves)" : ""),
            details: [.init("error_code", .string(error))]))
      }
    }
    if reported == .ARMED, armedAtLastCommand, trip == nil, !notTrippedReported,
      let lastCommand, let age, age > Self.deadmanBy
    {
      notTrippedReported = true
      flow.report(
        Finding(
          "legctrl.deadman-not-tripped", .error, time: message.time, frame: message.frame,
          related: [lastCommand.frame],
          text: "telemetry still says ARMED with last_cmd_age_ms \(Int(age * 1000)): the deadman "
            + "must trip by 300 ms without a command; the firmware did not",
          details: [.init("last_cmd_age_ms", .number(age * 1000))]))
    }
    if reported != .FAULT, state == .FAULT { closeFaultEpisode(flow: flow) }
    // Disarmed by the firmware itself: there is no deadman left to time out.
    if reported == .DISARMED { armedAtLastCommand = false }
    setState(reported, fromTelemetry: true, flow: flow)
  }

  private func deadmanReport(_ now: Stamp, age: Double?, flow: any FlowContext) {
    guard let lastCommand else { return }
    let after = now.time - lastCommand.time
    if armedAtLastCommand { trip = (now, age) }
    // Earlier than 200 ms after a command the capture shows: the firmware
    // did not get that command (lost on the way) or counted from an older one.
    if after < Self.deadmanAfter - Self.ageTolerance {
      flow.report(
        Finding(
          "legctrl.deadman-unexplained", .warning, time: now.time, frame: now.frame,
          related: [lastCommand.frame],
          text: "FAULT/DEADMAN_TIMEOUT only \(Format.duration(after)) after the command at frame "
            + "\(lastCommand.frame.map(String.init) ?? "?"): the firmware did not receive the "
            + "commands the capture shows",
          details: [.init("after_s", .number(after))]))
    }
  }

  /// The firmware's last_cmd_age_ms against the capture's view of the last command.
  private func checkAge(_ age: Double?, message: FlowMessage, flow: any FlowContext) {
    guard let age, let lastCommand, age < 65.535 else { return }
    let observed = message.time - lastCommand.time
    guard abs(age - observed) > Self.ageTolerance else { return }
    let meaning =
      age > observed
      ? "the firmware did not receive the last command the capture shows (lost on the way?)"
      : "the firmware received a command this capture does not show"
    flow.report(
      Finding(
        "legctrl.age-mismatch", .warning, time: message.time, frame: message.frame,
        related: [lastCommand.frame],
        text: "last_cmd_age_ms \(Int((age * 1000).rounded())) but the last command in the capture "
          + "(frame \(lastCommand.frame.map(String.init) ?? "?")) was \(Format.duration(observed)) earlier: \(meaning)",
        details: [
          .init("last_cmd_age_ms", .number(age * 1000)), .init("observed_ms", .number(observed * 1000)),
        ]))
  }

  private func setState(_ new: State, fromTelemetry: Bool, flow: any FlowContext) {
    state = new
    stateFromTelemetry = fromTelemetry || stateFromTelemetry
    if new != .FAULT { faultSince = nil }
  }
}

extension LegCtrlCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { [LegCtrlRules()] }
}
