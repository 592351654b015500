import PacketKit

/// JSON messages: one object each, its kind told by the keys it has (every
/// key a kind requires present, every fixed key at its value; the first
/// kind that fits). A key of the wrong JSON type is damage at that key; a
/// value out of range or an unknown enum value a warning; a key the kind
/// does not name a note (and it is not kept).
struct SpecJSONCodec {
  let spec: Spec

  static let limits = JSONTape.Limits(maxBytes: 1 << 20, maxDepth: 32, maxElements: 1 << 16)

  // MARK: Decode

  func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> SpecDecoded {
    try JSONTape.read(bytes, limits: Self.limits) { (root) throws(DecodeError) -> SpecDecoded in
      try decode(root)
    }
  }

  /// The first kind whose required keys are all there and fixed keys right.
  private func kind(of root: JSONNode) -> Int? {
    spec.messages.firstIndex { message in
      message.fields.allSatisfy { field in
        guard let value = root[field.name] else { return field.optional }
        if case .fixed(let literal, _) = field.role { return Self.equals(value, literal) }
        return true
      }
    }
  }

  private func decode(_ root: JSONNode) throws(DecodeError) -> SpecDecoded {
    guard root.kind == .object else {
      let found = root.typeName
      throw DecodeError(code: "not-object", offset: root.range.lowerBound) {
        .init("a \(found) where a JSON object was expected", expected: "object", found: found)
      }
    }
    guard let kind = kind(of: root) else {
      let keys = root.members.map(\.key.text)
      let name = spec.name
      throw DecodeError(code: "unknown-message", offset: root.range.lowerBound) {
        .init(
          "no \(name) message has the keys \(keys.joined(separator: ", "))",
          found: keys.joined(separator: ", "))
      }
    }
    let message = spec.messages[kind]
    var diagnostics: [Diagnostic] = []
    var nodes: [DissectionNode] = []
    var values = [SpecValue](repeating: .absent, count: message.fields.count)
    for member in root.members {
      let key = member.key.text
      guard let index = message.fields.firstIndex(where: { $0.name == key }) else {
        diagnostics.append(
          .note("unknown-key", "\(message.name) has no key '\(key)'; it is not kept", range: member.range))
        nodes.append(member.value.dissection(name: key))
        continue
      }
      let (value, node) = try read(message.fields[index], member.value, &diagnostics)
      values[index] = value
      nodes.append(node)
    }
    let decoded = SpecMessage(kind: kind, body: values)
    return SpecDecoded(message: decoded, name: message.name, fields: nodes, diagnostics: diagnostics)
  }

  private func read(_ field: SpecField, _ node: JSONNode, _ diagnostics: inout [Diagnostic])
    throws(DecodeError)
    -> (SpecValue, DissectionNode)
  {
    let range = node.range
    let name = field.name
    let type = field.type
    func wrongType() -> DecodeError {
      let found = node.typeName
      return DecodeError(code: "wrong-type", offset: range.lowerBound, keyPath: name) {
        .init("\(name) is a \(found); expected \(type.rawValue)", expected: type.rawValue, found: found)
      }
    }
    let unit = field.unit
    let value: SpecValue
    let shown: FieldValue
    switch type {
    case .number:
      guard let number = node.number else { throw wrongType() }
      value = .number(number)
      shown = .number(number)
    case .integer:
      guard let number = node.number, node.isInteger, let integer = Int64(exactly: number) else {
        throw wrongType()
      }
      value = .signed(integer)
      if let enumeration = field.enumeration {
        let known = enumeration.value(integer)
        if known == nil {
          diagnostics.append(.warning("unknown-enum", "\(name) \(integer) is unknown", range: range))
        }
        shown = .enumeration(name: known?.name ?? "unknown(\(integer))", raw: integer)
      } else {
        shown = .integer(integer)
      }
    case .string:
      guard let text = node.string else { throw wrongType() }
      value = .text(Array(text.utf8))
      if let enumeration = field.enumeration {
        if let known = enumeration.cases.first(where: { $0.name == text }) {
          shown = .enumeration(name: known.name, raw: known.value)
        } else {
          diagnostics.append(
            .warning(
              "unknown-enum",
              "\(name) '\(text)' is unknown; known are \(enumeration.cases.map(\.name).joined(separator: ", "))",
              range: range))
          shown = .string(text)
        }
      } else {
        shown = .string(text)
      }
    case .bool:
      guard let flag = node.bool else { throw wrongType() }
      value = .bool(flag)
      shown = .bool(flag)
    }
    switch field.role {
    case .fixed(let literal, let code) where !Self.equals(node, literal):
      let expected = literal.described
      throw DecodeError(code: code, offset: range.lowerBound, keyPath: name) {
        .init("\(name) is not \(expected)", expected: expected)
      }
    case .expected(let literal, let warning) where !Self.equals(node, literal):
      diagnostics.append(.warning(warning, "\(name) is not \(literal.described)", range: range))
    default: break
    }
    if let allowed = field.range, let number = node.number, !allowed.contains(number) {
      let unitText = field.unit.map { " \($0)" } ?? ""
      diagnostics.append(
        .warning(
          "out-of-range",
          "\(name) \(JSONWriter.formatNumber(number))\(unitText) is outside "
            + "\(JSONWriter.formatNumber(allowed.lowerBound))…\(JSONWriter.formatNumber(allowed.upperBound))\(unitText)",
          range: range))
    }
    return (value, DissectionNode(name, shown, unit: unit, range: range))
  }

  static func equals(_ node: JSONNode, _ literal: SpecLiteral) -> Bool {
    switch literal {
    case .text(let text): return node.kind == .string && node.textEquals(text)
    case .integer(let number): return node.number == Double(number)
    case .number(let number): return node.number == number
    case .bool(let flag): return node.bool == flag
    case .bytes: return false
    }
  }

  // MARK: Encode

  func encode(_ message: SpecMessage, validate: Bool) throws(EncodeError) -> [UInt8] {
    guard message.kind >= 0, message.kind < spec.messages.count else {
      throw EncodeError(code: "unknown-message", text: "\(spec.name) has no such message")
    }
    let fields = spec.messages[message.kind].fields
    guard fields.count == message.body.count else {
      throw EncodeError(code: "wrong-shape", text: "the message does not have the spec's keys")
    }
    var writer = JSONWriter(capacity: 64 + 16 * fields.count)
    writer.append(UInt8(ascii: "{"))
    var first = true
    for (field, value) in zip(fields, message.body) {
      if case .absent = value { continue }
      if validate, let range = field.range {
        let number: Double? =
          switch value {
          case .number(let number): number
          case .signed(let integer): Double(integer)
          default: nil
          }
        if let number, !range.contains(number) {
          throw .outOfRange(
            field.name, JSONWriter.formatNumber(number),
            allowed:
              "\(JSONWriter.formatNumber(range.lowerBound))…\(JSONWriter.formatNumber(range.upperBound))",
            unit: field.unit)
        }
      }
      if !first { writer.append(UInt8(ascii: ",")) }
      first = false
      writer.string(field.name)
      writer.append(UInt8(ascii: ":"))
      switch value {
      case .number(let number):
        guard number.isFinite else {
          throw EncodeError(
            code: "out-of-range", text: "\(field.name) must be a finite number", field: field.name)
        }
        writer.number(number)
      case .signed(let integer): writer.integer(integer)
      case .text(let bytes): writer.string(String(decoding: bytes, as: UTF8.self))
      case .bool(let flag): writer.bool(flag)
      default: writer.null()
      }
    }
    writer.append(UInt8(ascii: "}"))
    return writer.bytes
  }

  // MARK: Craft

  func craft(_ name: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    guard let kind = spec.messages.firstIndex(where: { $0.name == name || $0.craftNames.contains(name) })
    else {
      throw EncodeError(
        code: "unknown-message",
        text:
          "\(spec.name) has no message '\(name)'; it has \(spec.messages.map(\.name).joined(separator: ", "))"
      )
    }
    var body: [SpecValue] = []
    for field in spec.messages[kind].fields {
      body.append(try value(field, values))
    }
    return SpecMessage(kind: kind, body: body)
  }

  private func value(_ field: SpecField, _ values: CraftValues) throws(EncodeError) -> SpecValue {
    let type = field.type
    let given: FieldValue
    switch field.role {
    case .fixed(let literal, _), .expected(let literal, _):
      given = SpecJSONSchema.value(of: literal, for: field)
    default:
      if let value = values[field.name], value != .null {
        given = value
      } else if let literal = field.defaultValue {
        given = SpecJSONSchema.value(of: literal, for: field)
      } else if field.optional {
        return .absent
      } else {
        given = try values.required(field.name)
      }
    }
    let ranged = FieldSchema(
      named: field.name, kind: .number, unit: field.unit, range: field.range, help: "")
    switch type {
    case .number:
      let number = try CraftValues.number(given, named: field.name)
      guard number.isFinite else {
        throw EncodeError(
          code: "out-of-range", text: "\(field.name) must be a finite number", field: field.name)
      }
      if !values.force { try ranged.validate(.number(number)) }
      return .number(number)
    case .integer:
      let number: Int64
      if let enumeration = field.enumeration {
        number = try KsCraftValues.enumRaw(
          given, cases: enumeration.cases.map { ($0.name, $0.value) }, name: field.name)
      } else {
        number = try CraftValues.integer(given, named: field.name)
      }
      if !values.force { try ranged.validate(.integer(number)) }
      return .signed(number)
    case .string:
      guard let text = given.stringValue else {
        throw EncodeError(code: "wrong-type", text: "\(field.name) must be text", field: field.name)
      }
      if !values.force, let enumeration = field.enumeration,
        !enumeration.cases.contains(where: { $0.name == text })
      {
        throw .outOfRange(field.name, text, allowed: enumeration.cases.map(\.name).joined(separator: ", "))
      }
      return .text(Array(text.utf8))
    case .bool:
      guard let flag = given.boolValue else {
        throw EncodeError(code: "wrong-type", text: "\(field.name) must be true or false", field: field.name)
      }
      return .bool(flag)
    }
  }

  // MARK: Probe

  func probe(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard bytes.count > 0 else { return 0 }
    let score: Int? = try? JSONTape.read(bytes, limits: Self.limits) { root -> Int in
      guard root.kind == .object, let kind = kind(of: root) else { return 0 }
      return spec.messages[kind].probe ?? 80
    }
    return score ?? 0
  }
}
