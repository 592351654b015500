/// A `KsPlan` as Lua table literals, for the dissector's walker: types,
/// attributes, reads and expressions as data. Every text from the spec
/// is written as a quoted Lua string (`Lua.quoted`), never as code.
struct LuaPlanWriter {
  let program: KsProgram
  var plan: KsPlan { program.plan }

  func code(_ code: KsCode) -> String {
    switch code {
    case .constant(let constant): return "{op=\"k\", v=\(self.constant(constant))}"
    case .slot(let slot): return "{op=\"slot\", s=\(slot + 1)}"
    case .this: return "{op=\"this\"}"
    case .parent(let base): return "{op=\"parent\", a=\(self.code(base))}"
    case .root(let base): return "{op=\"root\", a=\(self.code(base))}"
    case .member(let base, let slot): return "{op=\"member\", a=\(self.code(base)), s=\(slot + 1)}"
    case .dynamicMember(let base, _, let slots):
      let table = slots.sorted { $0.key < $1.key }.map { "[\($0.key + 1)]=\($0.value + 1)" }.joined(
        separator: ", ")
      return "{op=\"dmember\", a=\(self.code(base)), m={\(table)}}"
    case .underscore: return "{op=\"under\"}"
    case .index: return "{op=\"index\"}"
    case .stream(let base): return "{op=\"io\", a=\(self.code(base))}"
    case .streamSize(let base): return "{op=\"iosize\", a=\(self.code(base))}"
    case .streamPos(let base): return "{op=\"iopos\", a=\(self.code(base))}"
    case .streamEof(let base): return "{op=\"ioeof\", a=\(self.code(base))}"
    case .negate(let a, _): return "{op=\"neg\", a=\(self.code(a))}"
    case .invert(let a): return "{op=\"inv\", a=\(self.code(a))}"
    case .not(let a): return "{op=\"not\", a=\(self.code(a))}"
    case .toFloat(let a): return self.code(a)
    case .arithmetic(let op, let a, let b, let float):
      return "{op=\"arith\", o=\(Lua.quoted(op.rawValue)), f=\(float), a=\(self.code(a)), b=\(self.code(b))}"
    case .concatenate(let a, let b): return "{op=\"cat\", a=\(self.code(a)), b=\(self.code(b))}"
    case .compare(let op, let a, let b, _):
      return "{op=\"cmp\", o=\(Lua.quoted(op.rawValue)), a=\(self.code(a)), b=\(self.code(b))}"
    case .logical(let op, let a, let b):
      return "{op=\(op == .logicalAnd ? "\"and\"" : "\"or\""), a=\(self.code(a)), b=\(self.code(b))}"
    case .ternary(let c, let a, let b):
      return "{op=\"tern\", c=\(self.code(c)), a=\(self.code(a)), b=\(self.code(b))}"
    case .method(let method, let base, let arguments):
      let name: String
      switch method {
      case .bytesToString: name = "bytes_to_s"
      default: name = "\(method)"
      }
      return
        "{op=\"meth\", m=\(Lua.quoted(name)), a=\(self.code(base)), args={\(arguments.map(self.code).joined(separator: ", "))}}"
    case .subscriptArray(let a, let i): return "{op=\"at\", a=\(self.code(a)), i=\(self.code(i))}"
    case .subscriptBytes(let a, let i): return "{op=\"byteat\", a=\(self.code(a)), i=\(self.code(i))}"
    case .cast(let a, let types):
      return
        "{op=\"cast\", a=\(self.code(a)), t={\(types.map { "[\($0 + 1)]=true" }.joined(separator: ", "))}}"
    case .arrayLiteral(let items):
      return "{op=\"arr\", items={\(items.map(self.code).joined(separator: ", "))}}"
    }
  }

  func constant(_ constant: KsConstant) -> String {
    switch constant {
    case .integer(let value): return Self.number(value)
    case .float(let value): return value.isFinite ? "\(value)" : "0"
    case .bool(let value): return "\(value)"
    case .bytes(let bytes), .string(let bytes): return Lua.quoted(bytes)
    }
  }

  /// A Lua number: exact up to 2^53, beyond as the nearest double.
  static func number(_ value: Int64) -> String {
    abs(value) < (1 << 53) ? String(value) : "\(Double(value))"
  }

  func size(_ size: KsSizePlan?) -> String {
    guard let size else { return "nil" }
    var parts: [String] = []
    switch size.kind {
    case .expression(let code): parts.append("e=\(self.code(code))")
    case .eos: parts.append("eos=true")
    case .terminated: parts.append("term_only=true")
    }
    if let terminator = size.terminator { parts.append("term=\(terminator)") }
    if size.include { parts.append("include=true") }
    if !size.consume { parts.append("keep=true") }
    if !size.eosError { parts.append("lenient=true") }
    if let pad = size.padRight { parts.append("pad=\(pad)") }
    if let path = size.lengthPath { parts.append("len_path=\(self.code(path))") }
    if let process = size.process {
      switch process {
      case .xor(let key): parts.append("proc=\"xor\", key=\(self.code(key))")
      case .rol(let count): parts.append("proc=\"rol\", key=\(self.code(count))")
      case .ror(let count): parts.append("proc=\"ror\", key=\(self.code(count))")
      case .zlib: parts.append("proc=\"zlib\"")
      }
    }
    return "{" + parts.joined(separator: ", ") + "}"
  }

  func read(_ read: KsRead) -> String {
    switch read {
    case .integer(let bytes, let signed, let endian):
      return "{k=\"int\", n=\(bytes), signed=\(signed), endian=\(Lua.quoted("\(endian)"))}"
    case .bits(let count, let little): return "{k=\"bits\", n=\(count), little=\(little)}"
    case .float(let bytes, let endian): return "{k=\"float\", n=\(bytes), endian=\(Lua.quoted("\(endian)"))}"
    case .contents(let bytes): return "{k=\"contents\", v=\(Lua.quoted(bytes))}"
    case .bytes(let size): return "{k=\"bytes\", size=\(self.size(size))}"
    case .string(let size, let encoding):
      return "{k=\"str\", size=\(self.size(size)), enc=\(Lua.quoted(encoding))}"
    case .user(let type, let arguments, let size):
      return
        "{k=\"user\", t=\(type + 1), args={\(arguments.map(self.code).joined(separator: ", "))}, size=\(self.size(size))}"
    case .switched(let on, _, let cases, let fallback, let size):
      let list = cases.map { "{v=\(constant($0.match)), r=\(self.read($0.read))}" }.joined(separator: ", ")
      return
        "{k=\"switch\", on=\(code(on)), cases={\(list)}, fallback=\(fallback.map(self.read) ?? "nil"), size=\(self.size(size))}"
    case .value(let code): return "{k=\"value\", e=\(self.code(code))}"
    }
  }

  func attribute(_ attribute: KsAttributePlan) -> String {
    var parts = [
      "id=\(Lua.quoted(attribute.id))", "slot=\(attribute.slot + 1)", "read=\(read(attribute.read))",
    ]
    if let condition = attribute.condition { parts.append("cond=\(code(condition))") }
    switch attribute.repeatKind {
    case .none: break
    case .eos: parts.append("rep=\"eos\"")
    case .expression(let count): parts.append("rep=\"expr\", count=\(code(count))")
    case .until(let until): parts.append("rep=\"until\", [\"until\"]=\(code(until))")
    }
    if let pos = attribute.pos { parts.append("pos=\(code(pos))") }
    if let io = attribute.io { parts.append("io=\(code(io))") }
    if let valid = attribute.valid {
      var checks: [String] = []
      if let equal = valid.equal { checks.append("eq=\(code(equal))") }
      if let min = valid.min { checks.append("min=\(code(min))") }
      if let max = valid.max { checks.append("max=\(code(max))") }
      if !valid.anyOf.isEmpty { checks.append("any={\(valid.anyOf.map(code).joined(separator: ", "))}") }
      if let expr = valid.expr { checks.append("expr=\(code(expr))") }
      if let inEnum = valid.inEnum { checks.append("in_enum=\(inEnum + 1)") }
      parts.append("valid={\(checks.joined(separator: ", "))}")
    }
    if let at = attribute.errorAt { parts.append("error_at=\(code(at))") }
    let keys = attribute.keys
    if let error = keys.error { parts.append("error=\(Lua.quoted(error))") }
    if let expect = keys.expect, let value = literal(expect) {
      parts.append("expect=\(value), expect_code=\(Lua.quoted(keys.expectWarning))")
    }
    if let range = keys.range { parts.append("range={\(range.lowerBound), \(range.upperBound)}") }
    if keys.scale != nil || keys.offset != nil {
      parts.append("scale=\(keys.scale ?? 1), offset=\(keys.offset ?? 0)")
    }
    if keys.hex { parts.append("hex=true") }
    if let enumeration = attribute.enumeration { parts.append("enum=\(enumeration + 1)") }
    if attribute.isInstance { parts.append("instance=true") }
    if case .bool = attribute.type { parts.append("bool=true") }
    if let check = attribute.check { parts.append("check=\(self.check(check))") }
    return "{" + parts.joined(separator: ", ") + "}"
  }

  func literal(_ literal: SpecLiteral) -> String? {
    switch literal {
    case .integer(let value): return Self.number(value)
    case .number(let value): return value.isFinite ? "\(value)" : nil
    case .bool(let value): return "\(value)"
    case .bytes(let bytes): return Lua.quoted(bytes)
    case .text(let text): return Lua.quoted(Array(text.utf8))
    }
  }

  func check(_ check: KsCheckPlan) -> String {
    let variants = check.check.variants.map { variant -> String in
      let algorithm: String
      switch variant.algorithm {
      case .xor: algorithm = "kind=\"xor\""
      case .sum: algorithm = "kind=\"sum\""
      case .crc(let crc, _), .lowByte(let crc, _):
        var low = false
        if case .lowByte = variant.algorithm { low = true }
        algorithm =
          "kind=\"crc\", width=\(crc.width), poly=\(Double(crc.poly)), init=\(Double(crc.initial)), refin=\(crc.reflectIn), refout=\(crc.reflectOut), xorout=\(Double(crc.xorOut)), low=\(low)"
      }
      return "{name=\(Lua.quoted(variant.name)), label=\(Lua.quoted(variant.algorithm.label)), \(algorithm)}"
    }
    var parts = ["variants={\(variants.joined(separator: ", "))}", "code=\(Lua.quoted(check.check.error))"]
    if let (up, slot) = check.from { parts.append("from={\(up), \(slot + 1)}") }
    if let (up, slot) = check.through { parts.append("through={\(up), \(slot + 1)}") }
    if let extra = check.extra { parts.append("extra=\(code(extra))") }
    if let report = check.check.reportField { parts.append("report=\(Lua.quoted(report))") }
    return "{" + parts.joined(separator: ", ") + "}"
  }

  func type(_ type: KsTypePlan) -> String {
    var parts = [
      "name=\(Lua.quoted(type.name))", "nparams=\(type.parameters.count)",
      "seq={\(type.seq.map(attribute).joined(separator: ",\n    "))}",
      "instances={\(type.instances.map(attribute).joined(separator: ",\n    "))}",
    ]
    if type.isFileRoot { parts.append("file_root=true") }
    switch type.endian {
    case .fixed(let little): parts.append("little=\(little)")
    case .none: break
    case .inherited: parts.append("inherit=true")
    case .switched(let on, let cases, let fallback):
      let list = cases.map { "{v=\(constant($0.match)), little=\($0.little)}" }.joined(separator: ", ")
      parts.append("endian={on=\(code(on)), cases={\(list)}, fallback=\(fallback.map { "\($0)" } ?? "nil")}")
    }
    if let mismatch = type.message.sizeMismatch {
      switch mismatch {
      case .error(let code): parts.append("mismatch={action=\"error\", code=\(Lua.quoted(code))}")
      case .unknown(let warning, let text):
        parts.append(
          "mismatch={action=\"unknown\", code=\(Lua.quoted(warning)), text=\(Lua.quoted(text ?? warning))}")
      case .keep(let field, let warning, let text):
        parts.append(
          "mismatch={action=\"keep\", field=\(Lua.quoted(field)), code=\(Lua.quoted(warning)), text=\(Lua.quoted(text ?? warning))}"
        )
      }
    }
    return "{" + parts.joined(separator: ", ") + "}"
  }

  func enumeration(_ enumeration: KsEnumPlan) -> String {
    let values = enumeration.values.map { "[\(Self.number($0.value))]=\(Lua.quoted($0.shown))" }
    return "{" + values.joined(separator: ", ") + "}"
  }
}
