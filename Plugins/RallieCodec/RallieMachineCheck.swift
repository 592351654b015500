import PacketKit

/// What is known of the check the machine's firmware verifies. Its code is
/// not public: v0.3 checks XOR, later firmware the low byte of
/// CRC-16/MODBUS (docs/protocols.md §3). `--checksum` says which; without it,
/// the machine's own responses tell which variant it writes, and a
/// firmware is taken to verify the variant it writes.
public struct RallieMachineCheck: Sendable, Equatable {
  /// The one variant the machine speaks, when the setting gave it.
  public var configured: RallieCheckVariant?
  /// The variants the machine's responses were written in (a response whose
  /// check is valid under one variant only).
  public private(set) var answered: Set<RallieCheckVariant> = []

  public init(configured: RallieCheckVariant?) {
    self.configured = configured
  }

  /// Whether the machine takes a frame whose check is valid under `valid`
  /// (empty: under neither), and whether that is certain.
  public func takes(_ valid: Set<RallieCheckVariant>) -> (takes: Bool, certain: Bool) {
    // A check that fails under both variants fails under any firmware.
    if valid.isEmpty { return (false, true) }
    if let configured { return (valid.contains(configured), true) }
    if !answered.isDisjoint(with: valid) { return (true, true) }
    // Nothing (or only the other variant) heard from the machine yet:
    // v0.3's XOR is the default, but the firmware may be later.
    if answered.isEmpty { return (valid.contains(.xor), false) }
    return (false, false)
  }

  /// The variant the machine writes its responses in: the setting's, else
  /// the one it was heard writing, else the command's own (XOR first).
  public func answerVariant(for valid: Set<RallieCheckVariant>) -> RallieCheckVariant {
    if let configured { return configured }
    if answered.count == 1, let only = answered.first { return only }
    return valid.contains(.xor) || valid.isEmpty ? .xor : .modbus16lo
  }

  /// The machine wrote a response whose check is valid under `valid`.
  public mutating func heard(_ valid: Set<RallieCheckVariant>) {
    guard valid.count == 1 else { return }
    answered.formUnion(valid)
  }

  /// How texts name what the machine checks: "XOR (--checksum xor)".
  var words: String {
    if let configured { return "\(configured.label) (--checksum \(configured.rawValue))" }
    if answered.count == 1, let only = answered.first {
      return "\(only.label) (its responses carry \(only.label))"
    }
    if answered.isEmpty { return "XOR if it is v0.3 firmware (no --checksum, no response seen yet)" }
    return "XOR and MODBUS-low (its responses carried both)"
  }
}

extension RallieCheckVariant {
  /// The variants under which `check` is right for `covered` (the bytes
  /// before it): none, one, or both (one frame in 256).
  public static func valid<C: Collection>(_ covered: C, check: UInt8) -> Set<RallieCheckVariant>
  where C.Element == UInt8 {
    Set(allCases.filter { $0.check(covered) == check })
  }
}
