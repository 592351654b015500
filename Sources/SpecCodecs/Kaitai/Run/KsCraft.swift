import PacketKit

/// Builds a message of one kind from `craft` values: each crafted field
/// from its value (or default; a field with neither is refused when it is
/// written, so one a condition leaves out needs none), constants and
/// expected values from the spec, the discriminator from the kind, checks
/// by the variant asked for; lengths and counts are left to the encoder.
struct KsCraft {
  let program: KsProgram
  var plan: KsPlan { program.plan }

  func message(_ name: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    guard let kind = program.kinds.firstIndex(where: { $0.name == name || $0.keys.craftNames.contains(name) })
    else {
      throw EncodeError(
        code: "unknown-message",
        text:
          "\(program.name) has no message '\(name)'; it has \(program.kinds.map(\.name).joined(separator: ", "))"
      )
    }
    return SpecMessage(kind: kind, tree: try object(0, prefix: "", kind: kind, path: [0], values))
  }

  /// The discriminator's value for a kind: the case constant of its type,
  /// or its enum value.
  private func discriminant(_ kind: Int) -> Int64? {
    if let value = program.kinds[kind].value { return value }
    guard let type = program.kinds[kind].type, let attribute = program.messageAttribute,
      case .switched(_, _, let cases, _, _) = attribute.read
    else { return nil }
    for item in cases {
      if case .user(type, _, _) = item.read, case .integer(let value) = item.match { return value }
    }
    return nil
  }

  private func object(_ type: Int, prefix: String, kind: Int, path: [Int], _ values: CraftValues)
    throws(EncodeError) -> KsTree
  {
    let typePlan = plan.types[type]
    var slots: [KsTree] = Array(repeating: .absent, count: typePlan.parameters.count)
    let schema = KsSchema(program: program)
    for attribute in typePlan.seq {
      if type == 0, attribute.slot == program.messageSlot {
        if let caseType = program.kinds[kind].type {
          slots.append(try object(caseType, prefix: prefix, kind: kind, path: path + [caseType], values))
        } else {
          slots.append(.absent)
        }
        continue
      }
      if let discriminator = program.discriminator, discriminator.type == type,
        discriminator.slot == attribute.slot,
        let value = discriminant(kind)
      {
        slots.append(.integer(value))
        continue
      }
      switch schema.role(attribute, in: type, path: path) {
      case .skip:
        slots.append(try constant(attribute, in: type))
      case .nested(let inner):
        slots.append(
          try object(inner, prefix: prefix + attribute.id + ".", kind: kind, path: path + [inner], values))
      case .checkParameter(let check):
        var variant = 0
        if let parameter = check.check.craftParameter, let given = values[parameter] {
          let cases = check.check.variants.enumerated().map { ($0.element.name, Int64($0.offset)) }
          variant = Int(try KsCraftValues.enumRaw(given, cases: cases, name: parameter))
          guard variant >= 0, variant < check.check.variants.count else {
            throw EncodeError(
              code: "unknown-enum",
              text:
                "\(parameter) \(variant) is not one of \(check.check.variants.map(\.name).joined(separator: ", "))",
              field: parameter)
          }
        }
        slots.append(.check(0, variant: variant))
      case .leaf:
        let name = prefix + attribute.id
        let field = schema.schema(attribute, name: name)
        var given = values[name]
        if given == .null { given = nil }
        if given == nil { given = field.defaultValue }
        guard let given else {
          slots.append(.absent)
          continue
        }
        slots.append(
          try KsCraftValues(program: program).tree(given, attribute, name: name, force: values.force))
      }
    }
    return .object(type: type, slots)
  }

  /// What a field `craft` does not take holds: its contents, its `valid`
  /// constant, its expected value, or 0 (a length, count or check, made
  /// when written).
  private func constant(_ attribute: KsAttributePlan, in type: Int) throws(EncodeError) -> KsTree {
    if case .contents(let bytes) = attribute.read { return .bytes(bytes) }
    if let expected = attribute.keys.expect {
      return try KsCraftValues(program: program).tree(
        KsSchema.value(of: expected, attribute, plan), attribute, name: attribute.id, force: true)
    }
    if let valid = attribute.valid, case .constant(let constant)? = valid.equal {
      switch constant {
      case .integer(let value): return attribute.type == .bool ? .bool(value != 0) : .integer(value)
      case .float(let value): return .float(value.bitPattern)
      case .bool(let value): return .bool(value)
      case .bytes(let bytes): return .bytes(bytes)
      case .string(let bytes): return .string(bytes)
      }
    }
    if attribute.isRepeated { return .array([]) }
    switch attribute.type {
    case .bool: return .bool(false)
    case .float: return .float(0)
    case .bytes: return .bytes([])
    case .string: return .string([])
    default: return .integer(0)
    }
  }
}

/// A craft value as the tree holds it, for one attribute.
struct KsCraftValues {
  let program: KsProgram

  func tree(_ given: FieldValue, _ attribute: KsAttributePlan, name: String, force: Bool) throws(EncodeError)
    -> KsTree
  {
    let plan = program.plan
    if attribute.isRepeated
      || {
        if case .user = attribute.type { return true }; if case .users = attribute.type { return true };
        return false
      }()
    {
      guard case .bytes(let bytes) = given else {
        throw EncodeError(code: "wrong-type", text: "\(name) is given as its bytes in hex", field: name)
      }
      return attribute.isRepeated ? try elements(bytes, attribute, name: name) : .bytes(bytes)
    }
    switch attribute.type {
    case .enumeration(let enumeration):
      let raw = try Self.enumRaw(
        given,
        cases: plan.enums[enumeration].values.map { ($0.shown, $0.value) }
          + plan.enums[enumeration].values.map { ($0.id, $0.value) },
        name: name)
      if !force, !program.enumIsKnown[enumeration].contains(raw) {
        throw .outOfRange(
          name, String(raw),
          allowed: plan.enums[enumeration].values.map { "\($0.shown) (\($0.value))" }.joined(separator: ", "))
      }
      return .integer(raw)
    case .bool:
      guard let flag = given.boolValue ?? given.numericValue.map({ $0 != 0 }) else {
        throw EncodeError(code: "wrong-type", text: "\(name) must be true or false", field: name)
      }
      return .bool(flag)
    case .float:
      let number = try CraftValues.number(given, named: name)
      if !force { try Self.inRange(number, JSONWriter.formatNumber(number), attribute, name: name) }
      let raw = (number - (attribute.keys.offset ?? 0)) / (attribute.keys.scale ?? 1)
      return .float(raw.bitPattern)
    case .integer:
      if attribute.keys.scale != nil || attribute.keys.offset != nil {
        let number = try CraftValues.number(given, named: name)
        if !force { try Self.inRange(number, JSONWriter.formatNumber(number), attribute, name: name) }
        let raw = ((number - (attribute.keys.offset ?? 0)) / (attribute.keys.scale ?? 1)).rounded()
        guard raw.isFinite, abs(raw) < 9.2e18 else {
          throw .outOfRange(name, JSONWriter.formatNumber(number), allowed: "a 64-bit value")
        }
        return .integer(Int64(raw))
      }
      if case .unsigned(let value) = given { return .integer(Int64(bitPattern: value)) }
      let value = try CraftValues.integer(given, named: name)
      if !force { try Self.inRange(Double(value), String(value), attribute, name: name) }
      return .integer(value)
    case .string:
      guard let text = given.stringValue else {
        throw EncodeError(code: "wrong-type", text: "\(name) must be text", field: name)
      }
      return .string(Array(text.utf8))
    default:
      guard case .bytes(let bytes) = given else {
        throw EncodeError(code: "wrong-type", text: "\(name) is given as its bytes in hex", field: name)
      }
      return .bytes(bytes)
    }
  }

  /// A repeat's elements from their bytes, read by the attribute's read
  /// until the bytes end.
  private func elements(_ bytes: [UInt8], _ attribute: KsAttributePlan, name: String) throws(EncodeError)
    -> KsTree
  {
    do {
      return try bytes.withUnsafeBytes { (buffer) throws(DecodeError) -> KsTree in
        try program.withRunner(buffer, mode: .build) { (runner) throws(DecodeError) -> KsTree in
          let stream = runner.newStream(
            buffer: 0, start: 0, end: Int32(buffer.count),
            payload: KsRange(start: 0, end: Int32(buffer.count)))
          let holder = runner.holder(for: attribute, stream: stream)
          var elements: [KsTree] = []
          var index: Int64 = 0
          while !runner.isEof(stream) {
            try runner.spend()
            let (value, _) = try runner.readElement(
              attribute.read, attribute, object: holder, stream: stream, local: KsLocal(index: index))
            elements.append(runner.tree(value))
            index += 1
          }
          return .array(elements)
        }
      }
    } catch let error as DecodeError {
      throw EncodeError(
        code: "wrong-type", text: "\(name): its bytes are not its elements (\(error.text))", field: name)
    } catch {
      throw EncodeError(code: "wrong-type", text: "\(name): its bytes are not its elements", field: name)
    }
  }

  /// A value the field's `-pktbench-range` refuses (craft without `--force`).
  static func inRange(_ number: Double, _ shown: String, _ attribute: KsAttributePlan, name: String)
    throws(EncodeError)
  {
    guard let range = attribute.keys.range, !range.contains(number) else { return }
    throw .outOfRange(
      name, shown,
      allowed: "\(JSONWriter.formatNumber(range.lowerBound))…\(JSONWriter.formatNumber(range.upperBound))",
      unit: attribute.unit)
  }

  /// An enum value given by name (any case, `-` for `_`), as an enum
  /// value, or as its number.
  static func enumRaw(_ given: FieldValue, cases: [(name: String, value: Int64)], name: String)
    throws(EncodeError)
    -> Int64
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
        text: "\(name) '\(text)' is not one of \(cases.map(\.name).joined(separator: ", "))", field: name)
    }
    return try CraftValues.integer(given, named: name)
  }
}

extension KsRunner {
  /// An empty object of the attribute's type, to read its elements standalone.
  mutating func holder(for attribute: KsAttributePlan, stream: Int32) -> Int32 {
    let owner =
      plan.types.firstIndex { type in type.seq.contains { $0.slot == attribute.slot && $0.id == attribute.id }
      } ?? 0
    let base = Int32(arena.slots.count)
    for _ in 0..<plan.types[owner].slotCount {
      arena.slots.append(.absent)
      arena.slotRanges.append(.empty)
      arena.slotStates.append(0)
    }
    arena.objects.append(
      KsObject(
        type: Int32(owner), parent: -1, root: Int32(arena.objects.count), stream: stream, slotBase: base,
        range: .empty, little: false))
    return Int32(arena.objects.count - 1)
  }
}
