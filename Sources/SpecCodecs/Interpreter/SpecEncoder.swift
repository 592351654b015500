import PacketKit

/// Writes a `SpecMessage` as bytes: the header, the body (or the unknown
/// message's bytes), bytes kept after it, the trailer; then the lengths
/// and counts as the content makes them, and the checks over the result.
struct SpecEncoder {
  let program: SpecProgram
  var spec: Spec { program.spec }

  /// The frame; `validate` refuses values outside their range or enum.
  func encode(_ message: SpecMessage, validate: Bool) throws(EncodeError) -> [UInt8] {
    let bodyFields =
      message.kind >= 0 && message.kind < spec.messages.count ? spec.messages[message.kind].fields : []
    guard message.header.count == spec.header.count, message.trailer.count == spec.trailer.count,
      message.body.count == bodyFields.count
    else {
      throw EncodeError(code: "wrong-shape", text: "the message does not have the spec's fields")
    }
    if validate {
      try self.validate(spec.header, message.header)
      try self.validate(bodyFields, message.body)
      try self.validate(spec.trailer, message.trailer)
    }
    var sizes: [String: Int] = [:]
    measure(spec.header, message.header, into: &sizes)
    measure(bodyFields, message.body, into: &sizes)
    measure(spec.trailer, message.trailer, into: &sizes)

    var writer = Writer(sizes: sizes)
    for (field, value) in zip(spec.header, message.header) { try writer.write(field, value) }
    let bodyStart = writer.bytes.count
    for (field, value) in zip(bodyFields, message.body) { try writer.write(field, value) }
    writer.bytes.append(contentsOf: message.extra)
    let bodyEnd = writer.bytes.count
    for (field, value) in zip(spec.trailer, message.trailer) { try writer.write(field, value) }

    // Lengths of the body or frame, now that they are known.
    for patch in writer.lengthPatches {
      let value = patch.target == .frame ? writer.bytes.count : bodyEnd - bodyStart
      guard case .integer(let width, _, let order) = patch.field.type else { continue }
      guard SpecInteger.fits(UInt64(value), width: width) else {
        throw EncodeError(
          code: "out-of-range", text: "\(patch.field.name) \(value) does not fit \(width) bits",
          field: patch.field.name)
      }
      SpecInteger.write(UInt64(value), width: width, order: order, into: &writer.bytes, at: patch.offset)
    }
    // Checks last, over the bytes they cover (the header's first).
    for patch in writer.checkPatches {
      guard case .integer(let width, _, let order) = patch.field.type else { continue }
      let from = patch.check.from.flatMap { writer.starts[$0] } ?? 0
      let through = patch.check.through.flatMap { writer.ends[$0] } ?? patch.offset
      let covered = from < through ? Array(writer.bytes[from..<through]) : []
      let variant = min(max(patch.variant, 0), patch.check.variants.count - 1)
      let value = patch.check.variants[variant].algorithm.compute(covered)
      SpecInteger.write(value, width: width, order: order, into: &writer.bytes, at: patch.offset)
    }
    return writer.bytes
  }

  /// Byte counts of byte strings and texts, element counts of repeats,
  /// under the names of the fields that measure them.
  private func measure(_ fields: [SpecField], _ values: [SpecValue], into sizes: inout [String: Int]) {
    for (field, value) in zip(fields, values) {
      switch (field.type, value) {
      case (.bytes(.lengthField(let name)), .bytes(let bytes)): sizes[name] = bytes.count
      case (.text(.lengthField(let name)), .text(let bytes)): sizes[name] = bytes.count
      case (.repeated(.countField(let name), _), .list(let elements)): sizes[name] = elements.count
      case (.group(let children), .group(let inner)): measure(children, inner, into: &sizes)
      default: break
      }
    }
  }

  private func validate(_ fields: [SpecField], _ values: [SpecValue]) throws(EncodeError) {
    for (field, value) in zip(fields, values) {
      switch (field.type, value) {
      case (.group(let children), .group(let inner)): try validate(children, inner)
      case (.repeated(_, let element), .list(let elements)):
        for inner in elements { try validate(element, inner) }
      default:
        guard case .value = field.role else { continue }
        let number: Double?
        switch value {
        case .unsigned(let bits): number = Double(bits)
        case .signed(let signed): number = Double(signed)
        case .float(let bits):
          if case .float(32, _) = field.type {
            number = Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
          } else {
            number = Double(bitPattern: bits)
          }
        default: number = nil
        }
        guard let number else { continue }
        if let range = field.range, !range.contains(number) {
          throw .outOfRange(
            field.name, JSONWriter.formatNumber(number),
            allowed:
              "\(JSONWriter.formatNumber(range.lowerBound))…\(JSONWriter.formatNumber(range.upperBound))",
            unit: field.unit)
        }
        if let enumeration = field.enumeration, enumeration.value(Int64(number)) == nil {
          throw .outOfRange(
            field.name, JSONWriter.formatNumber(number),
            allowed: enumeration.cases.map { "\($0.name) (\($0.value))" }.joined(separator: ", "))
        }
      }
    }
  }

  // MARK: Constants

  /// The bits of an integer constant.
  static func constantBits(_ literal: SpecLiteral) -> UInt64 {
    switch literal {
    case .integer(let value): UInt64(bitPattern: value)
    case .number(let value): value.bitPattern
    case .bool(let flag): flag ? 1 : 0
    default: 0
    }
  }

  /// A fixed value as it is on the wire, when its width is known.
  static func constantBytes(_ literal: SpecLiteral, _ field: SpecField) -> [UInt8]? {
    switch (field.type, literal) {
    case (.bytes, .bytes(let bytes)): return bytes
    case (.integer(let width, _, let order), _):
      var bytes: [UInt8] = []
      SpecInteger.append(constantBits(literal), width: width, order: order, to: &bytes)
      return bytes
    default: return nil
    }
  }

  /// The value a constant field takes in a crafted message.
  static func constantValue(_ literal: SpecLiteral, _ field: SpecField) -> SpecValue {
    switch (field.type, literal) {
    case (.bytes, .bytes(let bytes)): return .bytes(bytes)
    case (.text, .text(let text)): return .text(Array(text.utf8))
    case (.integer(_, true, _), .integer(let value)): return .signed(value)
    case (.integer, _): return .unsigned(constantBits(literal))
    case (.float(32, _), .number(let value)): return .float(UInt64(Float(value).bitPattern))
    case (.float, .number(let value)): return .float(value.bitPattern)
    default: return .unsigned(constantBits(literal))
    }
  }
}

/// The bytes being written, and what is patched once they all are.
private struct Writer {
  var bytes: [UInt8] = []
  let sizes: [String: Int]
  var lengthPatches: [(field: SpecField, target: SpecLengthTarget, offset: Int)] = []
  var checkPatches: [(field: SpecField, check: SpecCheck, variant: Int, offset: Int)] = []
  /// Where top-level fields start and end, by name (for check ranges).
  var starts: [String: Int] = [:]
  var ends: [String: Int] = [:]

  init(sizes: [String: Int]) {
    self.sizes = sizes
    bytes.reserveCapacity(32)
  }

  mutating func write(_ field: SpecField, _ value: SpecValue) throws(EncodeError) {
    starts[field.name] = bytes.count
    defer { ends[field.name] = bytes.count }
    switch field.type {
    case .integer(let width, _, let order):
      var bits: UInt64
      switch field.role {
      case .fixed(let literal, _): bits = SpecEncoder.constantBits(literal)
      case .length(.frame, _, _), .length(.body, _, _):
        lengthPatches.append((field, field.role.lengthTarget ?? .body, bytes.count))
        bits = 0
      case .length(.field, _, _), .count:
        // `sizes` is keyed by the measuring field's own name.
        bits = UInt64(sizes[field.name] ?? 0)
      case .check(let check):
        if case .check(let variant) = value {
          checkPatches.append((field, check, variant, bytes.count))
        } else {
          checkPatches.append((field, check, 0, bytes.count))
        }
        bits = 0
      default:
        bits = value.unsignedValue ?? 0
      }
      if case .length(.field, _, _) = field.role, !SpecInteger.fits(bits, width: width) {
        throw EncodeError(
          code: "out-of-range", text: "\(field.name) \(bits) does not fit \(width) bits", field: field.name)
      }
      if case .count = field.role, !SpecInteger.fits(bits, width: width) {
        throw EncodeError(
          code: "out-of-range", text: "\(field.name) \(bits) does not fit \(width) bits", field: field.name)
      }
      SpecInteger.append(bits, width: width, order: order, to: &bytes)
    case .float(let width, let order):
      var bits: UInt64 = 0
      if case .float(let stored) = value { bits = stored }
      if case .fixed(let literal, _) = field.role, case .float = SpecEncoder.constantValue(literal, field) {
        if case .float(let fixed) = SpecEncoder.constantValue(literal, field) { bits = fixed }
      }
      SpecInteger.append(bits, width: width, order: order, to: &bytes)
    case .bytes(let size), .text(let size):
      var raw: [UInt8]
      switch value {
      case .bytes(let stored), .text(let stored): raw = stored
      default: raw = []
      }
      if case .fixed(.bytes(let fixed), _) = field.role { raw = fixed }
      if case .fixed(let count) = size {
        guard raw.count == count else {
          throw EncodeError(
            code: "wrong-size", text: "\(field.name) is \(count) bytes, not \(raw.count)", field: field.name)
        }
      }
      bytes.append(contentsOf: raw)
    case .group(let children):
      guard case .group(let values) = value, values.count == children.count else {
        throw EncodeError(
          code: "wrong-shape", text: "\(field.name) does not have its fields", field: field.name)
      }
      for (child, inner) in zip(children, values) { try write(child, inner) }
    case .repeated(let count, let element):
      guard case .list(let elements) = value else {
        throw EncodeError(code: "wrong-shape", text: "\(field.name) has no elements", field: field.name)
      }
      if case .fixed(let fixed) = count, elements.count != fixed {
        throw EncodeError(
          code: "wrong-size", text: "\(field.name) has \(fixed) elements, not \(elements.count)",
          field: field.name)
      }
      for values in elements {
        guard values.count == element.count else {
          throw EncodeError(
            code: "wrong-shape", text: "an element of \(field.name) lacks fields", field: field.name)
        }
        for (child, inner) in zip(element, values) { try write(child, inner) }
      }
    case .json:
      throw EncodeError(code: "wrong-shape", text: "a JSON field in a binary layout", field: field.name)
    }
  }
}

extension SpecRole {
  var lengthTarget: SpecLengthTarget? {
    if case .length(let target, _, _) = self { return target }
    return nil
  }
}
