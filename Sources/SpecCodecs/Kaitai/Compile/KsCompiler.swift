import PacketKit

/// Compiles a loaded `.ksy` into a `KsPlan`, once: every type gets an
/// index and its attributes slots, every name in an expression is
/// resolved to a slot and checked for its type, every size, repeat and
/// switch is made a flat `KsRead`. What the language has that pktbench
/// does not support is refused here, at the line and key that uses it.
final class KsCompiler {
  let document: KsyDocument
  private(set) var types: [KsyType] = []
  private var indexByType: [ObjectIdentifier: Int] = [:]
  /// Per type, the static type of each slot (nil while a value instance's is not yet known).
  var slotTypes: [[KsType?]] = []
  var slotNames: [[String]] = []
  /// Slots by name, per type (a type of thousands of attributes is looked
  /// up by every expression that names one).
  private var slotIndex: [[String: Int]] = []
  /// Nested types by name, per type.
  private var nested: [[String: Int]] = []
  /// Per type, the types that create objects of it (`_parent`'s).
  var parents: [Set<Int>] = []
  var enums: [KsEnumPlan] = []
  private var enumIndex: [String: Int] = [:]
  /// Value instances whose type is being found (a cycle is refused).
  private var resolving: Set<[Int]> = []
  /// Per type, its attributes compiled so far.
  var plans: [KsTypePlan?] = []

  static let maxTypes = 4096
  static let maxAttributes = 16384

  init(_ document: KsyDocument) {
    self.document = document
  }

  func index(of type: KsyType) -> Int { indexByType[ObjectIdentifier(type)] ?? 0 }

  func slot(named name: String, in type: Int) -> Int? { slotIndex[type][name] }

  func error(_ file: String, _ line: Int, _ key: String?, _ text: String) -> SpecLoadError {
    SpecLoadError(file: file, line: line, key: key, text: text)
  }

  // MARK: The whole

  func compile() throws(SpecLoadError) -> KsPlan {
    register(document.root)
    for imported in document.imported { register(imported) }
    guard types.count <= Self.maxTypes else {
      throw error(document.file, 1, "types", "more than \(Self.maxTypes) types; refused")
    }
    let attributes = types.reduce(0) { $0 + $1.seq.count + $1.instances.count + $1.params.count }
    guard attributes <= Self.maxAttributes else {
      throw error(document.file, 1, "seq", "more than \(Self.maxAttributes) attributes; refused")
    }
    slotNames = types.map { type in type.params.map(\.id) + type.seq.map(\.id) + type.instances.map(\.id) }
    slotIndex = slotNames.map { names in
      Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
    nested = types.map { type in
      Dictionary(type.types.map { ($0.name, index(of: $0)) }, uniquingKeysWith: { first, _ in first })
    }
    slotTypes = slotNames.map { Array(repeating: nil, count: $0.count) }
    parents = Array(repeating: [], count: types.count)
    plans = Array(repeating: nil, count: types.count)
    // Declared types first: what an expression may reach needs them.
    for (index, type) in types.enumerated() {
      for (slot, parameter) in type.params.enumerated() {
        slotTypes[index][slot] = try parameterType(parameter, in: index)
      }
      for (offset, attribute) in (type.seq + type.instances).enumerated() where attribute.value == nil {
        slotTypes[index][type.params.count + offset] = try declaredType(attribute, in: index)
      }
    }
    for index in types.indices {
      for attribute in types[index].instances where attribute.value != nil {
        _ = try valueType(attribute, in: index)
      }
    }
    var typePlans: [KsTypePlan] = []
    for index in types.indices { typePlans.append(try typePlan(index)) }
    return KsPlan(types: typePlans, enums: enums, file: document.file)
  }

  private func register(_ type: KsyType) {
    guard indexByType[ObjectIdentifier(type)] == nil else { return }
    indexByType[ObjectIdentifier(type)] = types.count
    types.append(type)
    for inner in type.types {
      inner.parent = type
      register(inner)
    }
  }

  // MARK: Names

  /// The type `name` (`foo`, `foo::bar`) as seen from the type `context`:
  /// its own nested types, then its enclosing types', then the files'
  /// roots.
  func findType(_ name: String, from context: Int) -> Int? {
    let parts = name.components(separatedBy: "::")
    guard var found = findFirst(parts[0], from: context) else { return nil }
    for part in parts.dropFirst() {
      guard let inner = nested[found][part] else { return nil }
      found = inner
    }
    return found
  }

  private func findFirst(_ name: String, from context: Int) -> Int? {
    var scope: KsyType? = types[context]
    while let current = scope {
      if let inner = nested[index(of: current)][name] { return inner }
      if current.isFileRoot, current.name == name { return index(of: current) }
      scope = current.parent
    }
    for root in [document.root] + document.imported where root.name == name { return index(of: root) }
    return nil
  }

  /// The enum `name` (`foo`, `type::foo`) from the type `context`.
  func findEnum(_ name: String, from context: Int) -> Int? {
    let parts = name.components(separatedBy: "::")
    if parts.count > 1 {
      guard let typeIndex = findType(parts.dropLast().joined(separator: "::"), from: context) else {
        return nil
      }
      return enumPlan(parts[parts.count - 1], in: types[typeIndex])
    }
    var scope: KsyType? = types[context]
    while let current = scope {
      if let found = enumPlan(name, in: current) { return found }
      scope = current.parent
    }
    for root in document.imported {
      if let found = enumPlan(name, in: root) { return found }
    }
    return nil
  }

  private func enumPlan(_ name: String, in type: KsyType) -> Int? {
    guard let declared = type.enums.first(where: { $0.name == name }) else { return nil }
    let key = "\(index(of: type))/\(name)"
    if let known = enumIndex[key] { return known }
    let values = declared.values.map { ($0.value, $0.id, $0.original ?? $0.id, $0.doc) }
    var small = [String?](repeating: nil, count: 256)
    for value in declared.values where value.value >= 0 && value.value < 256 {
      small[Int(value.value)] = value.original ?? value.id
    }
    enums.append(KsEnumPlan(name: name, values: values, small: small))
    enumIndex[key] = enums.count - 1
    return enums.count - 1
  }

  // MARK: Endianness and encodings, inherited through nesting

  func endianDeclaration(of type: Int) -> (KsyType, KsyEndian)? {
    var scope: KsyType? = types[type]
    while let current = scope {
      if let endian = current.endian { return (current, endian) }
      if current.isFileRoot { return nil }
      scope = current.parent
    }
    return nil
  }

  func bitEndianLittle(of type: Int) -> Bool {
    var scope: KsyType? = types[type]
    while let current = scope {
      if let little = current.bitEndianLittle { return little }
      if current.isFileRoot { return false }
      scope = current.parent
    }
    return false
  }

  func encoding(of type: Int) -> String? {
    var scope: KsyType? = types[type]
    while let current = scope {
      if let encoding = current.encoding { return encoding }
      if current.isFileRoot { return nil }
      scope = current.parent
    }
    return nil
  }

  // MARK: Static types of attributes

  private func parameterType(_ parameter: KsyParameter, in type: Int) throws(SpecLoadError) -> KsType {
    let file = types[type].file
    if let enumName = parameter.enumName {
      guard let found = findEnum(enumName, from: type) else {
        throw error(file, parameter.line, "enum", "no enum '\(enumName)'")
      }
      return .enumeration(found)
    }
    switch parameter.type {
    case "bool": return .bool
    case "str": return .string
    case "bytes": return .bytes
    case "io": return .stream
    case "struct", "any": return .unknown
    case "f4", "f8": return .float
    default:
      if KsPrimitive.integer(parameter.type) != nil || KsPrimitive.bits(parameter.type) != nil {
        return .integer
      }
      if parameter.type.hasSuffix("[]") {
        throw error(file, parameter.line, "type", "array parameters are not supported")
      }
      guard let user = findType(parameter.type, from: type) else {
        throw error(file, parameter.line, "type", "no type '\(parameter.type)'")
      }
      return .user(user)
    }
  }

  /// The type an attribute that reads has (an array of it when repeated).
  private func declaredType(_ attribute: KsyAttribute, in type: Int) throws(SpecLoadError) -> KsType {
    let element = try elementType(attribute, in: type)
    if case .none = attribute.repeatKind { return element }
    return .array(element)
  }

  func elementType(_ attribute: KsyAttribute, in type: Int) throws(SpecLoadError) -> KsType {
    let file = types[type].file
    var enumType: KsType?
    if let enumName = attribute.enumName {
      guard let found = findEnum(enumName, from: type) else {
        throw error(file, attribute.line, "enum", "no enum '\(enumName)' from type \(types[type].name)")
      }
      enumType = .enumeration(found)
    }
    switch attribute.type {
    case .none:
      if enumType != nil { throw error(file, attribute.line, "enum", "an enum needs an integer type") }
      return .bytes
    case .named(let name, let line):
      let base = KsPrimitive.baseName(name)
      if let enumType {
        guard KsPrimitive.integer(base) != nil || KsPrimitive.bits(base) != nil else {
          throw error(file, line, "enum", "an enum needs an integer type, not \(name)")
        }
        return enumType
      }
      if base == "b1" || base == "b1le" || base == "b1be" { return .bool }
      if KsPrimitive.integer(base) != nil || KsPrimitive.bits(base) != nil { return .integer }
      if KsPrimitive.float(base) != nil { return .float }
      if base == "str" || base == "strz" { return .string }
      if base == "bytes" { return .bytes }
      guard let user = findType(base, from: type) else {
        throw error(file, line, "type", "no type '\(base)' from type \(types[type].name)")
      }
      parents[user].insert(type)
      return .user(user)
    case .switched(_, let cases, let line):
      var found: [KsType] = []
      for item in cases {
        let base = KsPrimitive.baseName(item.type)
        if let user = findType(base, from: type), KsPrimitive.integer(base) == nil,
          KsPrimitive.float(base) == nil,
          base != "str", base != "strz", base != "bytes"
        {
          parents[user].insert(type)
          found.append(.user(user))
        } else if KsPrimitive.integer(base) != nil || KsPrimitive.bits(base) != nil {
          found.append(enumType ?? .integer)
        } else if KsPrimitive.float(base) != nil {
          found.append(.float)
        } else if base == "str" || base == "strz" {
          found.append(.string)
        } else if base == "bytes" {
          found.append(.bytes)
        } else {
          throw error(file, line, "cases", "no type '\(base)' from type \(types[type].name)")
        }
      }
      return Self.union(found)
    }
  }

  /// One type for several: the same, every object type, or none.
  static func union(_ all: [KsType]) -> KsType {
    guard let first = all.first else { return .unknown }
    if all.allSatisfy({ $0 == first }) { return first }
    var users: [Int] = []
    for type in all {
      switch type {
      case .user(let index): if !users.contains(index) { users.append(index) }
      case .users(let list): for index in list where !users.contains(index) { users.append(index) }
      default:
        if all.allSatisfy(\.isNumber) { return .float }
        return .unknown
      }
    }
    return users.count == 1 ? .user(users[0]) : .users(users.sorted())
  }

  /// A value instance's type: its expression's, found once (refusing a
  /// value that depends on itself).
  func valueType(_ attribute: KsyAttribute, in type: Int) throws(SpecLoadError) -> KsType {
    guard let slot = self.slot(named: attribute.id, in: type) else { return .unknown }
    if let known = slotTypes[type][slot] { return known }
    guard let value = attribute.value else { return .unknown }
    guard resolving.insert([type, slot]).inserted else {
      throw error(types[type].file, value.line, "value", "'\(attribute.id)' depends on itself")
    }
    defer { resolving.remove([type, slot]) }
    let (_, found) = try KsExpressionCompiler(self, type: type).compile(value, underscore: nil)
    slotTypes[type][slot] = found
    return found
  }

  /// The type of slot `slot` of type `type`, computing a value instance's.
  func slotType(_ type: Int, _ slot: Int) throws(SpecLoadError) -> KsType {
    if let known = slotTypes[type][slot] { return known }
    let declared = types[type]
    let instance = slot - declared.params.count - declared.seq.count
    guard instance >= 0, instance < declared.instances.count else { return .unknown }
    return try valueType(declared.instances[instance], in: type)
  }
}

/// The plan a `.ksy` compiles to: what the interpreter runs, the encoder
/// writes and the dissector generator translates.
final class KsPlan: Sendable {
  let types: [KsTypePlan]
  let enums: [KsEnumPlan]
  let file: String

  init(types: [KsTypePlan], enums: [KsEnumPlan], file: String) {
    self.types = types
    self.enums = enums
    self.file = file
  }

  var root: KsTypePlan { types[0] }
}

/// The primitive type names of the language.
enum KsPrimitive {
  /// `u2le` → `u2le`; a user type's arguments dropped (`foo(1, 2)` → `foo`).
  static func baseName(_ name: String) -> String {
    guard let open = name.firstIndex(of: "(") else { return name.trimmingCharacters(in: .whitespaces) }
    return String(name[..<open]).trimmingCharacters(in: .whitespaces)
  }

  /// `le` or `be` at the end of a type name, taken off (nil: none).
  private static func endianSuffix(_ text: inout Substring) -> Bool? {
    guard text.hasSuffix("le") || text.hasSuffix("be") else { return nil }
    let little = text.hasSuffix("le")
    text = text.dropLast(2)
    return little
  }

  /// `u1` … `s8le`: bytes, signed, and the endian suffix (nil: the default).
  static func integer(_ name: String) -> (bytes: Int, signed: Bool, little: Bool?)? {
    var text = Substring(name)
    guard let first = text.first, first == "u" || first == "s" else { return nil }
    text = text.dropFirst()
    let little = endianSuffix(&text)
    guard let bytes = Int(text), [1, 2, 4, 8].contains(bytes) else { return nil }
    if bytes == 1, little != nil { return nil }
    return (bytes, first == "s", little)
  }

  /// `b1` … `b64`, `b12le`: bits and the bit-endian suffix.
  static func bits(_ name: String) -> (count: Int, little: Bool?)? {
    var text = Substring(name)
    guard text.first == "b" else { return nil }
    text = text.dropFirst()
    let little = endianSuffix(&text)
    guard let count = Int(text), (1...64).contains(count) else { return nil }
    return (count, little)
  }

  static func float(_ name: String) -> (bytes: Int, little: Bool?)? {
    switch name {
    case "f4": (4, nil)
    case "f4le": (4, true)
    case "f4be": (4, false)
    case "f8": (8, nil)
    case "f8le": (8, true)
    case "f8be": (8, false)
    default: nil
    }
  }
}
