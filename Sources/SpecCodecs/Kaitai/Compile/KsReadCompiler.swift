import PacketKit

/// How an attribute's element is read: its type name resolved to an
/// integer, bits, float, string, bytes or user type (with arguments), a
/// switch of them, and the size that cuts its bytes; and the checks that
/// cover fields, found from the check outwards.
extension KsCompiler {
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
  func isZeroSize(_ read: KsRead, in type: Int) -> Bool {
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

  func checkPlan(_ check: KsyCheck, _ attribute: KsyAttribute, _ read: KsRead, in type: Int)
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
