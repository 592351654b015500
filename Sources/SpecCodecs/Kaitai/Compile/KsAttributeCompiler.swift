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
  private func checkConstantSize(_ code: KsCode, _ expression: KsyExpression, in type: Int)
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

  // MARK: Reads

  func read(_ attribute: KsyAttribute, in type: Int) throws(SpecLoadError) -> KsRead {
    let file = types[type].file
    if let contents = attribute.contents { return .contents(contents) }
    let size = try sizePlan(attribute, in: type)
    switch attribute.type {
    case .none:
      guard let size else {
        throw error(file, attribute.line, "size", "bytes need size, size-eos or terminator")
      }
      return .bytes(size)
    case .named(let name, let line):
      return try namedRead(name, line: line, attribute: attribute, size: size, in: type)
    case .switched(let on, let cases, let line):
      let (onCode, onType) = try KsExpressionCompiler(self, type: type).compile(on, underscore: nil)
      let width = fieldWidth(onCode, in: type)
      var compiled: [(match: KsConstant, read: KsRead)] = []
      var fallback: KsRead?
      for item in cases {
        if let match = item.match, let width,
          case (.constant(.integer(let value)), _) = try KsExpressionCompiler(self, type: type).compile(
            match, underscore: nil),
          !Self.fits(value, width)
        {
          throw error(
            file, match.line, "cases",
            "\(value) does not fit the \(width.bits)-bit field '\(on.text)' it is a case of")
        }
        let caseRead = try namedRead(
          item.type, line: line, attribute: attribute, size: nil, in: type, inSwitch: true)
        if let match = item.match {
          compiled.append((try constant(match, in: type, against: onType), caseRead))
        } else {
          fallback = caseRead
        }
      }
      return .switched(on: onCode, onType: onType, cases: compiled, fallback: fallback, size: size)
    }
  }

  private func namedRead(
    _ name: String, line: Int, attribute: KsyAttribute, size: KsSizePlan?, in type: Int,
    inSwitch: Bool = false
  ) throws(SpecLoadError) -> KsRead {
    let file = types[type].file
    let base = KsPrimitive.baseName(name)
    if let integer = KsPrimitive.integer(base) {
      if size != nil, !inSwitch { throw error(file, line, "size", "\(base) has its own size") }
      return .integer(
        bytes: integer.bytes, signed: integer.signed,
        endian: try endian(integer.little, integer.bytes, base, line, in: type))
    }
    if let bits = KsPrimitive.bits(base) {
      return .bits(count: bits.count, little: bits.little ?? bitEndianLittle(of: type))
    }
    if let float = KsPrimitive.float(base) {
      return .float(bytes: float.bytes, endian: try endian(float.little, float.bytes, base, line, in: type))
    }
    if base == "str" || base == "strz" {
      guard let encoding = attribute.encoding ?? encoding(of: type) else {
        throw error(file, line, "encoding", "\(base) needs an encoding (here or in meta)")
      }
      var plan = size ?? KsSizePlan(kind: .terminated)
      if base == "strz", plan.terminator == nil { plan.terminator = 0 }
      if size == nil, base == "str", plan.terminator == nil {
        throw error(file, line, "size", "str needs size, size-eos or terminator")
      }
      return .string(plan, encoding: encoding)
    }
    if base == "bytes" {
      guard let size else { throw error(file, line, "size", "bytes need size, size-eos or terminator") }
      return .bytes(size)
    }
    guard let user = findType(base, from: type) else {
      throw error(file, line, "type", "no type '\(base)' from type \(types[type].name)")
    }
    let arguments = try self.arguments(name, line: line, in: type)
    guard arguments.count == types[user].params.count else {
      throw error(
        file, line, "type",
        "type \(types[user].name) takes \(types[user].params.count) argument\(types[user].params.count == 1 ? "" : "s"), given \(arguments.count)"
      )
    }
    return .user(type: user, arguments: arguments, size: inSwitch ? nil : size)
  }

  private func endian(_ suffix: Bool?, _ bytes: Int, _ name: String, _ line: Int, in type: Int)
    throws(SpecLoadError)
    -> KsEndianChoice
  {
    if let suffix { return suffix ? .little : .big }
    if bytes == 1 { return .big }
    guard let (_, endian) = endianDeclaration(of: type) else {
      throw error(
        types[type].file, line, "type", "\(name) needs an endianness: meta/endian, or \(name)le / \(name)be")
    }
    switch endian {
    case .little: return .little
    case .big: return .big
    case .switched: return .object
    }
  }

  /// `foo(1, bar)`: the arguments, compiled where the type is used.
  private func arguments(_ name: String, line: Int, in type: Int) throws(SpecLoadError) -> [KsCode] {
    guard let open = name.firstIndex(of: "("), name.hasSuffix(")") else { return [] }
    let inside = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
    guard !inside.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
    let expression = try KsyReader(file: types[type].file).expression(
      text: "[" + inside + "]", line: line, key: "type")
    guard case .array(let items) = expression.expression else { return [] }
    var codes: [KsCode] = []
    for item in items {
      let (code, _) = try KsExpressionCompiler(self, type: type, allowIndex: true).compile(
        KsyExpression(expression: item, text: inside, line: line, key: "type"), underscore: nil)
      codes.append(code)
    }
    return codes
  }

  private func sizePlan(_ attribute: KsyAttribute, in type: Int) throws(SpecLoadError) -> KsSizePlan? {
    var plan: KsSizePlan
    let compiler = KsExpressionCompiler(self, type: type, allowIndex: attribute.isRepeated)
    if let size = attribute.size {
      let code = try compiler.integer(size)
      try checkConstantSize(code, size, in: type)
      plan = KsSizePlan(kind: .expression(code))
      if Self.isPath(code) { plan.lengthPath = code }
    } else if attribute.sizeEos {
      plan = KsSizePlan(kind: .eos)
    } else if attribute.terminator != nil {
      plan = KsSizePlan(kind: .terminated)
    } else {
      return nil
    }
    plan.terminator = attribute.terminator
    plan.include = attribute.include
    plan.consume = attribute.consume
    plan.eosError = attribute.eosError
    plan.padRight = attribute.padRight
    if let process = attribute.process {
      switch process {
      case .xor(let key):
        let (code, found) = try compiler.compile(key, underscore: nil)
        guard found == .integer || found == .bytes else {
          throw self.error(
            types[type].file, key.line, "process", "xor's key is a byte or bytes, not \(found.spelling)")
        }
        plan.process = .xor(code)
      case .rol(let count): plan.process = .rol(try compiler.integer(count))
      case .ror(let count): plan.process = .ror(try compiler.integer(count))
      case .zlib: plan.process = .zlib
      }
    }
    return plan
  }

  /// Whether an element of this read certainly takes no bytes.
  private func isZeroSize(_ read: KsRead, in type: Int) -> Bool {
    switch read {
    case .bytes(let size), .string(let size, _):
      if case .expression(.constant(.integer(0))) = size.kind { return true }
      return false
    case .user(let user, _, let size):
      if let size, case .expression(.constant(.integer(0))) = size.kind { return true }
      if size != nil { return false }
      return types[user].seq.isEmpty
    default: return false
    }
  }

  // MARK: Checks

  private func checkPlan(_ check: KsyCheck, _ attribute: KsyAttribute, _ read: KsRead, in type: Int)
    throws(SpecLoadError) -> KsCheckPlan
  {
    let file = types[type].file
    let width: Int
    let little: Bool
    switch read {
    case .integer(let bytes, false, let endian):
      width = bytes * 8
      little = endian == .little
    default:
      throw error(
        file, check.line, "-pktbench-check", "a check is an unsigned integer field (u1, u2, u4, u8)")
    }
    for variant in check.variants where variant.algorithm.width > width {
      throw error(
        file, check.line, "-pktbench-check",
        "\(variant.algorithm.label) is \(variant.algorithm.width) bits; the field is \(width)")
    }
    var plan = KsCheckPlan(check: check, width: width, little: little)
    if let from = check.from { plan.from = try locate(from, from: type, line: check.line) }
    if let through = check.through { plan.through = try locate(through, from: type, line: check.line) }
    if let extra = check.extra { plan.extra = try KsExpressionCompiler(self, type: type).integer(extra) }
    return plan
  }

  /// An attribute named by a check, in the check's type or the types
  /// around it (each with one parent): how many parents up, and its slot.
  private func locate(_ name: String, from type: Int, line: Int) throws(SpecLoadError) -> (up: Int, slot: Int)
  {
    var current = type
    for up in 0..<32 {
      if let slot = slot(named: name, in: current) { return (up, slot) }
      guard parents[current].count == 1, let parent = parents[current].first else { break }
      current = parent
    }
    throw error(
      types[type].file, line, "-pktbench-check", "no attribute '\(name)' here or in the types around it")
  }
}
