import PacketKit

/// Rallie (docs/protocols.md §3, §5 "Rallie app"): the app writes a command and
/// the machine answers with a response. What the two sides make of each
/// frame comes from `RallieModel`: the machine (its firmware is not public)
/// and the app build recorded in device-truth (`sophieluo/rallie`: XOR
/// responses only, `5A A5 82` and 5 bytes only, any code stored, no
/// timeout, a command at most every 3.0 s). Where that build and §3 differ
/// (§3's builds time out after 2 s and count only accepted/completed as
/// success) the findings say both, so they stay useful for later builds.
final class RallieRules: FlowRules {
  static let interval = ExpectedRate(
    text: "one every 2–9 s", lowHz: 1 / 9.0, highHz: 1 / 2.0, pauseAfter: nil, rule: nil,
    minimumIntervals: 1, intervalSlack: intervalSlack)
  /// §3's app timeout: the modelled build has none, later builds give up here.
  static let timeout = 2.0
  /// Jitter allowed around the app's 2–9 s before an interval is reported.
  static let intervalSlack = 0.05
  /// Exchanges listed in the text report; the rest are counted.
  static let exchangeLines = 20
  /// Exchanges listed in the report; the rest are counted.
  static let exchangesKept = 200
  /// Commands still waiting for a response that are remembered.
  static let pendingLimit = 8
  static let modelledApp =
    "sophieluo/rallie: takes 5-byte 5A A5 82 responses with the XOR check only, stores any code, "
    + "has no timeout, writes a command at most every 3.0 s"

  private struct Command {
    var frame: Int?
    var time: Double
    var variant: String
    var outOfRange: [String]
    /// The model's event for it, when the flow's device end was known.
    var model: DeviceEvent?
  }

  private struct Exchange {
    var command: Command
    var responseFrame: Int?
    var code: String
    var latency: Double
    /// What the app did with the response: `accepted`, or the drop's why.
    var app: RallieAppParser.Outcome?
  }

  /// The record observed last, until its model event (or the next record) comes.
  private var current: FlowMessage?
  private var pending: [Command] = []
  private var lastCommand: Command?
  private var exchanges: [Exchange] = []
  private var exchangeCount = 0
  private var variants: [String: [String: Int]] = ["app": [:], "machine": [:]]
  private var checkFailures = 0
  private var unanswered = 0
  private var dropped: [RallieAppParser.Drop: Int] = [:]
  /// The code the app holds (the model's `last_code`).
  private var lastCode: String?
  /// The frame whose decode error these rules reported themselves.
  private var claimedFrame: Int?

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    settle(flow: flow)
    guard message.event == nil, message.codec == nil || message.codec == "rallie" else { return }
    current = message
  }

  func modelled(_ event: DeviceEvent, flow: any FlowContext) {
    if let code = event.state("last_code")?.stringValue { lastCode = code }
    guard let message = current, message.frame == event.frame else { return }
    current = nil
    switch event.name {
    case "command_accepted", "command_refused": command(message, event: event, flow: flow)
    case "response_accepted", "response_dropped": response(message, event: event, flow: flow)
    default: break
    }
  }

  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool {
    guard message.codec == "rallie" || message.codec == nil else { return false }
    return error.code == "bad-check" || (claimedFrame != nil && claimedFrame == message.frame)
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    settle(flow: flow)
    expire(olderThan: captureEnd - Self.timeout, flow: flow)
    let app = variants["app"] ?? [:]
    let machine = variants["machine"] ?? [:]
    if app.count == 1, machine.count == 1, let spoken = app.keys.first, let answered = machine.keys.first,
      spoken != answered, let last = lastCommand
    {
      let effect =
        spoken == RallieCheckVariant.xor.rawValue
        ? "the app build modelled (sophieluo/rallie) drops every one of its responses"
        : "a later app build; whether it accepts them is not known"
      flow.report(
        Finding(
          "rallie.check-variant-skew", .warning, time: last.time, frame: last.frame,
          text: "the app checks every frame with \(spoken) and the machine with \(answered): "
            + "a firmware/app version skew (v0.3 is XOR, later firmware MODBUS-low); \(effect)",
          details: [.init("app", .string(spoken)), .init("machine", .string(answered))]))
    }
  }

  func facts() -> [FieldValue.Member] {
    func counts(_ side: String) -> FieldValue {
      .object(
        (variants[side] ?? [:]).sorted { $0.key < $1.key }.map { .init($0.key, .integer(Int64($0.value))) })
    }
    return [
      .init("check_variants", .object([.init("app", counts("app")), .init("machine", counts("machine"))])),
      .init("check_failures", .integer(Int64(checkFailures))),
      .init("unanswered_commands", .integer(Int64(unanswered))),
      .init(
        "responses_dropped_by_app",
        .object(
          RallieAppParser.Drop.allCases.compactMap { drop in
            dropped[drop].map { .init(drop.rawValue, .integer(Int64($0))) }
          })),
      .init("modelled_app", .string(Self.modelledApp)),
      .init("exchange_count", .integer(Int64(exchangeCount))),
      .init(
        "exchanges",
        .array(
          exchanges.map { exchange in
            .object([
              .init("command_frame", exchange.command.frame.map { .integer(Int64($0)) } ?? .null),
              .init("response_frame", exchange.responseFrame.map { .integer(Int64($0)) } ?? .null),
              .init("code", .string(exchange.code)),
              .init("latency_s", .number(exchange.latency)),
              .init("variant", .string(exchange.command.variant)),
              .init("app", exchange.app.map { .string(Self.appWords($0)) } ?? .null),
            ])
          })),
    ]
  }

  func summaryLines() -> [String] {
    guard !exchanges.isEmpty else { return [] }
    var out = ["exchanges (command → response, latency, check, what the app did):"]
    for exchange in exchanges.prefix(Self.exchangeLines) {
      out.append(
        "  frame \(exchange.command.frame.map(String.init) ?? "?") → "
          + "\(exchange.responseFrame.map(String.init) ?? "?")  \(exchange.code)  "
          + "\(Format.duration(exchange.latency))  \(exchange.command.variant)"
          + (exchange.app.map { "  app: \(Self.appWords($0))" } ?? ""))
    }
    if exchangeCount > Self.exchangeLines {
      out.append("  … \(exchangeCount - Self.exchangeLines) more")
    }
    return out
  }

  static func appWords(_ outcome: RallieAppParser.Outcome) -> String {
    switch outcome {
    case .accepted: "accepted"
    case .dropped(let drop): "dropped (\(drop.rawValue))"
    }
  }

  // MARK: Records

  /// A record the model said nothing about (the flow's machine end was not
  /// known yet): judged by its decode alone, as a command or a response.
  private func settle(flow: any FlowContext) {
    guard let message = current else { return }
    current = nil
    guard message.codec == "rallie" else { return }
    let isCommand = message.message.map { $0 == "command" } ?? (message.size == RallieSchema.commandLength)
    if isCommand {
      command(message, event: nil, flow: flow)
    } else {
      response(message, event: nil, flow: flow)
    }
  }

  private func command(_ message: FlowMessage, event: DeviceEvent?, flow: any FlowContext) {
    flow.setRoles(
      client: message.source, server: message.destination, clientRole: "app", serverRole: "machine")
    expire(olderThan: message.time - Self.timeout, flow: flow)
    if let error = message.error {
      if error.code == "bad-check" {
        checkFailure(error, message: message, event: event, side: "app", flow: flow)
      }
      return
    }
    guard message.message == "command" else { return }
    if let event, event.name == "command_refused", event.certain, event.replies.isEmpty {
      flow.report(
        Finding(
          "rallie.command-refused", .warning, time: message.time, frame: message.frame,
          text: "the machine drops the command (\(event.text))"))
      return
    }
    let variant = message.string("check_variant") ?? "?"
    variants["app", default: [:]][variant, default: 0] += 1
    let outOfRange = ranges(message)
    let now = Command(
      frame: message.frame, time: message.time, variant: variant, outOfRange: outOfRange, model: event)
    let gap = flow.count(
      "command", direction: "app → machine", expected: Self.interval, frame: message.frame, time: message.time
    )
    if let gap { checkInterval(gap, flow: flow) }
    pending.append(now)
    if pending.count > Self.pendingLimit { pending.removeFirst() }
    lastCommand = now
  }

  private func ranges(_ message: FlowMessage) -> [String] {
    let ranges: [(String, Double)] = [
      ("upper_wheel", 100), ("lower_wheel", 100), ("pitch", 90), ("yaw", 90), ("feed", 100),
    ]
    return ranges.compactMap { name, limit in
      message.number(name).flatMap {
        $0 > limit ? "\(name) \(JSONWriter.formatNumber($0)) > \(JSONWriter.formatNumber(limit))" : nil
      }
    }
  }

  private func response(_ message: FlowMessage, event: DeviceEvent?, flow: any FlowContext) {
    flow.setRoles(
      client: message.destination, server: message.source, clientRole: "app", serverRole: "machine")
    let decoded = message.message == "response"
    let variant = decoded ? message.string("check_variant") ?? "?" : nil
    if let variant {
      variants["machine", default: [:]][variant, default: 0] += 1
      flow.count("response", direction: "machine → app", frame: message.frame, time: message.time)
    }
    let app =
      event != nil && message.payload.count == message.size ? RallieAppParser.parse(message.payload) : nil
    if case .dropped(let drop) = app { dropped[drop, default: 0] += 1 }
    let notAResponse: Bool
    if case .dropped(let drop) = app, drop != .check { notAResponse = true } else { notAResponse = false }
    let code =
      decoded ? message.string("code") ?? "?" : notAResponse ? "not a response" : message.error?.code ?? "?"

    // The app waits for one response at a time: it answers the newest command.
    let command = pending.popLast()
    if let command {
      expire(olderThan: .infinity, flow: flow)
      let latency = message.time - command.time
      flow.measure("response_latency", text: "command → response", latency)
      exchangeCount += 1
      if exchanges.count < Self.exchangesKept {
        exchanges.append(
          Exchange(command: command, responseFrame: message.frame, code: code, latency: latency, app: app))
      }
      if latency > Self.timeout { late(command, message, code: code, latency: latency, app: app, flow: flow) }
    }

    // The app's own reason first: a 10-byte frame is dropped for its
    // length, whatever its check says.
    if case .dropped(let drop) = app, drop != .check {
      claimedFrame = message.frame
      flow.report(
        Finding(
          "rallie.response-dropped", .warning, time: message.time, frame: message.frame,
          related: [command?.frame],
          text: "the app dropped the machine's response at frame \(message.frame.map(String.init) ?? "?") "
            + "(\(drop.rawValue): \(RallieModel.dropWords(drop, message.payload))): "
            + "it keeps its last code (\(lastCode ?? "none"))",
          details: [.init("why", .string(drop.rawValue))]))
      return
    }
    if let error = message.error, error.code == "bad-check" {
      checkFailure(error, message: message, event: event, side: "machine", flow: flow)
      return
    }
    guard decoded, let variant else { return }
    guard let command else {
      flow.report(
        Finding(
          "rallie.unexpected-response", .warning, time: message.time, frame: message.frame,
          text: "\(code) response with no command waiting for it"))
      return
    }
    // A MODBUS-low response to a MODBUS-low command is a later app build
    // talking to later firmware: nothing to say about it.
    let droppedForSure = app == .dropped(.check) && event?.certain == true
    if droppedForSure || variant != command.variant {
      variantMismatch(command, message, variant: variant, code: code, event: event, flow: flow)
    }
    switch code {
    case "accepted", "completed":
      if !command.outOfRange.isEmpty {
        flow.report(
          Finding(
            "rallie.out-of-range-accepted", .warning, time: command.time, frame: command.frame,
            related: [message.frame],
            text: "the machine \(code) a command with \(command.outOfRange.joined(separator: ", ")) "
              + "(the app build modelled clamps its inputs and never writes one)"))
      }
    case "rejected":
      let why = command.outOfRange.isEmpty ? "" : " (\(command.outOfRange.joined(separator: ", ")))"
      let latency = message.time - command.time
      flow.report(
        Finding(
          "rallie.rejected", .warning, time: command.time, frame: command.frame, related: [message.frame],
          text: "the machine answered rejected to the command\(why) after \(Format.duration(latency)): "
            + (app == .accepted(code: RallieResponseCode.rejected)
              ? "the app build modelled stores the code and goes on; §3's builds count the command as failed"
              : "the app dropped the response all the same"),
          details: [.init("code", .string(code)), .init("latency_s", .number(latency))]))
    default:
      break
    }
  }

  // MARK: Findings

  /// The response's check variant is not the command's, or the app dropped
  /// a response for its MODBUS-low check.
  private func variantMismatch(
    _ command: Command, _ message: FlowMessage, variant: String, code: String, event: DeviceEvent?,
    flow: any FlowContext
  ) {
    let frame = message.frame.map(String.init) ?? "?"
    let commandFrame = command.frame.map(String.init) ?? "?"
    let text: String
    if let event, event.name == "response_dropped", event.certain {
      text =
        "the app dropped the machine's response at frame \(frame): \(label(variant)) check, "
        + "the app build modelled (sophieluo/rallie) accepts XOR only; the command at frame \(commandFrame) "
        + "was \(label(command.variant)): the machine runs later firmware (a firmware/app version skew)"
    } else {
      let app: String
      if let event, !event.certain {
        app =
          "this app writes MODBUS-low, so it is a later build than the one modelled (sophieluo/rallie, "
          + "XOR only): whether it accepts responses checked with \(label(variant)) is not known"
      } else if event?.name == "response_accepted" {
        app = "the app accepted it"
      } else {
        app = "the app's side was not modelled"
      }
      text =
        "the command at frame \(commandFrame) used the \(label(command.variant)) check and the machine answered "
        + "\(code) with \(label(variant)): a firmware/app version skew; \(app)"
    }
    flow.report(
      Finding(
        "rallie.check-variant-mismatch", .warning, time: message.time, frame: message.frame,
        related: [command.frame], text: text,
        details: [
          .init("command_variant", .string(command.variant)), .init("response_variant", .string(variant)),
          .init("app", event.map { .string($0.name) } ?? .null),
        ]))
  }

  private func label(_ variant: String) -> String {
    RallieCheckVariant(rawValue: variant)?.label ?? variant
  }

  private func late(
    _ command: Command, _ message: FlowMessage, code: String, latency: Double, app: RallieAppParser.Outcome?,
    flow: any FlowContext
  ) {
    let modelled =
      if case .accepted = app {
        "the app build modelled (no timeout) still stored it"
      } else {
        "the app build modelled has no timeout"
      }
    flow.report(
      Finding(
        "rallie.late-response", .warning, time: command.time, frame: command.frame, related: [message.frame],
        text: "\(code) response \(Format.duration(latency)) after the command: \(modelled); "
          + "builds with §3's 2 s timeout had given up",
        details: [.init("latency_s", .number(latency)), .init("code", .string(code))]))
  }

  /// Commands sent before `cutoff` that are still waiting for a response.
  private func expire(olderThan cutoff: Double, flow: any FlowContext) {
    pending.removeAll { command in
      guard command.time < cutoff else { return false }
      unanswered += 1
      var text =
        "no response within 2 s: the app build modelled (sophieluo/rallie) waits without a timeout and keeps "
        + "its last code (\(lastCode ?? "none")); builds with §3's 2 s timeout count the command as failed"
      if let model = command.model, model.name == "command_refused" {
        text += "; the machine may have dropped it (\(model.text))"
      }
      flow.report(
        Finding(
          "rallie.no-response", .warning, time: command.time, frame: command.frame, text: text,
          details: [.init("check_variant", .string(command.variant))]))
      return true
    }
  }

  private func checkInterval(_ gap: Gap, flow: any FlowContext) {
    let seconds = gap.seconds
    if seconds < 2 - Self.intervalSlack {
      flow.report(
        Finding(
          "rallie.command-interval", .warning, time: gap.toTime, frame: gap.toFrame, related: [gap.fromFrame],
          text: "commands \(Format.duration(seconds)) apart: the app sends one every 2–9 s "
            + "(the build modelled at most every 3.0 s), so this is a retry or a second sender",
          details: [.init("interval_s", .number(seconds))]))
    } else if seconds > 9 + Self.intervalSlack {
      flow.report(
        Finding(
          "rallie.command-interval", .note, time: gap.fromTime, frame: gap.fromFrame, related: [gap.toFrame],
          text: "\(Format.duration(seconds)) without a command (the app sends one every 2–9 s): a pause",
          details: [.init("interval_s", .number(seconds))]))
    }
  }

  private func checkFailure(
    _ error: DecodeError, message: FlowMessage, event: DeviceEvent?, side: String, flow: any FlowContext
  ) {
    checkFailures += 1
    let effect =
      side == "machine"
      ? "the app drops the response and keeps its last code (\(lastCode ?? "none"))"
      : "the machine drops the command and does not answer"
    let words = error.words
    flow.report(
      Finding(
        "rallie.check-failure", .error, time: message.time, frame: message.frame,
        text: "the \(side)'s check byte is wrong: \(words.text); \(effect)",
        details: [
          .init("side", .string(side)), .init("found", words.found.map { .string($0) } ?? .null),
          .init("expected", words.expected.map { .string($0) } ?? .null),
          .init("modelled", .bool(event != nil)),
        ]))
  }
}

extension RallieCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { [RallieRules()] }
}
