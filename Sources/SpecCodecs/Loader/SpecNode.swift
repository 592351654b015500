import Yams

/// A node of a spec file's YAML (or JSON) tree with its line, read through
/// accessors that throw `SpecLoadError`s naming the line and the key.
struct SpecNode {
  let node: Node
  let file: String
  /// The key this node is the value of, for errors.
  let key: String?
  /// What reading the whole file may cost: shared by every node of it.
  let budget: SpecBudget

  init(_ node: Node, file: String, key: String?, budget: SpecBudget) {
    self.node = node
    self.file = file
    self.key = key
    self.budget = budget
  }

  var line: Int { node.mark?.line ?? 1 }

  func error(_ text: String, key: String? = nil) -> SpecLoadError {
    SpecLoadError(file: file, line: line, key: key ?? self.key, text: text)
  }

  /// What the node is, for "expected …, found …".
  var found: String {
    switch node {
    case .scalar(let scalar): return scalar.string.isEmpty ? "nothing" : "'\(scalar.string)'"
    case .mapping: return "a mapping"
    case .sequence: return "a list"
    case .alias: return "an alias"
    }
  }

  // MARK: Scalars

  var scalar: String? {
    if case .scalar(let scalar) = node { return scalar.string }
    return nil
  }

  /// Whether the scalar was written in quotes (text, not a number).
  var isQuoted: Bool {
    if case .scalar(let scalar) = node {
      return scalar.style == .singleQuoted || scalar.style == .doubleQuoted
    }
    return false
  }

  func string() throws(SpecLoadError) -> String {
    guard let scalar else { throw error("expected text, found \(found)") }
    return scalar
  }

  /// A whole number: decimal, `0x` hex, `0b` binary or `0o` octal, `_` allowed.
  func integer() throws(SpecLoadError) -> Int64 {
    guard let scalar, let value = Self.parseInteger(scalar) else {
      throw error("expected a whole number, found \(found)")
    }
    return value
  }

  func integer(in range: ClosedRange<Int64>, what: String) throws(SpecLoadError) -> Int64 {
    let value = try integer()
    guard range.contains(value) else {
      throw error("expected \(what) \(range.lowerBound)…\(range.upperBound), found \(value)")
    }
    return value
  }

  func number() throws(SpecLoadError) -> Double {
    guard let scalar else { throw error("expected a number, found \(found)") }
    if let integer = Self.parseInteger(scalar) { return Double(integer) }
    guard let value = Double(scalar.replacingOccurrences(of: "_", with: "")), value.isFinite else {
      throw error("expected a number, found \(found)")
    }
    return value
  }

  func bool() throws(SpecLoadError) -> Bool {
    switch scalar?.lowercased() {
    case "true", "yes", "on": return true
    case "false", "no", "off": return false
    default: throw error("expected true or false, found \(found)")
    }
  }

  /// One of `choices`; the error lists them.
  func choice(_ choices: [String]) throws(SpecLoadError) -> String {
    let value = try string()
    guard choices.contains(value) else {
      throw error("expected \(Self.alternatives(choices)), found '\(value)'")
    }
    return value
  }

  static func alternatives(_ choices: [String]) -> String {
    guard choices.count > 1, let last = choices.last else { return choices.first ?? "" }
    return choices.dropLast().joined(separator: ", ") + " or " + last
  }

  /// A whole number of up to 64 bits, unsigned (a CRC's parameters).
  static func parseUnsigned(_ text: String) -> UInt64? {
    let lower = text.replacingOccurrences(of: "_", with: "").lowercased()
    if lower.hasPrefix("0x") { return UInt64(lower.dropFirst(2), radix: 16) }
    if lower.hasPrefix("0b") { return UInt64(lower.dropFirst(2), radix: 2) }
    if lower.hasPrefix("0o") { return UInt64(lower.dropFirst(2), radix: 8) }
    return UInt64(lower)
  }

  /// A node of no content, for errors about an empty mapping.
  static func placeholder(_ file: String) -> SpecNode {
    SpecNode(.scalar(.init("")), file: file, key: nil, budget: SpecBudget())
  }

  static func parseInteger(_ text: String) -> Int64? {
    var text = text.replacingOccurrences(of: "_", with: "")
    var negative = false
    if text.hasPrefix("-") {
      negative = true
      text.removeFirst()
    } else if text.hasPrefix("+") {
      text.removeFirst()
    }
    let lower = text.lowercased()
    let magnitude: UInt64?
    if lower.hasPrefix("0x") {
      magnitude = UInt64(lower.dropFirst(2), radix: 16)
    } else if lower.hasPrefix("0b") {
      magnitude = UInt64(lower.dropFirst(2), radix: 2)
    } else if lower.hasPrefix("0o") {
      magnitude = UInt64(lower.dropFirst(2), radix: 8)
    } else if !lower.isEmpty, lower.allSatisfy(\.isNumber) {
      magnitude = UInt64(lower)
    } else {
      magnitude = nil
    }
    guard let magnitude else { return nil }
    if negative {
      return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil
    }
    return Int64(exactly: magnitude)
  }

  // MARK: Containers

  /// The list's items (a single scalar counts as a list of one).
  func list() throws(SpecLoadError) -> [SpecNode] {
    switch node {
    case .sequence(let sequence):
      try budget.charge(sequence.count, at: self)
      return sequence.map { SpecNode($0, file: file, key: key, budget: budget) }
    case .scalar: return [self]
    default: throw error("expected a list, found \(found)")
    }
  }

  /// The mapping's pairs in the file's order.
  func pairs() throws(SpecLoadError) -> [(key: String, value: SpecNode)] {
    guard case .mapping(let mapping) = node else { throw error("expected a mapping, found \(found)") }
    try budget.charge(mapping.count, at: self)
    var pairs: [(key: String, value: SpecNode)] = []
    pairs.reserveCapacity(mapping.count)
    for (keyNode, value) in mapping {
      let name = keyNode.string ?? ""
      pairs.append((name, SpecNode(value, file: file, key: name, budget: budget)))
    }
    return pairs
  }

  var isMapping: Bool {
    if case .mapping = node { return true }
    return false
  }

  var isSequence: Bool {
    if case .sequence = node { return true }
    return false
  }

  /// The mapping as keyed values, refusing keys outside `allowed`.
  func object(allowing allowed: [String]) throws(SpecLoadError) -> SpecObject {
    let pairs = try pairs()
    for pair in pairs where !allowed.contains(pair.key) {
      throw SpecLoadError(
        file: file, line: pair.value.line, key: pair.key,
        text: "unknown key; expected one of \(allowed.joined(separator: ", "))")
    }
    return SpecObject(node: self, pairs: pairs)
  }
}

/// A mapping whose keys were checked, read by key.
struct SpecObject {
  let node: SpecNode
  let pairs: [(key: String, value: SpecNode)]
  /// Keys by position, for a mapping too long to search key by key.
  private let index: [String: Int]?

  init(node: SpecNode, pairs: [(key: String, value: SpecNode)]) {
    self.node = node
    self.pairs = pairs
    index =
      pairs.count > 16
      ? Dictionary(pairs.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a }) : nil
  }

  var line: Int { node.line }

  subscript(key: String) -> SpecNode? {
    if let index { return index[key].map { pairs[$0].value } }
    return pairs.first { $0.key == key }?.value
  }

  func has(_ key: String) -> Bool { self[key] != nil }

  func required(_ key: String) throws(SpecLoadError) -> SpecNode {
    guard let value = self[key] else {
      throw SpecLoadError(file: node.file, line: node.line, key: key, text: "missing")
    }
    return value
  }

  func string(_ key: String) throws(SpecLoadError) -> String? {
    try self[key]?.string()
  }

  func strings(_ key: String) throws(SpecLoadError) -> [String] {
    guard let value = self[key] else { return [] }
    var strings: [String] = []
    for item in try value.list() { strings.append(try item.string()) }
    return strings
  }
}

/// What reading one spec file may cost, counted in list items and mapping
/// entries read: an alias bomb (a list of aliases of lists of aliases …)
/// reads as exponentially many nodes, and is refused once it passes the
/// budget instead of growing without bound.
final class SpecBudget {
  static let nodes = 30_000
  private var left = SpecBudget.nodes

  func charge(_ count: Int, at node: SpecNode) throws(SpecLoadError) {
    left -= count
    guard left >= 0 else {
      throw node.error(
        "the file reads as more than \(Self.nodes) entries (aliases that repeat aliases?); refused")
    }
  }
}
