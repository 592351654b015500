import PacketKit

/// Rallie v0.3 (PROTOCOLS.md §3): the app writes a command every 2–9 s and
/// waits up to 2 s for the machine's response (accepted or completed is
/// success). Both sides' check byte is XOR (v0.3) or, on later firmware,
/// the low byte of CRC-16/MODBUS; a side answering in the other variant
/// than the one it was spoken to in is a firmware/app version skew.
final class RallieRules: FlowRules {
  static let interval = ExpectedRate(
    text: "one every 2–9 s", lowHz: 1 / 9.0, highHz: 1 / 2.0, pauseAfter: nil, rule: nil,
    minimumIntervals: 1, intervalSlack: intervalSlack)
  static let timeout = 2.0
  /// Jitter allowed around the app's 2–9 s before an interval is reported.
  static let intervalSlack = 0.05
  /// Exchanges listed in the text report; the rest are counted.
  static let exchangeLines = 20
  /// Exchanges listed in the report; the rest are counted.
  static let exchangesKept = 200
  /// Commands still waiting for a response that are remembered.
  static let pendingLimit = 8

  private struct Command {
    var frame: Int?
    var time: Double
    var variant: String
    var outOfRange: [String]
  }

  private struct Exchange {
    var command: Command
    var responseFrame: Int?
    var code: String
    var latency: Double
  }

  private var pending: [Command] = []
  private var lastCommand: Command?
  private var exchanges: [Exchange] = []
  private var exchangeCount = 0
  private var variants: [String: [String: Int]] = ["app": [:], "machine": [:]]
  private var checkFailures = 0
  private var unanswered = 0

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    guard message.codec == "rallie" else { return }
    if let error = message.error, error.code == "bad-check" {
      checkFailure(error, message: message, flow: flow)
      return
    }
    switch message.message {
    case "command":
      flow.setRoles(
        client: message.source, server: message.destination, clientRole: "app", serverRole: "machine")
      command(message, flow: flow)
    case "response":
      flow.setRoles(
        client: message.destination, server: message.source, clientRole: "app", serverRole: "machine")
      response(message, flow: flow)
    default:
      break
    }
  }

  func claims(_ error: DecodeError, in message: FlowMessage) -> Bool {
    message.codec == "rallie" && error.code == "bad-check"
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    expire(olderThan: captureEnd - Self.timeout, flow: flow)
    let app = variants["app"] ?? [:]
    let machine = variants["machine"] ?? [:]
    if app.count == 1, machine.count == 1, let spoken = app.keys.first, let answered = machine.keys.first,
      spoken != answered, let last = lastCommand
    {
      flow.report(
        Finding(
          "rallie.check-variant-skew", .warning, time: last.time, frame: last.frame,
          text: "the app checks every frame with \(spoken) and the machine with \(answered): "
            + "a firmware/app version skew (v0.3 is XOR, later firmware MODBUS-low)",
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
            ])
          })),
    ]
  }

  func summaryLines() -> [String] {
    guard !exchanges.isEmpty else { return [] }
    var out = ["exchanges (command → response, latency, check):"]
    for exchange in exchanges.prefix(Self.exchangeLines) {
      out.append(
        "  frame \(exchange.command.frame.map(String.init) ?? "?") → "
          + "\(exchange.responseFrame.map(String.init) ?? "?")  \(exchange.code)  "
          + "\(Format.duration(exchange.latency))  \(exchange.command.variant)")
    }
    if exchangeCount > Self.exchangeLines {
      out.append("  … \(exchangeCount - Self.exchangeLines) more")
    }
    return out
  }

  // MARK: Rules

  private func command(_ message: FlowMessage, flow: any FlowContext) {
    expire(olderThan: message.time - Self.timeout, flow: flow)
    let variant = message.string("check_variant") ?? "?"
    variants["app", default: [:]][variant, default: 0] += 1
    let ranges: [(String, Double)] = [
      ("upper_wheel", 100), ("lower_wheel", 100), ("pitch", 90), ("yaw", 90), ("feed", 100),
    ]
    let outOfRange = ranges.compactMap { name, limit in
      message.number(name).flatMap {
        $0 > limit ? "\(name) \(JSONWriter.formatNumber($0)) > \(JSONWriter.formatNumber(limit))" : nil
      }
    }
    let now = Command(frame: message.frame, time: message.time, variant: variant, outOfRange: outOfRange)
    let gap = flow.count(
      "command", direction: "app → machine", expected: Self.interval, frame: message.frame, time: message.time
    )
    if let gap { checkInterval(gap, flow: flow) }
    pending.append(now)
    if pending.count > Self.pendingLimit { pending.removeFirst() }
    lastCommand = now
  }

  private func response(_ message: FlowMessage, flow: any FlowContext) {
    let variant = message.string("check_variant") ?? "?"
    variants["machine", default: [:]][variant, default: 0] += 1
    flow.count("response", direction: "machine → app", frame: message.frame, time: message.time)
    let code = message.string("code") ?? "?"
    // The app waits for one response at a time: it answers the newest command.
    guard let command = pending.popLast() else {
      flow.report(
        Finding(
          "rallie.unexpected-response", .warning, time: message.time, frame: message.frame,
          text: "\(code) response with no command waiting for it"))
      return
    }
    expire(olderThan: .infinity, flow: flow)
    let latency = message.time - command.time
    flow.measure("response_latency", text: "command → response", latency)
    exchangeCount += 1
    if exchanges.count < Self.exchangesKept {
      exchanges.append(Exchange(command: command, responseFrame: message.frame, code: code, latency: latency))
    }
    if latency > Self.timeout {
      flow.report(
        Finding(
          "rallie.late-response", .warning, time: command.time, frame: command.frame,
          related: [message.frame],
          text: "\(code) response \(Format.duration(latency)) after the command: the app gave up after 2 s",
          details: [.init("latency_s", .number(latency)), .init("code", .string(code))]))
    }
    if variant != command.variant {
      flow.report(
        Finding(
          "rallie.check-variant-mismatch", .warning, time: message.time, frame: message.frame,
          related: [command.frame],
          text: "the command used the \(command.variant) check and the machine answered with \(variant): "
            + "a firmware/app version skew",
          details: [
            .init("command_variant", .string(command.variant)), .init("response_variant", .string(variant)),
          ]))
    }
    switch code {
    case "accepted", "completed":
      if !command.outOfRange.isEmpty {
        flow.report(
          Finding(
            "rallie.out-of-range-accepted", .warning, time: command.time, frame: command.frame,
            related: [message.frame],
            text: "the machine \(code) a command with \(command.outOfRange.joined(separator: ", "))"))
      }
    default:
      let why = command.outOfRange.isEmpty ? "" : " (\(command.outOfRange.joined(separator: ", ")))"
      flow.report(
        Finding(
          "rallie.rejected", .warning, time: command.time, frame: command.frame, related: [message.frame],
          text: "the machine answered \(code) to the command\(why) after \(Format.duration(latency))",
          details: [.init("code", .string(code)), .init("latency_s", .number(latency))]))
    }
  }

  /// Commands sent before `cutoff` that are still waiting: the app timed
  /// out on each of them.
  private func expire(olderThan cutoff: Double, flow: any FlowContext) {
    pending.removeAll { command in
      guard command.time < cutoff else { return false }
      unanswered += 1
      flow.report(
        Finding(
          "rallie.no-response", .error, time: command.time, frame: command.frame,
          text: "no response within 2 s: the app timed out and treats the command as failed",
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
          text: "commands \(Format.duration(seconds)) apart: the app sends one every 2–9 s, "
            + "so this is a retry or a second sender",
          details: [.init("interval_s", .number(seconds))]))
    } else if seconds > 9 + Self.intervalSlack {
      flow.report(
        Finding(
          "rallie.command-interval", .note, time: gap.fromTime, frame: gap.fromFrame, related: [gap.toFrame],
          text: "\(Format.duration(seconds)) without a command (the app sends one every 2–9 s): a pause",
          details: [.init("interval_s", .number(seconds))]))
    }
  }

  private func checkFailure(_ error: DecodeError, message: FlowMessage, flow: any FlowContext) {
    checkFailures += 1
    // Commands are 10 bytes, responses 5 (§3).
    let isResponse = message.size == 5
    let side = isResponse ? "machine" : "app"
    let effect =
      isResponse
      ? "the app treats the response as a failure" : "the machine ignores the command"
    if isResponse, let command = pending.popLast() {
      exchangeCount += 1
      if exchanges.count < Self.exchangesKept {
        exchanges.append(
          Exchange(
            command: command, responseFrame: message.frame, code: "bad-check",
            latency: message.time - command.time))
      }
    }
    let words = error.words
    flow.report(
      Finding(
        "rallie.check-failure", .error, time: message.time, frame: message.frame,
        text: "the \(side)'s check byte is wrong: \(words.text); \(effect)",
        details: [
          .init("side", .string(side)), .init("found", words.found.map { .string($0) } ?? .null),
          .init("expected", words.expected.map { .string($0) } ?? .null),
        ]))
  }
}

extension RallieCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { [RallieRules()] }
}
