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

  /// An integer field's width in bits (0: not an integer), sign and byte
  /// order, and its role without its payload: decode reads these per
  /// frame, where matching `type` or `role` copied their payloads (and
  /// retained and released what they hold) for every field.
  let integerWidth: Int
  let integerSigned: Bool
  let integerOrder: SpecByteOrder
  let integerRole: IntegerRole
  /// A fixed or expected integer's value.
  let constant: UInt64
  /// Whether a length field sizes the body or the frame.
  let sizesBody: Bool
  /// A length or count's largest value and the error above it.
  let measureMax: UInt64?
  let measureError: String

  enum IntegerRole: Sendable {
    case value, fixed, expected, measure, discriminator, check
  }

  init(_ field: SpecField) {
    self.field = field
    name = field.name
    type = field.type
    role = field.role
    // A plain integer shown in hex carries the tree's "hex" unit, as the
    // built-in codecs' bytes written so in PROTOCOLS.md (Rallie's source).
    if field.display == .hex, field.enumeration == nil, field.unit == nil, case .integer = field.type {
      unit = "hex"
    } else {
      unit = field.unit
    }
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
    if case .integer(let width, let signed, let order) = field.type {
      (integerWidth, integerSigned, integerOrder) = (width, signed, order)
    } else {
      (integerWidth, integerSigned, integerOrder) = (0, false, .big)
    }
    switch field.role {
    case .value: (integerRole, constant) = (.value, 0)
    case .fixed(let literal, _): (integerRole, constant) = (.fixed, SpecEncoder.constantBits(literal))
    case .expected(let literal, _): (integerRole, constant) = (.expected, SpecEncoder.constantBits(literal))
    case .length, .count: (integerRole, constant) = (.measure, 0)
    case .discriminator: (integerRole, constant) = (.discriminator, 0)
    case .check: (integerRole, constant) = (.check, 0)
    }
    switch field.role {
    case .length(.body, _, _), .length(.frame, _, _): sizesBody = true
    default: sizesBody = false
    }
    switch field.role {
    case .length(_, let max, let error), .count(_, let max, let error):
      (measureMax, measureError) = (max.map { UInt64($0) }, error)
    default: (measureMax, measureError) = (nil, "")
    }
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
