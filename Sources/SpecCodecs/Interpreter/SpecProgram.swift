import PacketKit

/// A loaded spec made ready to run: the model, the schema the commands
/// read, and what decode looks up per frame computed once (the checks of
/// fixed bytes that come first, kinds by discriminator value, names of
/// enum values). Immutable, shared by every copy of the codec.
public final class SpecProgram: Sendable {
  public let spec: Spec
  public let info: CodecInfo
  /// `spec.name`, read per message without touching the rest of the spec.
  public let name: String

  /// Fixed values at offsets known before anything variable: checked on
  /// whatever bytes a frame has before its length is judged, so a frame
  /// that is not this protocol's says so first.
  struct EarlyFixed: Sendable {
    var name: String
    var offset: Int
    var bytes: [UInt8]
    var error: String
  }

  let earlyFixed: [EarlyFixed]
  /// Message index by the discriminator's value (a header field's, or the frame length).
  let kinds: [Int64: Int]
  /// `kinds` for values 0…255, looked up without hashing (-1: none).
  let smallKinds: [Int]
  /// The longest frame length a kind names (`discriminator: frame-length`).
  let longestFrame: Int
  /// Bytes of the trailer (it must have a static size).
  let trailerSize: Int
  /// Each enum's names for the values 0…255, `unknown(n)` where it has
  /// none (built once: a damaged frame has an unknown value more often
  /// than not), by the enum's name: as decimal and as hex display.
  let enumNames: [String: [String]]
  let hexEnumNames: [String: [String]]
  /// Each message kind's index in `info.messages` (-1: none), for `cleanKind`.
  let schemaIndex: [Int]
  /// The layout compiled for decoding.
  let headerPlan: [SpecFieldPlan]
  let trailerPlan: [SpecFieldPlan]
  let messagePlans: [SpecMessagePlan]
  /// Whether a check names the fields it covers (`from`, `through`):
  /// decode keeps where top-level fields lie only then.
  let checksNameFields: Bool
  /// The error codes of the spec's checks (`probe` scores a frame that
  /// fails only its check above one that is not the protocol's).
  let checkErrors: Set<String>

  public init(_ spec: Spec) {
    self.spec = spec
    name = spec.name
    info = SpecSchema.info(spec)
    schemaIndex = spec.messages.map { [info] message in info.messageIndex(named: message.name) ?? -1 }
    var early: [EarlyFixed] = []
    Self.collectEarly(spec.header, into: &early)
    earlyFixed = early
    var kinds: [Int64: Int] = [:]
    for (index, message) in spec.messages.enumerated() {
      if let when = message.when { kinds[when] = index }
    }
    self.kinds = kinds
    smallKinds = (0...255).map { kinds[Int64($0)] ?? -1 }
    longestFrame = Int(spec.messages.compactMap(\.when).max() ?? 0)
    trailerSize = spec.trailer.compactMap(\.staticSize).reduce(0, +)
    var names: [String: [String]] = [:]
    var hexNames: [String: [String]] = [:]
    for field in SpecLayout.flatten(spec.header + spec.trailer + spec.messages.flatMap(\.fields)) {
      guard let enumeration = field.enumeration, names[enumeration.name] == nil else { continue }
      for display in [SpecDisplay.decimal, .hex] {
        let table = (0...255).map { raw in
          enumeration.value(Int64(raw))?.name ?? Self.unknownName(UInt64(raw), display: display, width: 8)
        }
        if display == .hex { hexNames[enumeration.name] = table } else { names[enumeration.name] = table }
      }
    }
    enumNames = names
    hexEnumNames = hexNames
    headerPlan = spec.header.map(SpecFieldPlan.init)
    trailerPlan = spec.trailer.map(SpecFieldPlan.init)
    messagePlans = spec.messages.map { SpecMessagePlan($0, spec: spec) }
    checksNameFields = SpecLayout.flatten(spec.header + spec.trailer + spec.messages.flatMap(\.fields))
      .contains {
        if case .check(let check) = $0.role { return check.from != nil || check.through != nil }
        return false
      }
    checkErrors = Set(
      SpecLayout.flatten(spec.header + spec.trailer + spec.messages.flatMap(\.fields)).compactMap {
        if case .check(let check) = $0.role { return check.error }
        return nil
      })
  }

  /// `unknown(63)`, or `unknown(0x3f)` for a field shown in hex.
  static func unknownName(_ raw: UInt64, display: SpecDisplay, width: Int) -> String {
    guard display == .hex else { return "unknown(\(raw))" }
    var bytes: [UInt8] = []
    SpecInteger.append(raw, width: max(8, width), order: .big, to: &bytes)
    return "unknown(0x\(Hex.compact(bytes)))"
  }

  private static func collectEarly(_ fields: [SpecField], into early: inout [EarlyFixed]) {
    for field in fields {
      guard let offset = field.offset else { return }
      if case .group(let children) = field.type {
        collectEarly(children, into: &early)
        continue
      }
      if case .fixed(let value, let error) = field.role, let bytes = SpecEncoder.constantBytes(value, field) {
        early.append(EarlyFixed(name: field.name, offset: offset, bytes: bytes, error: error))
      }
    }
  }

  /// The name of an enum value: the spec's, or `unknown(n)`.
  func enumName(_ field: SpecField, _ enumeration: SpecEnum, raw: UInt64, width: Int) -> String {
    if raw < 256, let names = (field.display == .hex ? hexEnumNames : enumNames)[enumeration.name] {
      return names[Int(raw)]
    }
    return enumeration.value(Int64(bitPattern: raw))?.name
      ?? Self.unknownName(raw, display: field.display, width: width)
  }
}

extension SpecProgram {
  /// The message index for a discriminator value, or nil.
  @inline(__always)
  func kind(for value: Int64) -> Int? {
    if value >= 0, value < 256 {
      let kind = smallKinds[Int(value)]
      return kind < 0 ? nil : kind
    }
    return kinds[value]
  }
}
