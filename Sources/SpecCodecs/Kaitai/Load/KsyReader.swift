import PacketKit

/// Reads a `.ksy` file's YAML tree into `KsyType`s, as the Kaitai user
/// guide defines the language. Every key is checked: an unknown one, or a
/// Kaitai key pktbench does not support, is refused at its line; keys
/// starting with `-` are other tools' and left alone, except pktbench's
/// own (`-pktbench-…`), which are read (`KsyKeysReader`).
struct KsyReader {
  let file: String

  static let typeKeys: Set<String> = [
    "meta", "doc", "doc-ref", "params", "seq", "instances", "types", "enums",
  ]
  static let metaKeys: Set<String> = [
    "id", "title", "application", "file-extension", "xref", "license", "tags", "ks-version", "ks-debug",
    "ks-opaque-types", "imports", "encoding", "endian", "bit-endian",
  ]
  static let attributeKeys: Set<String> = [
    "id", "doc", "doc-ref", "type", "size", "size-eos", "terminator", "consume", "include", "eos-error",
    "pad-right", "encoding", "enum", "contents", "repeat", "repeat-expr", "repeat-until", "if", "process",
    "valid",
  ]
  static let instanceKeys: Set<String> = attributeKeys.union(["pos", "io", "value"]).subtracting(["id"])
  /// Kaitai keys pktbench refuses, with why.
  static let refused: [String: String] = [
    "parent": "overriding _parent is not supported",
    "to-string": "to-string is not supported",
  ]

  /// Identifiers as Kaitai allows them: lower case, digits, `_`.
  static func isIdentifier(_ text: String) -> Bool {
    guard let first = text.utf8.first, first >= 0x61, first <= 0x7A else { return false }
    return text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
  }

  /// A mapping's pairs with its keys checked: unknown ones refused,
  /// other tools' `-…` keys dropped, pktbench's returned apart.
  func pairs(_ node: SpecNode, allowed: Set<String>, what: String) throws(SpecLoadError) -> (
    SpecObject, [(key: String, value: SpecNode)]
  ) {
    let all = try node.pairs()
    var kept: [(key: String, value: SpecNode)] = []
    var extensions: [(key: String, value: SpecNode)] = []
    for pair in all {
      if pair.key.hasPrefix("-pktbench") {
        extensions.append(pair)
      } else if pair.key.hasPrefix("-") {
        continue
      } else if allowed.contains(pair.key) {
        kept.append(pair)
      } else if let why = Self.refused[pair.key] {
        throw SpecLoadError(file: file, line: pair.value.line, key: pair.key, text: why)
      } else {
        throw SpecLoadError(
          file: file, line: pair.value.line, key: pair.key,
          text: "not a key of \(what); expected one of \(allowed.sorted().joined(separator: ", "))")
      }
    }
    return (SpecObject(node: node, pairs: kept), extensions)
  }

  // MARK: Types

  /// A type's mapping; `name` is its key under `types` (or `meta/id`).
  func type(_ node: SpecNode, name: String, depth: Int) throws(SpecLoadError) -> KsyType {
    guard depth <= 32 else { throw node.error("types nested more than 32 deep") }
    var (object, extensions) = try pairs(node, allowed: Self.typeKeys, what: "a type")
    let type = KsyType(name: name, line: node.line, file: file)
    if depth == 0, let index = extensions.firstIndex(where: { $0.key == "-pktbench" }) {
      type.protocolKeys = try KsyProtocolReader(file: file).read(extensions[index].value)
      extensions.remove(at: index)
    }
    type.doc = try object.string("doc") ?? ""
    if let meta = object["meta"] { try self.meta(meta, into: type, isRoot: depth == 0) }
    if let params = object["params"] {
      for item in try params.list() { type.params.append(try parameter(item)) }
    }
    var ids = Set(type.params.map(\.id))
    if let seq = object["seq"] {
      let items = try seq.list()
      guard items.count <= Self.maxAttributes else {
        throw seq.error("more than \(Self.maxAttributes) attributes in one type; refused")
      }
      for item in items {
        let attribute = try self.attribute(item, id: nil)
        try unique(attribute.id, attribute.line, in: &ids)
        type.seq.append(attribute)
      }
    }
    if let instances = object["instances"] {
      let pairs = try instances.pairs()
      guard pairs.count <= Self.maxAttributes else {
        throw instances.error("more than \(Self.maxAttributes) attributes in one type; refused")
      }
      for pair in pairs {
        guard Self.isIdentifier(pair.key) else {
          throw pair.value.error("'\(pair.key)' is not an identifier")
        }
        let attribute = try self.attribute(pair.value, id: pair.key)
        try unique(attribute.id, attribute.line, in: &ids)
        type.instances.append(attribute)
      }
    }
    guard ids.count <= Self.maxAttributes else {
      throw node.error("more than \(Self.maxAttributes) attributes in one type; refused")
    }
    if let types = object["types"] {
      var names: Set<String> = []
      for pair in try types.pairs() {
        guard Self.isIdentifier(pair.key) else {
          throw pair.value.error("'\(pair.key)' is not an identifier")
        }
        guard names.insert(pair.key).inserted else {
          throw pair.value.error("type '\(pair.key)' is declared twice")
        }
        let inner = try self.type(pair.value, name: pair.key, depth: depth + 1)
        inner.parent = type
        type.types.append(inner)
      }
    }
    if let enums = object["enums"] {
      for pair in try enums.pairs() { type.enums.append(try enumeration(pair.value, name: pair.key)) }
    }
    type.message = try KsyKeysReader(file: file).message(extensions, name: name)
    return type
  }

  private func unique(_ id: String, _ line: Int, in ids: inout Set<String>) throws(SpecLoadError) {
    guard ids.insert(id).inserted else {
      throw SpecLoadError(
        file: file, line: line, key: "id", text: "'\(id)' is already an attribute of this type")
    }
  }

  /// What one spec may hold: more is a table no protocol needs, refused
  /// before it costs time or memory.
  static let maxAttributes = 4096
  static let maxEnumValues = 65536

  private func meta(_ node: SpecNode, into type: KsyType, isRoot: Bool) throws(SpecLoadError) {
    let (object, _) = try pairs(node, allowed: Self.metaKeys, what: "meta")
    if let opaque = object["ks-opaque-types"], try opaque.bool() {
      throw opaque.error("opaque types (code outside the spec) are not supported")
    }
    if let endian = object["endian"] {
      if endian.isMapping {
        let (switched, _) = try pairs(endian, allowed: ["switch-on", "cases"], what: "a calculated endian")
        let on = try expression(try switched.required("switch-on"), key: "switch-on")
        var cases: [(match: KsyExpression?, little: Bool)] = []
        for pair in try switched.required("cases").pairs() {
          let little = try pair.value.choice(["le", "be"]) == "le"
          let match =
            pair.key == "_" ? nil : try expression(text: pair.key, line: pair.value.line, key: "cases")
          cases.append((match, little))
        }
        type.endian = .switched(on: on, cases: cases)
      } else {
        type.endian = try endian.choice(["le", "be"]) == "le" ? .little : .big
      }
    }
    if let bitEndian = object["bit-endian"] {
      type.bitEndianLittle = try bitEndian.choice(["le", "be"]) == "le"
    }
    if let encoding = object["encoding"] { type.encoding = try KsyEncoding.check(encoding) }
    if let imports = object["imports"] {
      guard isRoot else { throw imports.error("imports belong in the file's own meta") }
      for item in try imports.list() { type.imports.append((try item.string(), item.line)) }
    }
    if isRoot { type.title = try object.string("title") }
  }

  private func parameter(_ node: SpecNode) throws(SpecLoadError) -> KsyParameter {
    let (object, _) = try pairs(node, allowed: ["id", "type", "enum", "doc", "doc-ref"], what: "a parameter")
    let id = try identifier(try object.required("id"))
    return KsyParameter(
      id: id, line: node.line, type: try object.string("type") ?? "bytes", enumName: try object.string("enum")
    )
  }

  private func identifier(_ node: SpecNode) throws(SpecLoadError) -> String {
    let text = try node.string()
    guard Self.isIdentifier(text) else {
      throw node.error("expected an identifier (lower case letters, digits, '_'), found '\(text)'")
    }
    return text
  }

  // MARK: Enums

  private func enumeration(_ node: SpecNode, name: String) throws(SpecLoadError) -> KsyEnum {
    guard Self.isIdentifier(name) else { throw node.error("'\(name)' is not an identifier") }
    var values: [KsyEnum.Value] = []
    var seen: [Int64: String] = [:]
    var ids: Set<String> = []
    let pairs = try node.pairs()
    guard pairs.count <= Self.maxEnumValues else {
      throw node.error("an enum of more than \(Self.maxEnumValues) values; refused")
    }
    for pair in pairs {
      guard let value = SpecNode.parseInteger(pair.key) else {
        throw pair.value.error("expected an integer key, found '\(pair.key)'")
      }
      var entry = KsyEnum.Value(value: value, id: "", original: nil, doc: "")
      if pair.value.isMapping {
        let all = try pair.value.pairs()
        let object = SpecObject(node: pair.value, pairs: all.filter { !$0.key.hasPrefix("-") })
        for key in object.pairs.map(\.key) where !["id", "doc", "doc-ref"].contains(key) {
          throw pair.value.error("not a key of an enum value; expected id, doc, doc-ref", key: key)
        }
        entry.id = try object.required("id").string()
        entry.doc = try object.string("doc") ?? ""
        entry.original = try all.first { $0.key == "-orig-id" }?.value.string()
      } else {
        entry.id = try pair.value.string()
      }
      guard Self.isIdentifier(entry.id) else {
        throw pair.value.error("'\(entry.id)' is not an identifier")
      }
      if let twin = seen[value] { throw pair.value.error("\(value) is already \(twin)") }
      guard ids.insert(entry.id).inserted else { throw pair.value.error("'\(entry.id)' is already a value") }
      seen[value] = entry.id
      values.append(entry)
    }
    return KsyEnum(name: name, line: node.line, values: values)
  }

  // MARK: Expressions

  func expression(_ node: SpecNode, key: String) throws(SpecLoadError) -> KsyExpression {
    guard let text = node.scalar else { throw node.error("expected an expression, found \(node.found)") }
    return try expression(text: text, line: node.line, key: key)
  }

  func expression(text: String, line: Int, key: String) throws(SpecLoadError) -> KsyExpression {
    do {
      return KsyExpression(expression: try KsExpressionParser.parse(text), text: text, line: line, key: key)
    } catch {
      throw SpecLoadError(
        file: file, line: line, key: key, text: "'\(text)': \(error.text) (column \(error.column))")
    }
  }
}
