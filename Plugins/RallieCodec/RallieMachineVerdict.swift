import PacketKit

/// What the machine does with one write, as the model decides it. The
/// firmware is not public, so the order of its checks mirrors the app's
/// parser (length, header and source, check), and after the check:
/// - a command that fails any of these gets no answer: a receiver cannot
///   trust any byte of a frame it failed to verify, and §3's 2 s timeout
///   on the app is there for a command that goes unanswered;
/// - a command that passes them but carries a value outside §3's ranges
///   (or a control other than stop/start) is answered `rejected`, the one
///   refusal §3 names (and what the sample capture's machine does);
/// - any other command is taken: `start` is answered `accepted` (§3:
///   "accepted (started)"), `stop` `completed` (nothing is left to run).
public struct RallieMachineVerdict: Sendable, Equatable {
  /// Why the machine did not take a command.
  public enum Refusal: String, Sendable, Equatable {
    case length
    case headerOrSource = "header-or-source"
    case check
    /// A value outside §3's ranges or an unknown control: answered `rejected`.
    case range
  }

  /// The command's fields, when the frame got as far as being read.
  public var command: RallieCommand?
  /// Nil when the machine took the command.
  public var refusal: Refusal?
  /// Whether the model is sure (the firmware's handling of bad lengths,
  /// sources and ranges is not known, nor, without `--checksum`, its check).
  public var certain: Bool
  /// The code the machine answers with; nil for no answer.
  public var answer: UInt8?
  /// The variants the command's check is valid under.
  public var valid: Set<RallieCheckVariant>
  /// A few words for people: why, or what was set.
  public var words: String

  public var taken: Bool { refusal == nil }

  /// The machine's verdict on `bytes`, a write to it, given what is known
  /// of its check.
  public static func judge(_ bytes: [UInt8], check: RallieMachineCheck) -> RallieMachineVerdict {
    let length = RallieSchema.commandLength
    guard bytes.count == length else {
      return refused(.length, certain: false, words: "\(bytes.count) bytes; a command is exactly \(length)")
    }
    let header = RallieMagic.bytes + [RallieSource.command]
    guard bytes.starts(with: header) else {
      return refused(
        .headerOrSource, certain: false,
        words: "starts \(Hex.spaced(Array(bytes.prefix(3)))); a command starts \(Hex.spaced(header))")
    }
    let covered = bytes[0..<(length - 1)]
    let found = bytes[length - 1]
    let valid = RallieCheckVariant.valid(covered, check: found)
    let command = RallieCommand(
      upperWheel: bytes[3], lowerWheel: bytes[4], pitch: bytes[5], yaw: bytes[6], feed: bytes[7],
      control: bytes[8])
    let (takes, sure) = check.takes(valid)
    guard takes else {
      var verdict = refused(
        .check, certain: sure, words: checkWords(covered, found: found, valid: valid, check: check))
      verdict.command = command
      verdict.valid = valid
      return verdict
    }
    let outside = outOfRange(command)
    if !outside.isEmpty {
      return RallieMachineVerdict(
        command: command, refusal: .range, certain: false, answer: RallieResponseCode.rejected,
        valid: valid, words: outside.joined(separator: ", "))
    }
    let starts = command.control == RallieControl.start
    return RallieMachineVerdict(
      command: command, refusal: nil, certain: sure,
      answer: starts ? RallieResponseCode.accepted : RallieResponseCode.completed, valid: valid,
      words: settingWords(command))
  }

  private static func refused(_ refusal: Refusal, certain: Bool, words: String) -> RallieMachineVerdict {
    RallieMachineVerdict(
      command: nil, refusal: refusal, certain: certain, answer: nil, valid: [], words: words)
  }

  /// "pitch 120 > 90, control 7 (not stop or start)".
  static func outOfRange(_ command: RallieCommand) -> [String] {
    let limits: [(String, UInt8, UInt8)] = [
      ("upper_wheel", command.upperWheel, 100), ("lower_wheel", command.lowerWheel, 100),
      ("pitch", command.pitch, 90), ("yaw", command.yaw, 90), ("feed", command.feed, 100),
    ]
    var outside = limits.filter { $0.1 > $0.2 }.map { "\($0.0) \($0.1) > \($0.2)" }
    if command.control > RallieControl.start {
      outside.append("control \(command.control) (not stop or start)")
    }
    return outside
  }

  /// "start: upper 60 %, lower 40 %, pitch 30°, yaw 45°, feed 50 %".
  static func settingWords(_ command: RallieCommand) -> String {
    "\(RallieNames.control(command.control)): upper \(command.upperWheel) %, lower \(command.lowerWheel) %, "
      + "pitch \(command.pitch)°, yaw \(command.yaw)°, feed \(command.feed) %"
  }

  private static func checkWords(
    _ covered: ArraySlice<UInt8>, found: UInt8, valid: Set<RallieCheckVariant>, check: RallieMachineCheck
  ) -> String {
    let found = "0x\(Hex.spaced([found]))"
    guard let variant = valid.first else {
      let expected = RallieCheckVariant.allCases.map { "\($0.label) 0x\(Hex.spaced([$0.check(covered)]))" }
      return "check \(found) matches neither \(expected.joined(separator: " nor "))"
    }
    return "\(variant.label) check \(found); the machine checks \(check.words)"
  }
}

/// Protocol names of the enumeration bytes, `unknown(n)` as the decoder writes it.
enum RallieNames {
  static func control(_ raw: UInt8) -> String {
    RallieSchema.control.enumCase(raw: Int64(raw))?.name ?? "unknown(\(raw))"
  }

  static func code(_ raw: UInt8) -> String {
    RallieSchema.code.enumCase(raw: Int64(raw))?.name ?? "unknown(\(raw))"
  }
}
