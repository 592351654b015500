import PacketKit

/// A spec's fields as Lua table literals for the dissector's walker, and
/// the Wireshark fields they declare (one per display-filter name, however
/// many messages share it).
struct LuaLayout {
  struct Declared {
    var key: String
    var label: String
    var type: String
    var hex = false
    var enumeration: String?
    var mask: UInt64?
    var bits = 0
  }

  private(set) var declared: [Declared] = []
  private var declaredKeys: Set<String> = []
  private(set) var enums: [SpecEnum] = []
  /// Field name → its key (path), first seen; length, count and check
  /// fields name the fields they govern by name.
  private var keys: [String: String] = [:]
  /// The header's field that sizes the body or the frame, as a Lua table.
  private(set) var frameLength: String?

  init(spec: Spec) {
    Self.collectKeys(spec.header + spec.trailer, prefix: "", into: &keys)
    for message in spec.messages { Self.collectKeys(message.fields, prefix: "", into: &keys) }
  }

  private static func collectKeys(_ fields: [SpecField], prefix: String, into keys: inout [String: String]) {
    for field in fields {
      let key = prefix + field.name
      if keys[field.name] == nil { keys[field.name] = key }
      switch field.type {
      case .group(let children), .repeated(_, let children):
        collectKeys(children, prefix: key + ".", into: &keys)
      default: break
      }
    }
  }

  func key(of name: String) -> String { keys[name] ?? name }

  mutating func declare(
    key: String, label: String, type: String, hex: Bool = false, enumeration: String? = nil,
    mask: UInt64? = nil,
    bits: Int = 0
  ) {
    guard declaredKeys.insert(key).inserted else { return }
    declared.append(
      Declared(key: key, label: label, type: type, hex: hex, enumeration: enumeration, mask: mask, bits: bits)
    )
  }

  /// `{ node, node, … }` for the walker.
  mutating func fields(_ fields: [SpecField], prefix: String) -> String {
    "{ " + fields.map { node($0, prefix: prefix) }.joined(separator: ", ") + " }"
  }

  mutating func mismatch(_ mismatch: SpecSizeMismatch) -> String {
    switch mismatch {
    case .error(let code): return "{ action = \"error\", code = \(Lua.quoted(code)) }"
    case .unknown(let warning, let text):
      return "{ action = \"unknown\", code = \(Lua.quoted(warning)), text = \(Lua.quoted(text ?? warning)) }"
    case .keep(let field, let warning, let text):
      declare(key: field, label: field, type: "bytes")
      return "{ action = \"keep\", field = \(Lua.quoted(field)), code = \(Lua.quoted(warning)), "
        + "text = \(Lua.quoted(text ?? warning)) }"
    }
  }

  private mutating func node(_ field: SpecField, prefix: String) -> String {
    let key = prefix + field.name
    var parts = ["name = \(Lua.quoted(field.name))", "key = \(Lua.quoted(key))"]
    switch field.type {
    case .integer(let width, let signed, let order):
      parts += ["type = \(signed ? "\"int\"" : "\"uint\"")", "size = \(width / 8)", "width = \(width / 8)"]
      parts.append("order = \(Lua.quoted(order.rawValue))")
      if signed { parts.append("signed = true") }
      if let enumeration = field.enumeration {
        parts.append("enum = \(Lua.quoted(enumeration.name))")
        if !enums.contains(where: { $0.name == enumeration.name }) { enums.append(enumeration) }
      }
      declare(
        key: key, label: field.name, type: "\(signed ? "int" : "uint")\(width)", hex: field.display == .hex,
        enumeration: field.enumeration?.name)
      if !field.flags.isEmpty {
        let flagKeys = field.flags.map { flag -> String in
          let flagKey = key + "." + flag.name
          declare(key: flagKey, label: flag.name, type: "bool", mask: flag.mask, bits: width)
          return Lua.quoted(flagKey)
        }
        parts.append("flags = { \(flagKeys.joined(separator: ", ")) }")
        parts.append("flag_mask = \(field.flags.reduce(UInt64(0)) { $0 | $1.mask })")
      }
    case .float(let width, let order):
      parts += ["type = \"float\"", "size = \(width / 8)", "order = \(Lua.quoted(order.rawValue))"]
      declare(key: key, label: field.name, type: width == 32 ? "float" : "double")
    case .bytes(let size), .text(let size):
      let isText: Bool
      if case .text = field.type { isText = true } else { isText = false }
      parts.append("type = \(isText ? "\"text\"" : "\"bytes\"")")
      switch size {
      case .fixed(let count): parts.append("size = \(count)")
      case .lengthField(let name): parts.append("size_field = \(Lua.quoted(self.key(of: name)))")
      case .rest: break
      }
      declare(key: key, label: field.name, type: isText ? "string" : "bytes")
    case .group(let children):
      declare(key: key, label: field.name, type: "none")
      parts += ["type = \"group\"", "children = \(fields(children, prefix: key + "."))"]
    case .repeated(let count, let element):
      declare(key: key, label: field.name, type: "none")
      parts += ["type = \"repeat\"", "children = \(fields(element, prefix: key + "."))"]
      switch count {
      case .fixed(let number): parts.append("count = \(number)")
      case .countField(let name): parts.append("count_field = \(Lua.quoted(self.key(of: name)))")
      case .rest: break
      }
    case .json:
      declare(key: key, label: field.name, type: "string")
      parts.append("type = \"text\"")
    }
    if let range = field.range {
      parts.append("min = \(Self.number(range.lowerBound)), max = \(Self.number(range.upperBound))")
    }
    if case .discriminator = field.role { parts.append("discriminator = true") }
    if let role = role(field, key: key) { parts.append("role = \(role)") }
    return "{ " + parts.joined(separator: ", ") + " }"
  }

  private mutating func role(_ field: SpecField, key: String) -> String? {
    switch field.role {
    case .value, .discriminator: return nil
    case .fixed(let literal, let error):
      return "{ kind = \"fixed\", value = \(Self.literal(literal)), error = \(Lua.quoted(error)) }"
    case .expected(let literal, let warning):
      return "{ kind = \"expect\", value = \(Self.literal(literal)), warning = \(Lua.quoted(warning)) }"
    case .length(let target, let max, let error):
      let targetText: String
      switch target {
      case .frame: targetText = "frame"
      case .body: targetText = "body"
      case .field(let name): targetText = self.key(of: name)
      }
      let table =
        "{ kind = \"length\", key = \(Lua.quoted(key)), target = \(Lua.quoted(targetText)), "
        + "max = \(max.map(String.init) ?? "nil"), error = \(Lua.quoted(error)) }"
      if target == .frame || target == .body { frameLength = table }
      return table
    case .count(_, let max, let error):
      return "{ kind = \"count\", max = \(max.map(String.init) ?? "nil"), error = \(Lua.quoted(error)) }"
    case .check(let check):
      let variants = check.variants.map {
        "{ name = \(Lua.quoted($0.name)), algorithm = \(Lua.quoted($0.algorithm.rawValue)) }"
      }
      var parts = [
        "kind = \"check\"", "variants = { \(variants.joined(separator: ", ")) }",
        "error = \(Lua.quoted(check.error))",
      ]
      if let from = check.from { parts.append("from = \(Lua.quoted(from))") }
      if let through = check.through { parts.append("through = \(Lua.quoted(through))") }
      if let report = check.reportField {
        let reportKey = String(key.dropLast(field.name.count)) + report
        declare(key: reportKey, label: report, type: "string")
        parts.append("report = \(Lua.quoted(reportKey))")
      }
      return "{ " + parts.joined(separator: ", ") + " }"
    }
  }

  static func literal(_ literal: SpecLiteral) -> String {
    switch literal {
    case .integer(let value): return String(value)
    case .number(let value): return number(value)
    case .text(let text): return Lua.quoted(text)
    case .bytes(let bytes): return Lua.quoted(Hex.compact(bytes).lowercased())
    case .bool(let value): return value ? "1" : "0"
    }
  }

  static func number(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }
}
