import PacketKit

/// The Rallie machine and the app that drives it, as plain state.
///
/// The machine (`.toDevice` messages are writes to it): its firmware is not
/// public, so what it takes follows `RallieMachineVerdict` and what it
/// checks `RallieMachineCheck`. It keeps the settings of the last command
/// it took.
///
/// The app (`.fromDevice` messages are the machine's notifications to it):
/// the `sophieluo/rallie` build recorded in device-truth, whose parser
/// (`RallieAppParser`) accepts an XOR-checked `5A A5 82` response of 5 bytes
/// and stores its code, whatever the code. An app that writes MODBUS-low
/// commands is a later build whose parser is not known: from then on, what
/// it makes of a response's check is said with `certain` false.
///
/// In analysis, the machine's responses tell which check variant it writes
/// and whether it took a command the model was unsure of; a response to a
/// command the model is sure the machine dropped is a mismatch. In
/// emulation the model is the machine alone and answers with `replies`.
/// Neither side has a timer here: the app build keeps no timeout.
public struct RallieModel: DeviceModel {
  public let mode: ModelMode
  public private(set) var check: RallieMachineCheck
  /// The settings of the last command the machine took; nil before one.
  public private(set) var settings: RallieCommand?
  /// The code the app stored last; nil before one.
  public private(set) var lastCode: UInt8?
  /// Whether the app wrote a MODBUS-low command: it is not the build modelled.
  public private(set) var appIsLaterBuild = false
  /// The last command written to the machine, until the machine answers it.
  private var awaiting: Awaiting?

  private struct Awaiting {
    var frame: Int?
    var time: Double
    var verdict: RallieMachineVerdict
    /// The machine's settings before it, to go back to if it was refused after all.
    var before: RallieCommand?
  }

  public init(mode: ModelMode, checksum: RallieCheckVariant?) {
    self.mode = mode
    self.check = RallieMachineCheck(configured: checksum)
  }

  public var nextDeadline: Double? { nil }

  public mutating func advance(to time: Double) -> [DeviceEvent] { [] }

  public mutating func finish(end: Double?) -> [DeviceEvent] { [] }

  public mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    // Transport events carry nothing for either side; a payload the caller
    // left out cannot be judged.
    guard message.event == nil, message.payload.count == message.size else { return [] }
    switch heading {
    case .toDevice: return [machineTakes(message)]
    case .fromDevice: return [appTakes(message)]
    }
  }

  // MARK: The machine

  private mutating func machineTakes(_ message: FlowMessage) -> DeviceEvent {
    let bytes = message.payload
    var verdict = RallieMachineVerdict.judge(bytes, check: check)
    if mode == .emulation { verdict.certain = true }
    if verdict.valid == [.modbus16lo] { appIsLaterBuild = true }
    let before = settings
    if verdict.taken, let command = verdict.command { settings = command }
    awaiting = Awaiting(frame: message.frame, time: message.time, verdict: verdict, before: before)

    let replies: [DeviceReply] =
      verdict.answer.map { code in
        let variant = check.answerVariant(for: verdict.valid)
        return [.send(RallieModel.response(code, variant))]
      } ?? []
    let answer = verdict.answer.map { "answers \(RallieNames.code($0))" } ?? "no answer"
    let text =
      verdict.taken
      ? "\(verdict.words); \(answer)"
      : "\(verdict.refusal?.rawValue ?? "?"): \(verdict.words); \(answer)"
    return DeviceEvent(
      time: message.time, frame: message.frame, name: verdict.taken ? "command_accepted" : "command_refused",
      certain: verdict.certain, state: state, text: text, replies: replies)
  }

  /// A response frame: magic, the machine's source, code, check.
  static func response(_ code: UInt8, _ variant: RallieCheckVariant) -> [UInt8] {
    var bytes = RallieMagic.bytes + [RallieSource.response, code]
    bytes.append(variant.check(bytes))
    return bytes
  }

  // MARK: The app

  private mutating func appTakes(_ message: FlowMessage) -> DeviceEvent {
    let bytes = message.payload
    let outcome = RallieAppParser.parse(bytes)
    var notes: [String] = []
    var mismatch: String?
    if mode == .analysis, let answer = Answer(bytes) {
      (notes, mismatch) = machineAnswered(answer, frame: message.frame, time: message.time)
    }

    let name: String
    var certain = true
    var text: String
    switch outcome {
    case .accepted(let code):
      lastCode = code
      name = "response_accepted"
      certain = !appIsLaterBuild
      text = "the app stored \(RallieNames.code(code))"
      if appIsLaterBuild {
        text += " (as the modelled build would; this app writes MODBUS-low, a later build)"
      }
    case .dropped(let drop):
      name = "response_dropped"
      text = "\(drop.rawValue): " + RallieModel.dropWords(drop, bytes)
      if drop == .check {
        certain = !appIsLaterBuild
        if appIsLaterBuild {
          text += " (this app writes MODBUS-low: a later build, whose check is not known)"
        }
      }
      text += "; the app keeps " + (lastCode.map { RallieNames.code($0) } ?? "no code")
    }
    if !notes.isEmpty { text += "; " + notes.joined(separator: "; ") }
    return DeviceEvent(
      time: message.time, frame: message.frame, name: name, certain: certain, state: state, text: text,
      mismatch: mismatch)
  }

  /// A notification that is the machine's answer to a command: 5 bytes
  /// starting with the magic (whatever the source byte says).
  private struct Answer {
    var code: UInt8
    var valid: Set<RallieCheckVariant>

    init?(_ bytes: [UInt8]) {
      guard bytes.count == RallieSchema.responseLength, bytes.starts(with: RallieMagic.bytes) else {
        return nil
      }
      code = bytes[3]
      valid = RallieCheckVariant.valid(bytes[0..<4], check: bytes[4])
    }
  }

  /// What the machine's answer says about the command it answers: whether
  /// the model was wrong where it was sure, what the machine writes, and
  /// whether it took the command after all.
  private mutating func machineAnswered(_ answer: Answer, frame: Int?, time: Double) -> (
    notes: [String], mismatch: String?
  ) {
    var notes: [String] = []
    var mismatches: [String] = []
    let answered = "the machine answered (frame \(frame.map(String.init) ?? "?"))"
    if let configured = check.configured, !answer.valid.isEmpty, !answer.valid.contains(configured) {
      mismatches.append(
        "\(answered) with a \(answer.valid.map(\.label).sorted().joined(separator: "/")) check, "
          + "but the machine was set to \(configured.label) (--checksum \(configured.rawValue))")
    }
    check.heard(answer.valid)
    guard let command = awaiting else {
      notes.append("no command was waiting for it")
      return (notes, mismatches.first)
    }
    awaiting = nil
    let of = "the command at frame \(command.frame.map(String.init) ?? "?")"
    notes.append("answers \(of) after \(Format.duration(time - command.time))")
    let verdict = command.verdict
    if verdict.answer == nil, verdict.certain {
      mismatches.append("\(answered) \(of), which the model says it drops: \(verdict.words)")
    }
    guard !answer.valid.isEmpty else { return (notes, mismatches.first) }
    // The code says whether the machine took the command.
    switch answer.code {
    case RallieResponseCode.accepted, RallieResponseCode.completed:
      if !verdict.taken, let taken = verdict.command {
        settings = taken
        notes.append("the machine took \(of) after all")
      }
    case RallieResponseCode.rejected:
      if verdict.taken {
        settings = command.before
        notes.append("the machine refused \(of)")
      }
    default:
      break
    }
    return (notes, mismatches.first)
  }

  /// "MODBUS-low check 0xA3; this app build accepts XOR only (0x7C)".
  static func dropWords(_ drop: RallieAppParser.Drop, _ bytes: [UInt8]) -> String {
    switch drop {
    case .length:
      return "\(bytes.count) bytes; the app takes exactly \(RallieSchema.responseLength)"
    case .headerOrSource:
      return
        "starts \(Hex.spaced(Array(bytes.prefix(3)))); the app takes \(Hex.spaced(RallieAppParser.header))"
    case .check:
      let covered = bytes.prefix(4)
      let found = bytes.last ?? 0
      let xor = RallieCheckVariant.xor.check(covered)
      let modbus = RallieCheckVariant.modbus16lo.check(covered)
      guard modbus == found else {
        return "check 0x\(Hex.spaced([found])) matches neither XOR 0x\(Hex.spaced([xor])) "
          + "nor MODBUS-low 0x\(Hex.spaced([modbus]))"
      }
      return
        "MODBUS-low check 0x\(Hex.spaced([found])), this app build accepts XOR only (0x\(Hex.spaced([xor])))"
    }
  }

  // MARK: State

  /// `{"control", "upper_wheel", "lower_wheel", "pitch", "yaw", "feed", "last_code"}`:
  /// the machine's settings (null before it took a command) and the app's stored code.
  public var state: [FieldValue.Member] {
    func byte(_ value: UInt8?) -> FieldValue { value.map { .integer(Int64($0)) } ?? .null }
    return [
      .init("control", settings.map { .string(RallieNames.control($0.control)) } ?? .null),
      .init("upper_wheel", byte(settings?.upperWheel)),
      .init("lower_wheel", byte(settings?.lowerWheel)),
      .init("pitch", byte(settings?.pitch)),
      .init("yaw", byte(settings?.yaw)),
      .init("feed", byte(settings?.feed)),
      .init("last_code", lastCode.map { .string(RallieNames.code($0)) } ?? .null),
    ]
  }
}
