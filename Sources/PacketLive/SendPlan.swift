import PacketDecode
import PacketKit

/// What `send` sends: steps separated by `then`, each a message named as
/// `craft` names it with `craft`'s field flags, plus its own pacing:
/// `--rate 20hz`, `--count N`, `--duration 5s`.
///
///     drive --left 40 --right 40 --rate 20hz --duration 5s
///     auth --secret S then frame --jpeg a.jpg --rate 30hz --count 90
package struct SendStep: Sendable {
  package var codec: any FrameCodec
  package var schema: MessageSchema
  package var values: CraftValues
  /// Time between sends; nil for a single message.
  var periodNanoseconds: UInt64?
  package var count: Int?
  package var durationNanoseconds: UInt64?
  /// A camera frame without --frame-id gets f-0001, f-0002, … as the app numbers its frames.
  var numbersFrames = false

  /// The values for message number `index` (0-based) of the step.
  package func values(forMessage index: Int) -> CraftValues {
    guard numbersFrames else { return values }
    var numbered = values
    let number = String(index + 1)
    numbered["frameId"] = .string("f-" + String(repeating: "0", count: max(0, 4 - number.count)) + number)
    return numbered
  }

  /// Whether message number `sent` (0-based) would be past the step's end.
  package func isFinished(afterSending sent: Int) -> Bool {
    guard let periodNanoseconds else { return sent >= (count ?? 1) }
    if let count, sent >= count { return true }
    if let durationNanoseconds, UInt64(sent) * periodNanoseconds >= durationNanoseconds { return true }
    return false
  }

  /// "drive, 20 Hz for 5 s" for the report.
  package var label: String {
    var text = schema.name
    if let periodNanoseconds { text += ", \(SendPlan.hertzText(periodNanoseconds)) Hz" }
    if let count { text += ", \(count)×" }
    if let durationNanoseconds { text += " for \(DurationText.of(Double(durationNanoseconds) / 1e9))" }
    return text
  }
}

/// One step of `send`: messages to send, a pause, or a message to wait for.
package enum SendAction: Sendable {
  case send(SendStep)
  /// `wait 200ms`: nothing is sent for this long.
  case wait(nanoseconds: UInt64)
  /// `expect MESSAGE [--field value …] [--within 2s]`.
  case expect(SendExpectation)

  package var label: String {
    switch self {
    case .send(let step): step.label
    case .wait(let nanoseconds): "wait \(DurationText.of(Double(nanoseconds) / 1e9))"
    case .expect(let expectation): expectation.label
    }
  }
}

package enum SendPlan {
  /// The default pace when --count or --duration is given without --rate.
  static let defaultPeriodNanoseconds: UInt64 = 1_000_000_000
  /// No faster than this: a loop faster than 100 kHz would measure itself.
  static let minimumPeriodNanoseconds: UInt64 = 10_000

  /// Splits `tokens` on `then` and parses each step. `pathField` fills a
  /// field the user left out from the URL's path, where a codec names one
  /// (`WebSocketPathField`).
  package static func parse(
    _ tokens: [String], codecs: CodecSet, force: Bool, badCheck: Bool,
    pathField: (field: String, value: String)?
  )
    throws(CommandFailure) -> [SendAction]
  {
    var groups: [[String]] = [[]]
    for token in tokens {
      if token == "then" {
        groups.append([])
      } else {
        groups[groups.count - 1].append(token)
      }
    }
    guard groups.contains(where: { !$0.isEmpty }) else {
      throw CommandFailure(
        "nothing to send: name a message after the destination, e.g. "
          + (codecs.examples(for: "send").first?.split(separator: " ").dropFirst(2).joined(separator: " ")
            ?? "MESSAGE --rate 20hz"))
    }
    var steps: [SendAction] = []
    for (index, group) in groups.enumerated() {
      guard let name = group.first else {
        throw CommandFailure(
          "step \(index + 1) is empty: 'then' must be followed by a message, wait or expect")
      }
      switch name {
      case "wait":
        guard group.count == 2, let duration = DurationArgument(argument: group[1]), duration.seconds > 0
        else {
          throw CommandFailure("wait takes one time, such as wait 200ms or wait 2s")
        }
        steps.append(.wait(nanoseconds: duration.nanoseconds))
      case "expect":
        steps.append(.expect(try SendExpectation.parse(Array(group.dropFirst()), codecs: codecs)))
      default:
        steps.append(
          .send(
            try step(
              name, Array(group.dropFirst()), codecs: codecs, force: force, badCheck: badCheck,
              pathField: pathField)))
      }
    }
    guard steps.contains(where: { if case .send = $0 { true } else { false } }) else {
      throw CommandFailure("nothing to send: the steps only wait and expect; name a message to send")
    }
    return steps
  }

  static func step(
    _ name: String, _ arguments: [String], codecs: CodecSet, force: Bool, badCheck: Bool,
    pathField: (field: String, value: String)? = nil
  ) throws(CommandFailure) -> SendStep {
    let (codec, schema) = try CraftArguments.resolve(name, codecs: codecs)
    var fieldArguments: [String] = []
    var rate: String?
    var count: Int?
    var duration: DurationArgument?
    var index = 0
    while index < arguments.count {
      let (token, inline) = splitFlag(arguments[index])
      guard ["--rate", "--count", "--duration"].contains(token) else {
        fieldArguments.append(arguments[index])
        index += 1
        continue
      }
      guard let value = inline ?? (index + 1 < arguments.count ? arguments[index + 1] : nil) else {
        throw CommandFailure("\(token) needs a value (\(name))")
      }
      index += inline == nil ? 2 : 1
      switch token {
      case "--rate": rate = value
      case "--count":
        guard let parsed = Int(value), parsed >= 1 else {
          throw CommandFailure("--count takes a whole number of at least 1, not '\(value)'")
        }
        count = parsed
      default:
        guard let parsed = DurationArgument(argument: value), parsed.seconds > 0 else {
          throw CommandFailure("--duration takes a time such as 5s, 500ms or 2m, not '\(value)'")
        }
        duration = parsed
      }
    }
    if let pathField, let field = schema.field(named: pathField.field),
      !fieldArguments.contains(where: { $0 == "--\(field.flag)" || $0.hasPrefix("--\(field.flag)=") })
    {
      fieldArguments += ["--\(field.flag)", pathField.value]
    }
    let values = try CraftArguments(schema: schema, codecName: codec.info.name, codecs: codecs)
      .values(fieldArguments, force: force, badCheck: badCheck)
    var period: UInt64?
    if let rate { period = try periodNanoseconds(rate) }
    if period == nil, count != nil || duration != nil { period = defaultPeriodNanoseconds }
    let numbersFrames =
      schema.field(named: "frameId") != nil
      && !fieldArguments.contains { $0 == "--frame-id" || $0.hasPrefix("--frame-id=") }
    let step = SendStep(
      codec: codec, schema: schema, values: values, periodNanoseconds: period, count: count,
      durationNanoseconds: duration?.nanoseconds, numbersFrames: numbersFrames)
    // Craft once now, so a missing field is one clear line before any socket opens.
    _ = try bytes(for: step)
    return step
  }

  /// `20hz`, `20Hz`, `20/s` or `20` (per second); `50ms` or `0.5s` (the period).
  static func periodNanoseconds(_ text: String) throws(CommandFailure) -> UInt64 {
    let lower = text.lowercased()
    var hertz: Double?
    if lower.hasSuffix("hz") {
      hertz = Double(lower.dropLast(2))
    } else if lower.hasSuffix("/s") {
      hertz = Double(lower.dropLast(2))
    } else if let plain = Double(lower) {
      hertz = plain
    } else if let period = DurationArgument(argument: lower), period.seconds > 0 {
      hertz = 1 / period.seconds
    }
    guard let hertz, hertz.isFinite, hertz > 0 else {
      throw CommandFailure("--rate '\(text)': expected a rate such as 20hz, 20/s or 50ms (a period)")
    }
    let period = 1e9 / hertz
    guard period >= Double(minimumPeriodNanoseconds) else {
      throw CommandFailure("--rate '\(text)' is too fast: at most 100000 messages per second")
    }
    guard period <= 86_400e9 else { throw CommandFailure("--rate '\(text)' is slower than once a day") }
    return UInt64(period.rounded())
  }

  /// Crafts the step's message now (timestamps that default to now are fresh).
  static func bytes(for step: SendStep, message index: Int = 0) throws(CommandFailure) -> [UInt8] {
    do {
      return try step.codec.craft(step.schema.name, values: step.values(forMessage: index))
    } catch {
      if error.code == "missing-field", !error.text.contains("--"), let name = error.field,
        let field = step.schema.field(named: name)
      {
        throw CommandFailure(
          "\(step.schema.name) needs --\(field.flag) (\(field.name): \(field.help))")
      }
      let hint = error.forceCrafts && !step.values.force ? " (use --force to send it anyway)" : ""
      throw CommandFailure("\(step.schema.name): \(error.text)\(hint)")
    }
  }

  static func hertzText(_ periodNanoseconds: UInt64) -> String {
    let hertz = 1e9 / Double(periodNanoseconds)
    return hertz.rounded() == hertz ? String(Int64(hertz)) : SummaryRenderer.fixed(hertz, digits: 3)
  }
}
