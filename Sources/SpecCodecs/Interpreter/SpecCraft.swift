import PacketKit

/// Builds a `SpecMessage` from `craft` values: each crafted field from its
/// value (or default), checked against its range unless forced and always
/// against its width; fixed and expected fields from the spec; the
/// discriminator from the kind; lengths and counts from the content.
struct SpecCraft {
  let program: SpecProgram
  var spec: Spec { program.spec }

  func message(_ name: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    guard let kind = spec.messages.firstIndex(where: { $0.name == name || $0.craftNames.contains(name) })
    else {
      throw EncodeError(
        code: "unknown-message",
        text:
          "\(spec.name) has no message '\(name)'; it has \(spec.messages.map(\.name).joined(separator: ", "))"
      )
    }
    let message = spec.messages[kind]
    return SpecMessage(
      kind: kind, header: try fields(spec.header, values, message: message),
      body: try fields(message.fields, values, message: message),
      trailer: try fields(spec.trailer, values, message: message))
  }

  private func fields(_ fields: [SpecField], _ values: CraftValues, message: SpecMessageKind)
    throws(EncodeError)
    -> [SpecValue]
  {
    var result: [SpecValue] = []
    result.reserveCapacity(fields.count)
    for field in fields { result.append(try value(field, values, message: message)) }
    return result
  }

  private func value(_ field: SpecField, _ values: CraftValues, message: SpecMessageKind) throws(EncodeError)
    -> SpecValue
  {
    switch field.role {
    case .fixed(let literal, _), .expected(let literal, _):
      return SpecEncoder.constantValue(literal, field)
    case .discriminator:
      return .unsigned(UInt64(bitPattern: message.when ?? 0))
    case .length, .count:
      return .unsigned(0)
    case .check(let check):
      guard let parameter = check.craftParameter, let given = values[parameter] else {
        return .check(variant: 0)
      }
      let raw = try Self.enumRaw(
        given, cases: check.variants.enumerated().map { ($0.element.name, Int64($0.offset)) }, name: parameter
      )
      guard raw >= 0, raw < check.variants.count else {
        throw EncodeError(
          code: "unknown-enum",
          text: "\(parameter) \(raw) is not one of \(check.variants.map(\.name).joined(separator: ", "))",
          field: parameter)
      }
      return .check(variant: Int(raw))
    case .value:
      break
    }
    switch field.type {
    case .group(let children):
      return .group(try fields(children, values, message: message))
    case .integer(let width, let signed, _) where !field.flags.isEmpty:
      var bits: UInt64 = 0
      for flag in field.flags {
        let given = values[flag.name] ?? .bool(Self.flagDefault(field, flag))
        guard let on = given.boolValue ?? given.numericValue.map({ $0 != 0 }) else {
          throw EncodeError(code: "wrong-type", text: "\(flag.name) must be true or false", field: flag.name)
        }
        if on { bits |= flag.mask }
      }
      _ = (width, signed)
      return .unsigned(bits)
    case .integer(let width, let signed, _):
      let given = try self.given(field, values)
      let number: Int64
      if let enumeration = field.enumeration {
        number = try Self.enumRaw(
          given, cases: enumeration.cases.map { ($0.name, $0.value) }, name: field.name)
        if !values.force, enumeration.value(number) == nil {
          throw .outOfRange(
            field.name, String(number),
            allowed: enumeration.cases.map { "\($0.name) (\($0.value))" }.joined(separator: ", "))
        }
      } else if case .integer(let exact) = given {
        number = exact
      } else if case .unsigned(let exact) = given, !signed {
        // A u64 above Int64.max keeps its bits; through a Double it would not.
        number = Int64(bitPattern: exact)
        if !values.force { try schema(field).validate(.unsigned(exact)) }
        return .unsigned(exact)
      } else {
        number = try CraftValues.integer(given, named: field.name)
      }
      if !values.force { try schema(field).validate(.integer(number)) }
      guard SpecInteger.fits(number, width: width, signed: signed) else {
        let limit =
          signed
          ? "\(-(Int64(1) << (width - 1)))…\((Int64(1) << (width - 1)) - 1)"
          : "0…\(width == 64 ? "18446744073709551615" : String((UInt64(1) << width) - 1))"
        throw .outOfRange(
          field.name, String(number), allowed: "\(limit) (\(signed ? "i" : "u")\(width) on the wire)",
          unit: field.unit)
      }
      return signed ? .signed(number) : .unsigned(UInt64(bitPattern: number))
    case .float(let width, _):
      let number = try CraftValues.number(given(field, values), named: field.name)
      if !values.force { try schema(field).validate(.number(number)) }
      return .float(width == 32 ? UInt64(Float(number).bitPattern) : number.bitPattern)
    case .bytes(let size):
      let given = try self.given(field, values)
      guard case .bytes(let bytes) = given else {
        throw EncodeError(code: "wrong-type", text: "\(field.name) must be bytes (hex)", field: field.name)
      }
      try checkSize(size, bytes.count, field)
      return .bytes(bytes)
    case .text(let size):
      let given = try self.given(field, values)
      guard let text = given.stringValue else {
        throw EncodeError(code: "wrong-type", text: "\(field.name) must be text", field: field.name)
      }
      let utf8 = Array(text.utf8)
      try checkSize(size, utf8.count, field)
      return .text(utf8)
    case .repeated(let count, let element):
      let given = try self.given(field, values)
      guard case .bytes(let packed) = given else {
        throw EncodeError(
          code: "wrong-type", text: "\(field.name) must be its elements as hex", field: field.name)
      }
      return .list(try elements(packed, field, count, element))
    case .json:
      throw EncodeError(code: "wrong-shape", text: "a JSON field in a binary layout", field: field.name)
    }
  }

  private func given(_ field: SpecField, _ values: CraftValues) throws(EncodeError) -> FieldValue {
    if let value = values[field.name], value != .null { return value }
    if let literal = field.defaultValue { return SpecSchema.value(of: literal, for: field) }
    return try values.required(field.name)
  }

  private func schema(_ field: SpecField) -> FieldSchema {
    FieldSchema(
      named: field.name, kind: .integer, unit: field.unit, range: field.range, help: "")
  }

  private func checkSize(_ size: SpecSize, _ count: Int, _ field: SpecField) throws(EncodeError) {
    if case .fixed(let fixed) = size, fixed != count {
      throw EncodeError(
        code: "wrong-size", text: "\(field.name) is \(fixed) bytes, not \(count)", field: field.name)
    }
  }

  /// Elements given as their packed bytes, read with the element's layout.
  private func elements(_ packed: [UInt8], _ field: SpecField, _ count: SpecCount, _ element: [SpecField])
    throws(EncodeError) -> [[SpecValue]]
  {
    let size = element.compactMap(\.staticSize).reduce(0, +)
    guard size > 0, element.allSatisfy({ $0.staticSize != nil }), packed.count % size == 0 else {
      throw EncodeError(
        code: "wrong-size",
        text: "\(field.name) takes whole elements of \(size) bytes, not \(packed.count) bytes",
        field: field.name)
    }
    if case .fixed(let fixed) = count, fixed * size != packed.count {
      throw EncodeError(code: "wrong-size", text: "\(field.name) has \(fixed) elements", field: field.name)
    }
    return packed.withUnsafeBytes { buffer in
      var decoder = SpecDecoder(program: program, bytes: SpecBytes(buffer))
      var elements: [[SpecValue]] = []
      var offset = 0
      while offset < packed.count {
        var values: [SpecValue] = []
        for child in element.map(SpecFieldPlan.init) {
          guard let (value, _) = try? decoder.read(child, at: &offset, end: packed.count, nodeIndex: -1)
          else {
            return elements
          }
          values.append(value)
        }
        elements.append(values)
      }
      return elements
    }
  }

  static func flagDefault(_ field: SpecField, _ flag: SpecFlag) -> Bool {
    if case .integer(let raw) = field.defaultValue { return UInt64(bitPattern: raw) & flag.mask != 0 }
    return false
  }

  /// An enum value given by name (any case, `-` for `_`), as an enum
  /// value, or as its number.
  static func enumRaw(_ given: FieldValue, cases: [(name: String, value: Int64)], name: String)
    throws(EncodeError) -> Int64
  {
    if case .enumeration(_, let raw) = given { return raw }
    if let text = given.stringValue {
      let spelling = text.lowercased()
      if let known = cases.first(where: {
        $0.name.lowercased() == spelling
          || String($0.name.lowercased().map { $0 == "_" ? "-" : $0 }) == spelling
      }) {
        return known.value
      }
      if let raw = SpecNode.parseInteger(text) { return raw }
      throw EncodeError(
        code: "unknown-enum",
        text: "\(name) '\(text)' is not one of \(cases.map(\.name).joined(separator: ", "))",
        field: name)
    }
    return try CraftValues.integer(given, named: name)
  }
}
