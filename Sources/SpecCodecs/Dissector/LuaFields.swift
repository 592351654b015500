/// The Wireshark fields a `.ksy` dissector declares: one per display-filter
/// path the decode can show (`dns.queries.name.labels.length`), found by
/// walking the plan from the root, as pktbench's dissection names them (a
/// repeat's elements are its field's occurrences; the message switch's
/// case is shown in the root's place). A type recursive through itself
/// (DNS's compression pointer) is followed a few times; deeper, the walker
/// shows text without a field.
struct LuaFields {
  struct Field {
    var key: String
    var label: String
    /// `uint32`, `int32`, `uint64`, `int64`, `double`, `bool`, `bytes`, `string`, `none`.
    var type: String
    var enumeration: Int?
    var hex = false
  }

  static let maxFields = 3000
  static let maxVisits = 3

  let program: KsProgram
  var plan: KsPlan { program.plan }
  private(set) var fields: [Field] = []
  private var index: [String: Int] = [:]

  init(program: KsProgram, prefix: String) {
    self.program = program
    var visits: [Int: Int] = [:]
    walk(type: 0, prefix: prefix, visits: &visits, isRoot: true)
    let unknown = program.unknown.bodyField
    declare(Field(key: prefix + "." + unknown, label: unknown, type: "bytes"))
    for kind in program.kinds {
      if case .keep(let field, _, _)? = kind.keys.sizeMismatch {
        declare(Field(key: prefix + "." + field, label: field, type: "bytes"))
      }
    }
  }

  private mutating func declare(_ field: Field) {
    guard fields.count < Self.maxFields else { return }
    if let known = index[field.key] {
      // One path, two kinds of value: shown as text.
      if fields[known].type != field.type { fields[known].type = "string" }
      return
    }
    index[field.key] = fields.count
    fields.append(field)
  }

  private mutating func walk(type: Int, prefix: String, visits: inout [Int: Int], isRoot: Bool) {
    guard (visits[type] ?? 0) < Self.maxVisits, fields.count < Self.maxFields else { return }
    visits[type, default: 0] += 1
    defer { visits[type, default: 1] -= 1 }
    let typePlan = plan.types[type]
    for attribute in typePlan.seq + typePlan.instances {
      if isRoot, attribute.slot == program.messageSlot, !attribute.isInstance {
        for kind in program.kinds {
          if let caseType = kind.type { walk(type: caseType, prefix: prefix, visits: &visits, isRoot: false) }
        }
        continue
      }
      let key = prefix + "." + attribute.id
      declare(attribute, read: attribute.read, key: key, visits: &visits)
      if let report = attribute.check?.check.reportField {
        declare(Field(key: prefix + "." + report, label: report, type: "string"))
      }
    }
  }

  private mutating func declare(
    _ attribute: KsAttributePlan, read: KsRead, key: String, visits: inout [Int: Int]
  ) {
    switch read {
    case .user(let type, _, let size):
      declare(Field(key: key, label: attribute.id, type: size == nil ? "none" : "bytes"))
      walk(type: type, prefix: key, visits: &visits, isRoot: false)
    case .switched(_, _, let cases, let fallback, let size):
      if size != nil { declare(Field(key: key, label: attribute.id, type: "bytes")) }
      for item in cases.map(\.read) + (fallback.map { [$0] } ?? []) {
        declare(attribute, read: item, key: key, visits: &visits)
      }
    default:
      declare(
        Field(
          key: key, label: attribute.id, type: leafType(attribute, read), enumeration: attribute.enumeration,
          hex: attribute.keys.hex))
    }
  }

  /// The Wireshark type of one value of the attribute.
  func leafType(_ attribute: KsAttributePlan, _ read: KsRead) -> String {
    if attribute.keys.scale != nil || attribute.keys.offset != nil { return "double" }
    if attribute.enumeration != nil { return "enum" }
    switch read {
    case .integer(let bytes, let signed, _):
      return bytes == 8 ? (signed ? "int64" : "uint64") : (signed ? "int32" : "uint32")
    case .bits(let count, _): return attribute.type == .bool ? "bool" : (count > 32 ? "uint64" : "uint32")
    case .float: return "double"
    case .contents, .bytes: return "bytes"
    case .string: return "string"
    case .user, .switched: return "none"
    case .value:
      switch attribute.type {
      case .integer: return "int64"
      case .enumeration: return "enum"
      case .float: return "double"
      case .bool: return "bool"
      case .bytes: return "bytes"
      case .string: return "string"
      default: return "none"
      }
    }
  }
}
