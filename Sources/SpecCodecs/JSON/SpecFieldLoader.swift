import PacketKit

/// Reads one key of a JSON protocol's message (a mapping under a
/// message's `fields` in the `-pktbench` section) into a `SpecField`.
struct SpecFieldLoader {
  let file: String
  let enums: [SpecEnum]

  static let keys = [
    "name", "type", "fixed", "expect", "error", "warning", "enum", "unit", "range", "help", "flag", "default",
    "cases-are-flags", "optional",
  ]

  func fields(_ node: SpecNode) throws(SpecLoadError) -> [SpecField] {
    var fields: [SpecField] = []
    for item in try node.list() {
      let field = try self.field(item)
      if let twin = fields.first(where: { $0.name == field.name }) {
        throw SpecLoadError(
          file: file, line: field.line, key: "name",
          text: "'\(field.name)' is already a field here (line \(twin.line))")
      }
      fields.append(field)
    }
    return fields
  }

  func field(_ node: SpecNode) throws(SpecLoadError) -> SpecField {
    let object = try node.object(allowing: Self.keys)
    let nameNode = try object.required("name")
    let name = try nameNode.string()
    guard Self.isName(name) else {
      throw nameNode.error("expected a name of letters, digits, '_' and '-', found '\(name)'")
    }
    let typeNode = try object.required("type")
    let spelling = try typeNode.string()
    guard let type = SpecJSONType(rawValue: spelling) else {
      throw typeNode.error("expected number, integer, string or bool, found '\(spelling)'")
    }
    var field = SpecField(name: name, line: node.line, type: type)
    if let node = object["unit"] {
      let (_, unit) = try KsyKeysReader.unit(node)
      guard let text = SpecStaticText.intern(unit) else {
        throw node.error("this toolchain cannot hold a unit from a spec")
      }
      field.unit = FieldUnit(text)
    }
    if let range = object["range"] {
      let bounds = try range.list()
      guard bounds.count == 2 else { throw range.error("expected [low, high], found \(range.found)") }
      let (low, high) = (try bounds[0].number(), try bounds[1].number())
      guard low <= high else { throw range.error("expected low ≤ high, found [\(low), \(high)]") }
      field.range = low...high
    }
    if let node = object["enum"] {
      guard type == .integer || type == .string else {
        throw node.error("an enum needs an integer or string key, not \(type.rawValue)")
      }
      field.enumeration = try enumeration(node, field: name)
    }
    field.help = try object.string("help") ?? ""
    field.craftFlag = try object.string("flag")
    field.defaultValue = try object["default"].map { node throws(SpecLoadError) in
      try KsyKeysReader.literal(node)
    }
    field.casesAreFlags = try object["cases-are-flags"]?.bool() ?? false
    field.optional = try object["optional"]?.bool() ?? false
    let error = try object.string("error")
    let warning = try object.string("warning")
    if let fixed = object["fixed"] {
      field.role = .fixed(try KsyKeysReader.literal(fixed), error: error ?? "bad-value")
    } else if let expected = object["expect"] {
      field.role = .expected(try KsyKeysReader.literal(expected), warning: warning ?? "unexpected-value")
    } else if let node = object["error"] ?? object["warning"] {
      throw node.error("an error or warning code is for a fixed or expected key")
    }
    return field
  }

  static func isName(_ name: String) -> Bool {
    !name.isEmpty
      && name.unicodeScalars.allSatisfy {
        ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") && $0.isASCII
      }
  }

  func enumeration(_ node: SpecNode, field: String) throws(SpecLoadError) -> SpecEnum {
    if let name = node.scalar {
      guard let known = enums.first(where: { $0.name == name }) else {
        throw node.error(
          "no enum '\(name)' in 'enums'"
            + (enums.isEmpty ? "" : "; it has \(enums.map(\.name).joined(separator: ", "))"))
      }
      return known
    }
    return try Self.enumeration(node, name: field)
  }

  /// `NAME: value` pairs, or (for text) a list of names.
  static func enumeration(_ node: SpecNode, name: String) throws(SpecLoadError) -> SpecEnum {
    var cases: [SpecEnum.Case] = []
    if node.isSequence {
      for (index, item) in try node.list().enumerated() {
        cases.append(.init(name: try item.string(), value: Int64(index)))
      }
    } else {
      for pair in try node.pairs() {
        let value = try pair.value.integer()
        if let twin = cases.first(where: { $0.value == value }) {
          throw pair.value.error("\(value) is already \(twin.name)")
        }
        cases.append(.init(name: pair.key, value: value))
      }
    }
    guard !cases.isEmpty else { throw node.error("expected at least one value") }
    return SpecEnum(name: name, cases: cases)
  }
}
