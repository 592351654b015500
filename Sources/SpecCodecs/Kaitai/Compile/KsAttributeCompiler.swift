import PacketKit

extension KsCompiler {
  // MARK: Types

  func typePlan(_ index: Int) throws(SpecLoadError) -> KsTypePlan {
    let type = types[index]
    let parameterTypes = try type.params.indices.map { slot throws(SpecLoadError) in
      (type.params[slot].id, try slotType(index, slot))
    }
    var seq: [KsAttributePlan] = []
    for (offset, attribute) in type.seq.enumerated() {
      seq.append(try attributePlan(attribute, in: index, slot: type.params.count + offset))
    }
    var instances: [KsAttributePlan] = []
    for (offset, attribute) in type.instances.enumerated() {
      instances.append(
        try attributePlan(attribute, in: index, slot: type.params.count + type.seq.count + offset))
    }
    var path = type.name
    var scope = type.parent
    while let outer = scope {
      path = outer.name + "::" + path
      scope = outer.isFileRoot ? nil : outer.parent
    }
    return KsTypePlan(
      name: type.name, path: path, line: type.line, doc: type.doc, parameters: parameterTypes, seq: seq,
      instances: instances, endian: try endianPlan(index), isFileRoot: type.isFileRoot, message: type.message)
  }

  private func endianPlan(_ index: Int) throws(SpecLoadError) -> KsEndianPlan {
    guard let (owner, endian) = endianDeclaration(of: index) else { return .none }
    switch endian {
    case .little: return .fixed(little: true)
    case .big: return .fixed(little: false)
    case .switched(let on, let cases):
      guard owner === types[index] else { return .inherited }
      let compiler = KsExpressionCompiler(self, type: index)
      let (code, onType) = try compiler.compile(on, underscore: nil)
      var compiled: [(match: KsConstant, little: Bool)] = []
      var fallback: Bool?
      for item in cases {
        guard let match = item.match else {
          fallback = item.little
          continue
        }
        compiled.append((try constant(match, in: index, against: onType), item.little))
      }
      return .switched(on: code, cases: compiled, fallback: fallback)
    }
  }

  /// A case key: a constant of the switch's type.
  func constant(_ expression: KsyExpression, in type: Int, against onType: KsType) throws(SpecLoadError)
    -> KsConstant
  {
    let (code, found) = try KsExpressionCompiler(self, type: type).compile(expression, underscore: nil)
    guard case .constant(let value) = code else {
      throw error(
        types[type].file, expression.line, expression.key, "'\(expression.text)': a case is a constant")
    }
    let fits: Bool
    switch (onType, found) {
    case (.integer, .integer), (.enumeration, .enumeration), (.enumeration, .integer),
      (.integer, .enumeration),
      (.string, .string), (.bytes, .bytes), (.bool, .bool), (.float, .float), (.float, .integer):
      fits = true
    default: fits = false
    }
    guard fits else {
      throw error(
        types[type].file, expression.line, expression.key,
        "'\(expression.text)' is \(found.spelling); the switch is on \(onType.spelling)")
    }
    return value
  }

  // MARK: Attributes

  private func attributePlan(_ attribute: KsyAttribute, in type: Int, slot: Int) throws(SpecLoadError)
    -> KsAttributePlan
  {
    let file = types[type].file
    let plain = KsExpressionCompiler(self, type: type)
    let repeated = KsExpressionCompiler(self, type: type, allowIndex: true)
    var elementType: KsType
    let read: KsRead
    if let value = attribute.value {
      let (code, found) = try plain.compile(value, underscore: nil)
      read = .value(code)
      elementType = found
    } else {
      elementType = try self.elementType(attribute, in: type)
      read = try self.read(attribute, in: type)
    }
    var repeatKind = KsRepeatPlan.none
    switch attribute.repeatKind {
    case .none: break
    case .eos: repeatKind = .eos
    case .expr(let count):
      let code = try plain.integer(count)
      try checkConstantSize(code, count, in: type)
      repeatKind = .expression(code)
    case .until(let until): repeatKind = .until(try repeated.condition(until, underscore: elementType))
    }
    if case .none = repeatKind {
    } else if case .expression = repeatKind {
    } else {
      if isZeroSize(read, in: type) {
        throw error(
          file, attribute.line, "repeat",
          "an element of no bytes repeated until the end or a condition would never end")
      }
    }
    let compiler = attribute.isRepeated ? repeated : plain
    let plan = KsAttributePlan(
      id: attribute.id, slot: slot, line: attribute.line, isInstance: attribute.isInstance,
      doc: attribute.doc,
      condition: try attribute.condition.map { expression throws(SpecLoadError) in
        try plain.condition(expression, underscore: nil)
      },
      repeatKind: repeatKind, read: read,
      pos: try attribute.pos.map { expression throws(SpecLoadError) in try plain.integer(expression) },
      io: try attribute.io.map { expression throws(SpecLoadError) in try streamCode(expression, in: type) },
      valid: try attribute.valid.map { valid throws(SpecLoadError) in
        try self.valid(valid, elementType, compiler: compiler, in: type)
      },
      type: elementType, enumeration: nil, keys: attribute.keys)
    if case .enumeration(let found) = elementType { plan.enumeration = found }
    if let unit = attribute.keys.unit {
      guard let text = SpecStaticText.intern(unit) else {
        throw error(file, attribute.line, "-pktbench-unit", "this toolchain cannot hold a unit from a spec")
      }
      plan.unit = FieldUnit(text)
    }
    if let at = attribute.keys.errorAt {
      let (code, _) = try plain.compile(at, underscore: elementType)
      guard Self.isPath(code) else {
        throw error(file, at.line, "at", "'\(at.text)' is not a field (header.length, _parent.kind …)")
      }
      plan.errorAt = code
    }
    if let check = attribute.keys.check { plan.check = try checkPlan(check, attribute, read, in: type) }
    let keys = attribute.keys
    plan.needsJudging =
      plan.valid != nil || keys.expect != nil || plan.enumeration != nil || keys.range != nil
    if let width = fieldWidth(.slot(slot), in: type) {
      if let valid = plan.valid, case .constant(.integer(let value))? = valid.equal, !Self.fits(value, width)
      {
        throw error(file, attribute.line, "valid", "\(value) does not fit the \(width.bits)-bit field")
      }
      if case .integer(let value)? = attribute.keys.expect, !Self.fits(value, width) {
        throw error(
          file, attribute.line, "-pktbench-expect", "\(value) does not fit the \(width.bits)-bit field")
      }
    }
    if attribute.keys.expect != nil || attribute.keys.range != nil || attribute.keys.scale != nil {
      switch elementType {
      case .integer, .enumeration, .float, .bool: break
      case .bytes where attribute.keys.range == nil && attribute.keys.scale == nil: break
      default:
        throw error(file, attribute.line, "-pktbench-expect", "expect, range and scale are for numbers")
      }
    }
    return plan
  }

  /// A constant size, count or position a frame could never have: refused
  /// at load rather than met at run time.
  func checkConstantSize(_ code: KsCode, _ expression: KsyExpression, in type: Int)
    throws(SpecLoadError)
  {
    guard case .constant(.integer(let value)) = code else { return }
    guard value >= 0, value <= Int64(Int32.max) else {
      throw error(
        types[type].file, expression.line, expression.key,
        "\(value) is no size a frame can have (0…\(Int32.max))")
    }
  }

  /// Whether an integer fits a field of `width`.
  static func fits(_ value: Int64, _ width: (bits: Int, signed: Bool)) -> Bool {
    guard width.bits < 64 else { return true }
    if width.signed {
      return value >= -(Int64(1) << (width.bits - 1)) && value < (Int64(1) << (width.bits - 1))
    }
    return value >= 0 && value < (Int64(1) << width.bits)
  }

  /// The width of the integer field a path names, when it is one.
  func fieldWidth(_ code: KsCode, in type: Int) -> (bits: Int, signed: Bool)? {
    let owner: Int
    let slot: Int
    switch code {
    case .slot(let found): (owner, slot) = (type, found)
    case .member(let base, let found):
      guard let inner = staticOwner(base, in: type) else { return nil }
      (owner, slot) = (inner, found)
    default: return nil
    }
    let declared = types[owner]
    let index = slot - declared.params.count
    guard index >= 0, index < declared.seq.count + declared.instances.count else { return nil }
    let attribute =
      index < declared.seq.count ? declared.seq[index] : declared.instances[index - declared.seq.count]
    guard !attribute.isRepeated, case .named(let name, _) = attribute.type else { return nil }
    if let integer = KsPrimitive.integer(KsPrimitive.baseName(name)) {
      return (integer.bytes * 8, integer.signed)
    }
    if let bits = KsPrimitive.bits(KsPrimitive.baseName(name)) { return (bits.count, false) }
    return nil
  }

  private func staticOwner(_ code: KsCode, in type: Int) -> Int? {
    switch code {
    case .this: return type
    case .root: return 0
    case .parent(let base):
      guard let inner = staticOwner(base, in: type), parents[inner].count == 1 else { return nil }
      return parents[inner].first
    case .slot(let slot):
      if case .user(let inner)? = slotTypes[type][slot] { return inner }
      return nil
    case .member(let base, let slot):
      guard let inner = staticOwner(base, in: type), case .user(let found)? = slotTypes[inner][slot] else {
        return nil
      }
      return found
    default: return nil
    }
  }

  static func isPath(_ code: KsCode) -> Bool {
    switch code {
    case .slot, .member, .dynamicMember: true
    default: false
    }
  }

  private func streamCode(_ expression: KsyExpression, in type: Int) throws(SpecLoadError) -> KsCode {
    let (code, found) = try KsExpressionCompiler(self, type: type).compile(expression, underscore: nil)
    guard found == .stream else {
      throw error(
        types[type].file, expression.line, "io",
        "'\(expression.text)' is \(found.spelling); expected a stream (_root._io, x._io)")
    }
    return code
  }

  private func valid(_ valid: KsyValid, _ elementType: KsType, compiler: KsExpressionCompiler, in type: Int)
    throws(SpecLoadError) -> KsValidPlan
  {
    var plan = KsValidPlan(type: elementType)
    func comparable(_ expression: KsyExpression) throws(SpecLoadError) -> KsCode {
      let (code, found) = try compiler.compile(expression, underscore: nil)
      let fits =
        found == elementType || (found.isNumber && elementType.isNumber)
        || (found == .integer
          && {
            if case .enumeration = elementType { return true }; return false
          }())
      guard fits else {
        throw error(
          types[type].file, expression.line, expression.key,
          "'\(expression.text)' is \(found.spelling); the field is \(elementType.spelling)")
      }
      return elementType == .float && found == .integer ? .toFloat(code) : code
    }
    plan.equal = try valid.equal.map(comparable)
    plan.min = try valid.min.map(comparable)
    plan.max = try valid.max.map(comparable)
    for item in valid.anyOf { plan.anyOf.append(try comparable(item)) }
    plan.expr = try valid.expr.map { expression throws(SpecLoadError) in
      try compiler.condition(expression, underscore: elementType)
    }
    if valid.inEnum {
      guard case .enumeration(let found) = elementType else {
        throw error(types[type].file, valid.line, "in-enum", "in-enum needs an enum field")
      }
      plan.inEnum = found
    }
    return plan
  }
}
