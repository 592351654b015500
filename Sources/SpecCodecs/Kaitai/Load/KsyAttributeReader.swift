import PacketKit

extension KsyReader {
  /// One `seq` entry (`id` inside it) or instance (`id`: its key).
  func attribute(_ node: SpecNode, id instanceID: String?) throws(SpecLoadError) -> KsyAttribute {
    let isInstance = instanceID != nil
    let (object, extensions) = try pairs(
      node, allowed: isInstance ? Self.instanceKeys : Self.attributeKeys,
      what: isInstance ? "an instance" : "a seq attribute")
    let id: String
    if let instanceID {
      id = instanceID
    } else {
      let idNode = try object.required("id")
      id = try idNode.string()
      guard Self.isIdentifier(id) else {
        throw idNode.error("expected an identifier (lower case letters, digits, '_'), found '\(id)'")
      }
    }
    var attribute = KsyAttribute(id: id, line: node.line, isInstance: isInstance)
    attribute.doc = try object.string("doc") ?? ""
    if let type = object["type"] { attribute.type = try typeReference(type) }
    attribute.size = try object["size"].map { node throws(SpecLoadError) in try expression(node, key: "size")
    }
    attribute.sizeEos = try object["size-eos"]?.bool() ?? false
    if let terminator = object["terminator"] {
      attribute.terminator = UInt8(try terminator.integer(in: 0...255, what: "a byte"))
    }
    attribute.consume = try object["consume"]?.bool() ?? true
    attribute.include = try object["include"]?.bool() ?? false
    attribute.eosError = try object["eos-error"]?.bool() ?? true
    if let pad = object["pad-right"] {
      attribute.padRight = UInt8(try pad.integer(in: 0...255, what: "a byte"))
    }
    if let encoding = object["encoding"] { attribute.encoding = try KsyEncoding.check(encoding) }
    attribute.enumName = try object.string("enum")
    if let contents = object["contents"] { attribute.contents = try self.contents(contents) }
    attribute.condition = try object["if"].map { node throws(SpecLoadError) in try expression(node, key: "if")
    }
    attribute.repeatKind = try repetition(object)
    if let process = object["process"] { attribute.process = try self.process(process) }
    if let valid = object["valid"] { attribute.valid = try self.valid(valid) }
    attribute.pos = try object["pos"].map { node throws(SpecLoadError) in try expression(node, key: "pos") }
    attribute.io = try object["io"].map { node throws(SpecLoadError) in try expression(node, key: "io") }
    attribute.value = try object["value"].map { node throws(SpecLoadError) in
      try expression(node, key: "value")
    }
    attribute.keys = try KsyKeysReader(file: file).field(extensions, line: node.line)
    try consistent(attribute, object)
    return attribute
  }

  /// What the user guide forbids together, said at load.
  private func consistent(_ attribute: KsyAttribute, _ object: SpecObject) throws(SpecLoadError) {
    let sizes = ["size", "size-eos", "terminator"].filter { object.has($0) }
    if sizes.contains("size-eos"), sizes.contains("size"), let node = object["size-eos"] {
      throw node.error("size and size-eos together")
    }
    if attribute.value != nil {
      for key in ["type", "size", "size-eos", "terminator", "contents", "pos", "io", "process", "repeat"]
      where object.has(key) {
        throw SpecLoadError(
          file: file, line: object[key]?.line ?? attribute.line, key: key,
          text: "a value instance computes its value; it reads nothing")
      }
    }
    if attribute.contents != nil, object.has("type"), let node = object["type"] {
      throw node.error("contents says the bytes; it takes no type")
    }
    if attribute.process != nil, sizes.isEmpty, let node = object["process"] {
      throw node.error("process needs the size of what it processes (size or size-eos)")
    }
    for key in ["consume", "include", "eos-error"] where object.has(key) && !object.has("terminator") {
      if case .named(let name, _) = attribute.type, name == "strz" { continue }
      throw SpecLoadError(
        file: file, line: object[key]?.line ?? attribute.line, key: key, text: "this key needs a terminator")
    }
    if object.has("encoding"), case .named(let name, _) = attribute.type, name != "str", name != "strz",
      let node = object["encoding"]
    {
      throw node.error("encoding is for str and strz, not \(name)")
    }
  }

  private func typeReference(_ node: SpecNode) throws(SpecLoadError) -> KsyTypeReference {
    guard node.isMapping else { return .named(try node.string(), line: node.line) }
    let (object, _) = try pairs(node, allowed: ["switch-on", "cases"], what: "a switch")
    let on = try expression(try object.required("switch-on"), key: "switch-on")
    var cases: [(match: KsyExpression?, type: String)] = []
    for pair in try object.required("cases").pairs() {
      let match = pair.key == "_" ? nil : try expression(text: pair.key, line: pair.value.line, key: "cases")
      cases.append((match, try pair.value.string()))
    }
    return .switched(on: on, cases: cases, line: node.line)
  }

  /// `contents`: a string's UTF-8, or a list of bytes and strings.
  private func contents(_ node: SpecNode) throws(SpecLoadError) -> [UInt8] {
    var bytes: [UInt8] = []
    for item in try node.list() {
      let text = try item.string()
      if !item.isQuoted, let number = SpecNode.parseInteger(text) {
        guard (0...255).contains(number) else { throw item.error("expected a byte 0…255, found \(number)") }
        bytes.append(UInt8(number))
      } else {
        bytes += Array(text.utf8)
      }
      guard bytes.count <= 4096 else { throw item.error("contents longer than 4096 bytes") }
    }
    guard !bytes.isEmpty else { throw node.error("contents of no bytes") }
    return bytes
  }

  private func repetition(_ object: SpecObject) throws(SpecLoadError) -> KsyRepeat {
    guard let node = object["repeat"] else {
      for key in ["repeat-expr", "repeat-until"] where object.has(key) {
        throw SpecLoadError(
          file: file, line: object[key]?.line ?? object.line, key: key, text: "this key needs repeat")
      }
      return .none
    }
    switch try node.choice(["eos", "expr", "until"]) {
    case "expr": return .expr(try expression(try object.required("repeat-expr"), key: "repeat-expr"))
    case "until": return .until(try expression(try object.required("repeat-until"), key: "repeat-until"))
    default: return .eos
    }
  }

  /// `xor(key)`, `rol(n)`, `ror(n)` or `zlib`; other processing is code
  /// outside the spec, and refused.
  private func process(_ node: SpecNode) throws(SpecLoadError) -> KsyProcess {
    let text = try node.string().trimmingCharacters(in: .whitespaces)
    if text == "zlib" { return .zlib }
    for name in ["xor", "rol", "ror"] where text.hasPrefix(name + "(") && text.hasSuffix(")") {
      let inner = String(text.dropFirst(name.count + 1).dropLast())
      let argument = try expression(text: inner, line: node.line, key: "process")
      switch name {
      case "xor": return .xor(argument)
      case "rol": return .rol(argument)
      default: return .ror(argument)
      }
    }
    throw node.error(
      "expected xor(key), rol(n), ror(n) or zlib, found '\(text)' (custom processing is code outside the spec)"
    )
  }

  private func valid(_ node: SpecNode) throws(SpecLoadError) -> KsyValid {
    var valid = KsyValid(line: node.line)
    guard node.isMapping else {
      valid.equal = try expression(node, key: "valid")
      return valid
    }
    let (object, _) = try pairs(
      node, allowed: ["eq", "min", "max", "any-of", "expr", "in-enum"], what: "valid")
    valid.equal = try object["eq"].map { node throws(SpecLoadError) in try expression(node, key: "eq") }
    valid.min = try object["min"].map { node throws(SpecLoadError) in try expression(node, key: "min") }
    valid.max = try object["max"].map { node throws(SpecLoadError) in try expression(node, key: "max") }
    valid.expr = try object["expr"].map { node throws(SpecLoadError) in try expression(node, key: "expr") }
    if let anyOf = object["any-of"] {
      for item in try anyOf.list() { valid.anyOf.append(try expression(item, key: "any-of")) }
    }
    valid.inEnum = try object["in-enum"]?.bool() ?? false
    return valid
  }
}

/// The string encodings pktbench decodes.
enum KsyEncoding {
  static let supported = ["UTF-8", "ASCII", "ISO-8859-1", "UTF-16LE", "UTF-16BE"]

  /// The canonical name of a supported encoding (names compare
  /// ignoring case and `-`/`_`).
  static func canonical(_ name: String) -> String? {
    let plain = name.uppercased().filter { $0 != "-" && $0 != "_" }
    switch plain {
    case "UTF8": return "UTF-8"
    case "ASCII", "USASCII": return "ASCII"
    case "ISO88591", "LATIN1": return "ISO-8859-1"
    case "UTF16LE": return "UTF-16LE"
    case "UTF16BE": return "UTF-16BE"
    default: return nil
    }
  }

  static func check(_ node: SpecNode) throws(SpecLoadError) -> String {
    let name = try node.string()
    guard let canonical = canonical(name) else {
      throw node.error("encoding '\(name)' is not supported; supported: \(supported.joined(separator: ", "))")
    }
    return canonical
  }
}
