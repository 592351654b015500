import PacketKit

/// A field of the model compiled for decoding: a class, so walking a
/// layout per frame passes references rather than copying each field's
/// value (a `SpecField` holds a dozen reference-counted members: copied
/// per field per frame, they were most of a frame's decode), with what
/// decode reads per frame computed once (its children's plans, an enum's
/// names for every byte value).
final class SpecFieldPlan: Sendable {
  let field: SpecField
  let name: String
  let type: SpecType
  let role: SpecRole
  let unit: FieldUnit?
  /// Group members, or a repeat's element fields.
  let children: [SpecFieldPlan]
  /// A repeat's element size, when static.
  let elementSize: Int
  /// An enum's names for raw values 0…255 in the field's display.
  let enumNames: [String]?
  /// Whether the field is a length or a count (the message keeps none).
  let isMeasure: Bool
  let display: SpecDisplay
  let enumeration: SpecEnum?
  let flags: [SpecFlag]
  let range: ClosedRange<Double>?
  /// Whether each raw value 0…255 has a name.
  let known: [Bool]?
  /// Every named flag's bit.
  let flagMask: UInt64

  init(_ field: SpecField) {
    self.field = field
    name = field.name
    type = field.type
    role = field.role
    unit = field.unit
    switch field.type {
    case .group(let members): children = members.map(SpecFieldPlan.init)
    case .repeated(_, let element): children = element.map(SpecFieldPlan.init)
    default: children = []
    }
    if case .repeated(_, let element) = field.type {
      elementSize = element.compactMap(\.staticSize).reduce(0, +)
    } else {
      elementSize = 0
    }
    enumNames = field.enumeration.map { enumeration in
      (0...255).map { raw in
        enumeration.value(Int64(raw))?.name
          ?? SpecProgram.unknownName(UInt64(raw), display: field.display, width: 8)
      }
    }
    switch field.role {
    case .length, .count: isMeasure = true
    default: isMeasure = false
    }
    display = field.display
    enumeration = field.enumeration
    flags = field.flags
    range = field.range
    flagMask = field.flags.reduce(0) { $0 | $1.mask }
    known = field.enumeration.map { enumeration in (0...255).map { enumeration.value(Int64($0)) != nil } }
  }

  func isKnown(_ enumeration: SpecEnum, _ raw: Int64) -> Bool {
    if raw >= 0, raw < 256, let known { return known[Int(raw)] }
    return enumeration.value(raw) != nil
  }

  /// The name of an enum value: the spec's, or `unknown(n)`.
  func enumName(_ enumeration: SpecEnum, raw: Int64, width: Int) -> String {
    if raw >= 0, raw < 256, let enumNames { return enumNames[Int(raw)] }
    return enumeration.value(raw)?.name
      ?? SpecProgram.unknownName(UInt64(bitPattern: raw), display: field.display, width: width)
  }
}

/// A message kind compiled for decoding.
final class SpecMessagePlan: Sendable {
  let kind: SpecMessageKind
  let name: String
  let fields: [SpecFieldPlan]
  let sizeMismatch: SpecSizeMismatch
  let probe: Int?
  /// Whether its layout (header and trailer included) has a check, so
  /// decode keeps where top-level fields lie.
  let hasCheck: Bool

  init(_ kind: SpecMessageKind, spec: Spec) {
    self.kind = kind
    name = kind.name
    fields = kind.fields.map(SpecFieldPlan.init)
    sizeMismatch = kind.sizeMismatch
    probe = kind.probe
    hasCheck = SpecLayout.flatten(spec.header + kind.fields + spec.trailer).contains {
      if case .check = $0.role { return true }
      return false
    }
  }
}
