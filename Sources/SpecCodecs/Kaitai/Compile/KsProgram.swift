import PacketKit

/// One message kind of a `.ksy` codec: a case of the message switch (a
/// user type), a value of the message enum, or the whole format.
struct KsMessageKind: Sendable {
  var name: String
  /// The case's type (switch kinds); the enum value (enum kinds).
  var type: Int?
  var value: Int64?
  var keys: KsyMessageKeys
  var summary: String
}

/// Bytes at fixed offsets from the frame's start that must be what they
/// are: checked on the bytes a frame has before anything else, so a
/// frame that is not the protocol's says so first (at the first byte that
/// differs), however short it is.
struct KsEarlyCheck: Sendable {
  var id: String
  var offset: Int
  var bytes: [UInt8]
  var code: String
}

/// Which values an enum names: a table for 0…255, a set beyond.
struct KsKnownValues: Sendable {
  var small: [Bool]
  var large: Set<Int64>

  init(_ values: [Int64]) {
    small = Array(repeating: false, count: 256)
    large = []
    for value in values {
      if value >= 0, value < 256 { small[Int(value)] = true } else { large.insert(value) }
    }
  }

  @inline(__always)
  func contains(_ value: Int64) -> Bool {
    value >= 0 && value < 256 ? small[Int(value)] : large.contains(value)
  }
}

/// A `.ksy` compiled with what makes it a codec: its message kinds and
/// how they are told, the checks done first, and the schema pktbench's
/// commands read. Immutable; shared by every copy of the codec.
final class KsProgram: Sendable {
  let plan: KsPlan
  let keys: KsyProtocolKeys
  let name: String
  let title: String
  let file: String
  /// The root slot of the message switch (-1: none).
  let messageSlot: Int
  let kinds: [KsMessageKind]
  let kindByType: [Int: Int]
  /// Enum kinds: the path to the enum field, and kinds by value.
  let enumSelector: KsCode?
  let kindByValue: [Int64: Int]
  let unknown: SpecUnknownMessage
  /// The attribute the message switch is on (its range is where an
  /// unknown kind's warning points; it gets no unknown-enum warning).
  let discriminator: (type: Int, slot: Int)?
  let discriminatorPath: KsCode?
  /// Message kinds told by the frame's size: those sizes.
  let frameSizes: [Int64]
  let early: [KsEarlyCheck]
  /// Length and count fields, and the fields `craft` never takes because
  /// the content or the message kind gives them: (type, slot).
  let measures: [KsMeasure]
  let computed: Set<[Int]>
  let enumIsKnown: [KsKnownValues]
  let hasCheck: Bool
  /// The codes of the checks' errors (`probe` scores a frame that fails
  /// only its check above one that is not the protocol's).
  let checkErrors: Set<String>
  let pool = KsArenaPool()

  init(
    plan: KsPlan, keys: KsyProtocolKeys, name: String, title: String, messageSlot: Int,
    kinds: [KsMessageKind],
    enumSelector: KsCode?, unknown: SpecUnknownMessage, discriminator: (type: Int, slot: Int)?,
    discriminatorPath: KsCode?, frameSizes: [Int64], early: [KsEarlyCheck], measures: [KsMeasure]
  ) {
    self.measures = measures
    var computed = Set(measures.map { [$0.target.type, $0.target.slot] })
    if let discriminator { computed.insert([discriminator.type, discriminator.slot]) }
    self.computed = computed
    self.plan = plan
    self.keys = keys
    self.name = name
    self.title = title
    file = plan.file
    self.messageSlot = messageSlot
    self.kinds = kinds
    var byType: [Int: Int] = [:]
    var byValue: [Int64: Int] = [:]
    for (index, kind) in kinds.enumerated() {
      if let type = kind.type, byType[type] == nil { byType[type] = index }
      if let value = kind.value { byValue[value] = index }
    }
    kindByType = byType
    kindByValue = byValue
    self.enumSelector = enumSelector
    self.unknown = unknown
    self.discriminator = discriminator
    self.discriminatorPath = discriminatorPath
    self.frameSizes = frameSizes
    self.early = early
    enumIsKnown = plan.enums.map { KsKnownValues($0.values.map(\.value)) }
    let checks = plan.types.flatMap { type in (type.seq + type.instances).compactMap(\.check) }
    hasCheck = !checks.isEmpty
    checkErrors = Set(checks.map(\.check.error))
  }

  var messageAttribute: KsAttributePlan? {
    messageSlot >= 0 ? plan.root.attribute(slot: messageSlot) : nil
  }
}
