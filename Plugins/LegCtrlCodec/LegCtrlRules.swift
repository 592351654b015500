import PacketKit

/// LegCtrl's findings, built from what the firmware model says the firmware
/// did (its events, which come once the telemetry that confirms them has
/// been seen) and from the traffic itself (rates, telemetry gaps).
/// docs/protocols.md §5: the deadman trips on the 100 ms tick once no valid
/// command came for 200 ms while ARMED; FAULT ignores servo commands and
/// refuses ARM until DISARM; the write handler rejects malformed writes.
final class LegCtrlRules: FlowRules {
  static let servoRate = ExpectedRate.hertz(50, text: "50 Hz keep-alive", rule: "legctrl.servo-rate")
  static let telemetryRate = ExpectedRate.hertz(10, text: "10 Hz ± 10 %", rule: "legctrl.telemetry-rate")
  /// Telemetry silent this long missed at least one notification.
  static let telemetryGap = 0.250
  /// A deadman trip reported later than this after the last valid command
  /// is late: the tick trips it by 300 ms, the report goes out on that tick
  /// and may take up to a period more to arrive.
  static let lateAfter = 0.400

  private struct Stamp {
    var frame: Int?
    var time: Double
  }

  /// A run of like events reported once: commands ignored in one FAULT.
  private struct Episode {
    var first: Stamp
    var last: Stamp
    var count = 1
    var kinds: Set<String> = []
  }

  /// The writes the model has not classified yet, by frame.
  private var writes: [Int: LegCtrlWrite] = [:]
  /// The state (`ARMED`, …) after the model's last event.
  private var state = "DISARMED"
  private var error = "NONE"
  /// The last write that refreshed the deadman, while ARMED.
  private var lastRefresh: Stamp?
  private var trip: (event: DeviceEvent, last: Stamp?, report: Stamp?)?
  private var i2cFault: (event: DeviceEvent, report: Stamp?)?
  /// Why the firmware is in FAULT, for the findings about commands sent into it.
  private var faultCause: (text: String, frame: Int?)?
  private var inFault: Episode?
  private var inDisarmed: Episode?
  private var invalid: Episode?
  private var rejected: (code: String, text: String, episode: Episode)?
  private var disconnected: (event: DeviceEvent, wasArmed: Bool)?
  /// The firmware's endpoint on the client being read.
  private var device: String?
  private var telemetryGap: Gap?
  /// When the capture showed the link drop (an HCI disconnection).
  private var linkSeenDown: Double?
  private var lastTelemetry: Stamp?

  private var trips = 0
  private var reconnects = 0
  private var rejectedWrites = 0
  private var reports: [String: Int] = [:]

  // MARK: Traffic

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    guard message.codec == "legctrl", message.event == nil else { return }
    // Which end the firmware is: the analysis says it per client (a BLE
    // reconnect is a new connection handle), else the message's kind shows
    // it (the firmware sends TELEMETRY and nothing else).
    let named = device != nil
    if let known = flow.server, known == message.source || known == message.destination {
      device = known
    }
    if device == nil, let kind = message.message {
      device = kind == "telemetry" ? message.source : message.destination
    }
    guard let device else { return }
    if !named {
      flow.setRoles(
        client: message.source == device ? message.destination : message.source, server: device,
        clientRole: "app", serverRole: "device")
    }
    if message.source == device {
      if let report = LegCtrlReport(message.payload) { telemetry(message, report, flow: flow) }
      return
    }
    guard message.destination == device else { return }
    if let frame = message.frame {
      if writes.count > 4096 { writes.removeAll() }
      writes[frame] = LegCtrlWrite(message.payload)
    }
    // The app's servo stream: every write whose msg_type is SET_SERVO_CH0.
    if message.payload.count >= 2, message.payload[1] == LegCtrlMsgType.setServoCh0 {
      flow.count(
        "set_servo_ch0", direction: "app → device", expected: Self.servoRate, frame: message.frame,
        time: message.time)
    }
  }

  private func telemetry(_ message: FlowMessage, _ report: LegCtrlReport, flow: any FlowContext) {
    reports[report.stateName, default: 0] += 1
    flow.count(
      "telemetry", direction: "device → app", expected: Self.telemetryRate, frame: message.frame,
      time: message.time)
    // The firmware's reports, whichever writer they went to (they follow
    // the last one). Said once the model has had this telemetry: a
    // reconnect may explain it.
    // A link the capture saw drop explains the silence (a reconnect is a new connection).
    let seenDown = linkSeenDown.map { $0 >= (lastTelemetry?.time ?? $0) } ?? false
    if let last = lastTelemetry, message.time - last.time > Self.telemetryGap, !seenDown {
      telemetryGap = Gap(
        seconds: message.time - last.time, fromFrame: last.frame, toFrame: message.frame, fromTime: last.time,
        toTime: message.time)
    }
    lastTelemetry = Stamp(frame: message.frame, time: message.time)
  }

  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool {
    // A write the firmware rejects or treats as unknown is reported by what
    // the firmware did with it (legctrl.rejected-write, legctrl.invalid-cmd).
    message.codec == "legctrl" && device != nil && message.destination == device
  }

  // MARK: What the firmware did

  func modelled(_ event: DeviceEvent, flow: any FlowContext) {
    let stamp = Stamp(frame: event.frame, time: event.time)
    let before = state
    state = event.state("state")?.stringValue ?? state
    error = event.state("error_code")?.stringValue ?? error
    switch event.name {
    case "executed", "ignored", "rejected":
      let write = event.frame.flatMap { writes.removeValue(forKey: $0) }
      command(event, write: write, stateBefore: before, at: stamp, flow: flow)
    case "deadman_timeout":
      closeTrip(flow: flow)
      trip = (event, lastRefresh, nil)
      faultCause = ("FAULT/DEADMAN_TIMEOUT", nil)
      trips += 1
    case "i2c_fault":
      closeI2CFault(flow: flow)
      i2cFault = (event, nil)
      faultCause = ("FAULT/I2C_FAULT", event.frame)
    case "disconnect":
      disconnected = (event, before == "ARMED")
      if event.frame != nil { linkSeenDown = event.time }
      if event.frame != nil, before == "ARMED" {
        flow.report(
          Finding(
            "legctrl.disconnect", .warning, time: event.time, frame: event.frame,
            text:
              "the BLE link dropped while ARMED: the firmware went to FAULT and switched the servo output off"
          ))
      }
    case "reconnect":
      reconnects += 1
      reconnected(event, flow: flow)
    case "telemetry":
      reported(event, flow: flow)
    default:
      break
    }
    if state != "FAULT" { closeFault(flow: flow) }
    if state != "DISARMED" { closeDisarmed(flow: flow) }
    if error != "INVALID_CMD" { closeInvalid(flow: flow) }
  }

  private func command(
    _ event: DeviceEvent, write: LegCtrlWrite?, stateBefore: String, at stamp: Stamp, flow: any FlowContext
  ) {
    closeTrip(next: stamp, flow: flow)
    if event.name != "rejected" { closeRejected(flow: flow) }
    switch (event.name, write) {
    case ("rejected", let write):
      rejectedWrites += 1
      let code = write?.rejectionCode ?? "malformed"
      if var run = rejected, run.code == code {
        run.episode.last = stamp
        run.episode.count += 1
        rejected = run
      } else {
        closeRejected(flow: flow)
        rejected = (code, write?.rejectionText ?? "malformed", Episode(first: stamp, last: stamp))
      }
    case ("ignored", .servo?) where event.certain:
      // Only what the firmware surely ignored: a guess at the state (a
      // capture that starts mid-session, a deadman that may have tripped)
      // is no finding.
      if stateBefore == "FAULT" {
        extend(&inFault, "set_servo_ch0", stamp)
      } else {
        extend(&inDisarmed, "set_servo_ch0", stamp)
      }
    case ("ignored", .servoBadLength(let length)?):
      flow.report(
        Finding(
          "legctrl.command-ignored", .warning, time: stamp.time, frame: stamp.frame,
          text: "SET_SERVO_CH0 with payload_len \(length): the firmware ignores it (it needs exactly 2), "
            + "so it does not refresh the deadman",
          details: [.init("payload_len", .integer(Int64(length)))]))
    case ("ignored", .arm?) where event.certain:
      let cause = faultCause.map { " (\($0.text)\($0.frame.map { ", frame \($0)" } ?? ""))" } ?? ""
      flow.report(
        Finding(
          "legctrl.arm-refused", .warning, time: stamp.time, frame: stamp.frame, related: [faultCause?.frame],
          text:
            "ARM sent while the firmware is in FAULT\(cause): the firmware refuses it; the app must DISARM first"
        ))
    case ("ignored", .unknown(let type)?):
      extend(&invalid, LegCtrlWrite.unknown(msgType: type).name, stamp)
    case ("executed", let write):
      if case .servo(let requested)? = write, let applied = event.state("pulse_us")?.numericValue,
        Int(applied) != requested, stateBefore == "ARMED"
      {
        flow.report(
          Finding(
            "legctrl.pulse-out-of-range", .warning, time: stamp.time, frame: stamp.frame,
            text: "set_servo_ch0 pulse_us \(requested) µs is outside 500–2500 µs: the firmware clamped it to "
              + "\(Int(applied)) µs",
            details: [.init("pulse_us", .integer(Int64(requested))), .init("applied_us", .number(applied))]))
      }
      refreshed(write, stateBefore: stateBefore, event: event, at: stamp, flow: flow)
    default:
      break
    }
  }

  /// Whether an executed command refreshed the deadman, and how long the
  /// firmware went without one while ARMED.
  private func refreshed(
    _ write: LegCtrlWrite?, stateBefore: String, event: DeviceEvent, at stamp: Stamp, flow: any FlowContext
  ) {
    let refreshes: Bool
    switch write {
    case .arm?: refreshes = stateBefore == "DISARMED"
    case .servo?, .ping?: refreshes = stateBefore == "ARMED"
    case .disarm?:
      lastRefresh = nil
      return
    default: refreshes = false
    }
    guard refreshes else { return }
    if let last = lastRefresh, stateBefore == "ARMED", stamp.time - last.time > 0.2 {
      let gap = stamp.time - last.time
      // Up to 300 ms the firmware's tick phase decides; beyond, it must trip.
      let survivable = gap <= 0.3 + 0.065
      flow.report(
        Finding(
          "legctrl.keepalive-gap", survivable ? .note : .warning, time: last.time, frame: last.frame,
          related: [stamp.frame], duration: gap,
          text: "no valid command for \(Format.duration(gap)) while ARMED (frames "
            + "\(Self.frame(last.frame))→\(Self.frame(stamp.frame))): over the 200 ms deadman; "
            + (survivable
              ? "no tick fell late enough in it to trip, but the app's keep-alive is too slow"
              : "the firmware should have tripped and did not (its telemetry stayed ARMED)"),
          details: [.init("gap_s", .number(gap))]))
    }
    lastRefresh = stamp
  }

  private func extend(_ episode: inout Episode?, _ kind: String, _ stamp: Stamp) {
    if var open = episode {
      open.last = stamp
      open.count += 1
      open.kinds.insert(kind)
      episode = open
    } else {
      episode = Episode(first: stamp, last: stamp, kinds: [kind])
    }
  }

  // MARK: Telemetry, the link

  private func reported(_ event: DeviceEvent, flow: any FlowContext) {
    let stamp = Stamp(frame: event.frame, time: event.time)
    if var open = trip, open.report == nil, event.state("state")?.stringValue == "FAULT" {
      open.report = stamp
      trip = open
    }
    if var open = i2cFault, open.report == nil {
      open.report = stamp
      i2cFault = open
      closeI2CFault(flow: flow)
    }
    if let gap = telemetryGap, gap.toFrame == event.frame {
      telemetryGap = nil
      if disconnected == nil {
        flow.report(
          Finding(
            "legctrl.telemetry-gap", .warning, time: gap.fromTime, frame: gap.fromFrame,
            related: [gap.toFrame],
            duration: gap.seconds,
            text: "no telemetry for \(Format.duration(gap.seconds)) (frames \(Self.frame(gap.fromFrame))→"
              + "\(Self.frame(gap.toFrame))): notifications at 10 Hz were lost, and the firmware's state went unseen",
            details: [.init("gap_s", .number(gap.seconds))]))
      }
    }
    disconnected = nil
  }

  private func reconnected(_ event: DeviceEvent, flow: any FlowContext) {
    defer { disconnected = nil }
    guard event.frame == nil else { return }
    let gap = telemetryGap
    let silence =
      gap.map {
        " (no telemetry for \(Format.duration($0.seconds)), frames \(Self.frame($0.fromFrame))→\(Self.frame($0.toFrame)))"
      } ?? ""
    let wasArmed = disconnected?.wasArmed ?? false
    let dropped = disconnected?.event.time ?? event.time
    flow.report(
      Finding(
        "legctrl.reconnect", .warning, time: dropped, frame: gap?.fromFrame ?? lastTelemetry?.frame,
        related: [gap?.toFrame], duration: event.time - dropped,
        text: "the BLE link dropped and came back unseen\(silence): telemetry resumed DISARMED/NONE with "
          + "last_cmd_age_ms 0, which only a reconnect gives; the firmware switched the servo output off"
          + (wasArmed ? " and the app has to ARM again" : ""),
        details: [
          .init("last_telemetry_frame", gap?.fromFrame.map { .integer(Int64($0)) } ?? .null),
          .init("resumed_frame", gap?.toFrame.map { .integer(Int64($0)) } ?? .null),
        ]))
    telemetryGap = nil
  }

  // MARK: Episodes

  private func closeTrip(next: Stamp? = nil, captureEnd: Double? = nil, flow: any FlowContext) {
    guard let open = trip else { return }
    trip = nil
    let event = open.event
    if let captureEnd, event.time > captureEnd, !event.certain {
      endedArmed(event, last: open.last, flow: flow)
      return
    }
    let last = open.last
    let reportTime = open.report?.time ?? event.time
    let after = last.map { reportTime - $0.time }
    var text =
      event.certain
      ? "the firmware tripped its deadman" : "the firmware may have tripped its deadman"
    if let report = open.report {
      text += " (telemetry frame \(Self.frame(report.frame)) reports FAULT/DEADMAN_TIMEOUT)"
    }
    if let last {
      text +=
        ": no valid command for \(Format.duration(event.time - last.time)) while ARMED, last at frame "
        + "\(Self.frame(last.frame))"
    }
    if lastTelemetry == nil {
      text += " (no telemetry in this capture to confirm it: inferred from the commands)"
    }
    if let next {
      text += "; the next command came at frame \(Self.frame(next.frame))"
    } else {
      text += "; no command followed in the capture"
    }
    let late = (after ?? 0) > Self.lateAfter
    if late { text += "; reported later than the 200–300 ms the firmware trips at" }
    text += ". The servo output is off until DISARM and ARM"
    var details: [FieldValue.Member] = [
      .init("certain", .bool(event.certain)),
      .init("last_command_frame", last?.frame.map { .integer(Int64($0)) } ?? .null),
      .init("next_command_frame", next?.frame.map { .integer(Int64($0)) } ?? .null),
      .init("fault_frame", open.report?.frame.map { .integer(Int64($0)) } ?? .null),
    ]
    if let last { details.append(.init("gap_s", .number((next?.time ?? event.time) - last.time))) }
    if let after { details += [.init("fault_after_s", .number(after)), .init("fault_late", .bool(late))] }
    flow.report(
      Finding(
        "legctrl.deadman-gap", event.certain ? .error : .warning, time: last?.time ?? event.time,
        frame: last?.frame ?? open.report?.frame ?? next?.frame, related: [open.report?.frame, next?.frame],
        duration: last.map { (next?.time ?? event.time) - $0.time }, text: text, details: details))
  }

  /// The capture ends while the firmware is ARMED: what follows is not in
  /// it, so this is a note, not a trip.
  private func endedArmed(_ event: DeviceEvent, last: Stamp?, flow: any FlowContext) {
    flow.report(
      Finding(
        "legctrl.ended-armed", .note, time: last?.time ?? event.time,
        frame: last?.frame ?? lastTelemetry?.frame,
        text:
          "the capture ends while the firmware is ARMED (last valid command at frame \(Self.frame(last?.frame))): "
          + "unless a command followed unseen, its deadman tripped 200–300 ms after it",
        details: [.init("last_command_frame", last?.frame.map { .integer(Int64($0)) } ?? .null)]))
  }

  private func closeI2CFault(flow: any FlowContext) {
    guard let open = i2cFault else { return }
    i2cFault = nil
    let event = open.event
    let shown = open.report.map { " (telemetry frame \(Self.frame($0.frame)) reports it)" } ?? ""
    let at = event.frame.map { " at frame \($0)" } ?? ""
    flow.report(
      Finding(
        "legctrl.fault", .error, time: event.time, frame: event.frame ?? open.report?.frame,
        related: [open.report?.frame],
        text: "the firmware went to FAULT/I2C_FAULT\(at)\(shown): "
          + (event.frame != nil
            ? "the servo command's PWM (I²C) write failed"
            : "a PWM (I²C) write failed that the capture cannot show")
          + "; it ignores servo commands until DISARM",
        details: [
          .init("error_code", .string("I2C_FAULT")), .init("certain", .bool(event.certain)),
          .init("fault_frame", open.report?.frame.map { .integer(Int64($0)) } ?? .null),
        ]))
  }

  /// One finding per FAULT episode, however many servo commands the app sent into it.
  private func closeFault(flow: any FlowContext) {
    guard let episode = inFault else { return }
    inFault = nil
    let cause = faultCause.map { " (\($0.text))" } ?? ""
    flow.report(
      Finding(
        "legctrl.command-in-fault", .warning, time: episode.first.time, frame: episode.first.frame,
        related: [episode.last.frame, faultCause?.frame],
        text: "\(Self.count(episode.count, "servo command")) sent in FAULT\(cause), \(Self.frames(episode)): "
          + "the firmware ignored \(episode.count == 1 ? "it" : "them"); the app did not notice the fault",
        details: [
          .init("commands", .integer(Int64(episode.count))),
          .init("last_frame", episode.last.frame.map { .integer(Int64($0)) } ?? .null),
        ]))
  }

  private func closeDisarmed(flow: any FlowContext) {
    guard let episode = inDisarmed else { return }
    inDisarmed = nil
    flow.report(
      Finding(
        "legctrl.command-ignored", .warning, time: episode.first.time, frame: episode.first.frame,
        related: [episode.last.frame],
        text: "\(Self.count(episode.count, "servo command")) sent while DISARMED, \(Self.frames(episode)): "
          + "the firmware ignored \(episode.count == 1 ? "it" : "them"); it takes servo commands only when ARMED",
        details: [.init("commands", .integer(Int64(episode.count)))]))
  }

  private func closeInvalid(flow: any FlowContext) {
    guard let episode = invalid else { return }
    invalid = nil
    flow.report(
      Finding(
        "legctrl.invalid-cmd", .warning, time: episode.first.time, frame: episode.first.frame,
        related: [episode.last.frame],
        text:
          "\(Self.count(episode.count, "unknown command")) (\(episode.kinds.sorted().joined(separator: ", "))), "
          + "\(Self.frames(episode)): the firmware set error_code INVALID_CMD, which stays until DISARM",
        details: [.init("commands", .integer(Int64(episode.count)))]))
  }

  private func closeRejected(flow: any FlowContext) {
    guard let run = rejected else { return }
    rejected = nil
    let episode = run.episode
    flow.report(
      Finding(
        "legctrl.rejected-write", .warning, time: episode.first.time, frame: episode.first.frame,
        related: [episode.last.frame],
        text:
          "the firmware rejected \(Self.count(episode.count, "write")), \(Self.frames(episode)): \(run.text); "
          + "nothing changed and the deadman was not refreshed",
        details: [.init("reason", .string(run.code)), .init("writes", .integer(Int64(episode.count)))]))
  }

  // MARK: The end

  func finish(flow: any FlowContext, captureEnd: Double) {
    closeTrip(captureEnd: captureEnd, flow: flow)
    closeI2CFault(flow: flow)
    closeFault(flow: flow)
    closeDisarmed(flow: flow)
    closeInvalid(flow: flow)
    closeRejected(flow: flow)
  }

  func facts() -> [FieldValue.Member] {
    [
      .init("final_state", .string(state)),
      .init("final_error", .string(error)),
      .init("deadman_trips", .integer(Int64(trips))),
      .init("reconnects", .integer(Int64(reconnects))),
      .init("rejected_writes", .integer(Int64(rejectedWrites))),
      .init(
        "telemetry_states",
        .object(reports.sorted { $0.key < $1.key }.map { .init($0.key, .integer(Int64($0.value))) })),
    ]
  }

  private static func frame(_ frame: Int?) -> String { frame.map(String.init) ?? "?" }

  private static func frames(_ episode: Episode) -> String {
    episode.count == 1
      ? "frame \(frame(episode.first.frame))"
      : "frames \(frame(episode.first.frame))…\(frame(episode.last.frame))"
  }

  private static func count(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
  }
}

extension LegCtrlCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { [LegCtrlRules()] }
}
