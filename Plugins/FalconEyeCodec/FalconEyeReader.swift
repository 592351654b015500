import PacketKit

/// Reads the inner JSON of one message: checks types, names every error by
/// its key path (`payload.intrinsics.fx`) and wire offset, collects
/// warnings, and builds dissection nodes whose ranges lie in the wire bytes.
struct FalconEyeReader {
  let map: FalconEyeWireMap
  /// "payload" inside an envelope, "" for a bare object.
  let root: FalconEyeKeyPath
  var diagnostics: [Diagnostic] = []

  init(map: FalconEyeWireMap, root: FalconEyeKeyPath) {
    self.map = map
    self.root = root
  }

  func wire(_ range: Range<Int>) -> Range<Int> { map.wire(range) }

  mutating func warn(_ code: String, _ text: String, _ value: JSONNode) {
    diagnostics.append(.warning(code, text, range: wire(value.range)))
  }

  /// Opens an object, warning about repeated keys and keys the app's struct
  /// does not have (Swift's JSONDecoder ignores those).
  ///
  /// The object's few keys are compared in place, not hashed into a
  /// dictionary per object; an object of more than `FalconEyeObject.scanLimit` members (only
  /// unknown keys make one so large) finds its repeated keys with a set.
  mutating func object(_ value: JSONNode, at path: FalconEyeKeyPath, known: [String]) throws(DecodeError)
    -> FalconEyeObject
  {
    guard value.kind == .object else { throw wrongType(value, at: path.description, expected: "object") }
    var object = FalconEyeObject(value: value, path: path, map: map, known: known)
    let members = value.members
    let large = members.count > FalconEyeObject.scanLimit
    var seen: Set<String> = []  // empty unless large: no allocation
    // Which known keys were seen: a known key repeats when its bit is set.
    var seenKnown: UInt64 = 0
    var index = 0
    for member in members {
      defer { index += 1 }
      let key = member.key
      // A canonical message has the known keys in order: the key at
      // `index` is tried first.
      let knownIndex =
        index < known.count && key.textEquals(known[index]) ? index : known.firstIndex(where: key.textEquals)
      let repeated: Bool
      if let knownIndex, knownIndex < 64 {
        repeated = seenKnown & 1 << knownIndex != 0
        seenKnown |= 1 << knownIndex
        if !repeated { object.found(knownIndex, at: member.position) }
      } else {
        repeated =
          large
          ? !seen.insert(key.text).inserted
          : members.prefix(index).contains { $0.key.sameText(as: key) }
      }
      if repeated {
        warn(
          "duplicate-key",
          "\(path.appending(Excerpt.short(key.text))) appears more than once; pktbench reads the first, "
            + "other decoders may read the last",
          member.value)
        continue
      }
      if knownIndex == nil {
        let name = key.text
        warn(
          "unknown-key",
          "\(path.appending(Excerpt.short(name))) is not a field of this message; the app ignores it",
          member.value)
        object.add(map.mapped(member.value.dissection(name: name)))
      }
    }
    return object
  }

  // MARK: Values
  //
  // A value's key path is named only when it is wrong: the readers take it
  // as an autoclosure, so a pose's sixteen cells and every joint's axes do
  // not each build "payload.poses[0].joints[3].position[2]" to discard it.

  func string(_ value: JSONNode, at path: @autoclosure () -> String) throws(DecodeError) -> String {
    guard let string = value.string else { throw wrongType(value, at: path(), expected: "string") }
    return string
  }

  func number(_ value: JSONNode, at path: @autoclosure () -> String) throws(DecodeError) -> Double {
    guard let number = value.number else { throw wrongType(value, at: path(), expected: "number") }
    return number
  }

  /// A whole number (Swift's `Int`); `1920.0` is accepted as JSONDecoder does.
  func integer(_ value: JSONNode, at path: @autoclosure () -> String) throws(DecodeError) -> Int {
    guard let number = value.number, number.rounded() == number, let exact = Int(exactly: number)
    else { throw wrongType(value, at: path(), expected: "integer") }
    return exact
  }

  func bool(_ value: JSONNode, at path: @autoclosure () -> String) throws(DecodeError) -> Bool {
    guard let bool = value.bool else { throw wrongType(value, at: path(), expected: "boolean") }
    return bool
  }

  func array(_ value: JSONNode, at path: @autoclosure () -> String, limit: Int) throws(DecodeError)
    -> JSONNode.Elements
  {
    guard value.kind == .array else { throw wrongType(value, at: path(), expected: "array") }
    let elements = value.elements
    guard elements.count <= limit else {
      let (path, count) = (path(), elements.count)
      throw DecodeError(code: "too-many", offset: map.wire(offset: value.range.lowerBound), keyPath: path) {
        .init(
          "\(path) has \(count) elements; pktbench reads at most \(limit)",
          expected: "at most \(limit)", found: String(count))
      }
    }
    return elements
  }

  func wrongType(_ value: JSONNode, at path: String, expected: String) -> DecodeError {
    let offset = map.wire(offset: value.range.lowerBound)
    let found = expected == "integer" && value.number != nil ? "fractional number" : value.typeName
    return DecodeError(code: "wrong-type", offset: offset, keyPath: path) {
      .init(
        "\(path) at offset \(offset) is a \(found); expected a \(expected)", expected: expected, found: found)
    }
  }

  func leaf(_ name: String, _ field: FieldValue, _ value: JSONNode, unit: FieldUnit? = nil)
    -> DissectionNode
  {
    DissectionNode(name, field, unit: unit, range: wire(value.range))
  }

  func group(
    _ name: String, shape: DissectionNode.Shape, _ value: JSONNode, _ children: [DissectionNode]
  ) -> DissectionNode {
    DissectionNode(group: name, shape: shape, range: wire(value.range), children: children)
  }
}

/// One JSON object being read: its members and the nodes built so far.
struct FalconEyeObject {
  /// Objects with more members than this find repeated keys with a set
  /// rather than by comparing each key with those before it.
  static let scanLimit = 16

  let value: JSONNode
  let path: FalconEyeKeyPath
  let map: FalconEyeWireMap
  /// The nodes added.
  private var added: [DissectionNode] = []
  /// The keys the message's type has, and where `FalconEyeReader.object`
  /// found the first member of each of the first `slotCount` (-1: absent).
  /// A reader asks for a known key by name: it is matched against `known`
  /// (the same literal: one word compared, the next one in order tried
  /// first), not against the JSON's keys a second time.
  private let known: [String]
  private var slots: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (
    -1, -1, -1, -1, -1, -1, -1, -1
  )
  private static let slotCount = 8
  private var nextKnown = 0

  /// Room for a node per known key is made at once rather than as each
  /// is added.
  init(value: JSONNode, path: FalconEyeKeyPath, map: FalconEyeWireMap, known: [String]) {
    self.value = value
    self.path = path
    self.map = map
    self.known = known
    added.reserveCapacity(known.count)
  }

  /// Records that known key `index`'s first member is at `position`.
  mutating func found(_ index: Int, at position: Int) {
    guard index < Self.slotCount else { return }
    withUnsafeMutableBytes(of: &slots) {
      $0.storeBytes(of: Int32(truncatingIfNeeded: position), toByteOffset: index * 4, as: Int32.self)
    }
  }

  /// The first member named `key` (a key's first member is the one read):
  /// from its slot (every FalconEye object has at most six known keys), else
  /// by comparing the object's keys.
  private mutating func member(_ key: String) -> JSONNode.Member? {
    if let index = knownIndex(key), index < Self.slotCount {
      let position = withUnsafeBytes(of: slots) { $0.load(fromByteOffset: index * 4, as: Int32.self) }
      return position < 0 ? nil : value.member(at: Int(position))
    }
    return value.member(key)
  }

  /// `key`'s index in `known`: readers ask in the order the keys are
  /// declared, so the one after the last asked for is tried first.
  private mutating func knownIndex(_ key: String) -> Int? {
    let index =
      nextKnown < known.count && known[nextKnown] == key ? nextKnown : known.firstIndex(of: key)
    if let index { nextKnown = index + 1 }
    return index
  }

  /// The nodes in the order their values appear on the wire: as added when
  /// the keys came in the order they are read (a canonical message), else
  /// sorted by where each starts (a stable sort, so equal starts keep their
  /// order). Each node's range is its value's, moved to the wire, and the
  /// move keeps the order of values: two members' values start at least
  /// five bytes apart (`,"":`), so never in one base64 group of three.
  var nodes: [DissectionNode] {
    let inOrder = added.withUnsafeBufferPointer { added in
      added.indices.dropFirst().allSatisfy { added[$0 - 1].range.lowerBound <= added[$0].range.lowerBound }
    }
    if inOrder { return added }
    return added.indices.sorted { (added[$0].range.lowerBound, $0) < (added[$1].range.lowerBound, $1) }
      .map { added[$0] }
  }

  /// Adds a member's node (its range the member's value on the wire).
  mutating func add(_ node: DissectionNode) {
    added.append(node)
  }

  /// The text of member `key`'s path, for a diagnostic.
  func keyPath(_ key: String) -> String { path.appending(key) }

  /// The path of member `key`, for the values nested in it.
  func path(_ key: StaticString) -> FalconEyeKeyPath { path.appending(key) }

  /// A required member; missing ones are errors at the object's offset.
  mutating func required(_ key: String) throws(DecodeError) -> JSONNode {
    guard let member = member(key) else { throw missing(key) }
    return member.value
  }

  /// An optional member; JSON `null` counts as absent, as for JSONDecoder.
  mutating func optional(_ key: String) -> JSONNode? {
    guard let member = member(key), !member.value.isNull else { return nil }
    return member.value
  }

  private func missing(_ key: String) -> DecodeError {
    let offset = map.wire(offset: value.range.lowerBound)
    let present = value.members.map(\.key.text)
    let found = present.isEmpty ? "no keys" : "keys " + present.joined(separator: ", ")
    let path = path.description
    return DecodeError(code: "missing-key", offset: offset, keyPath: keyPath(key)) {
      .init(
        "\(path.isEmpty ? "the object" : path) at offset \(offset) has no \"\(key)\"", expected: key,
        found: found)
    }
  }

  // Required scalars, each adding its leaf node.

  mutating func string(_ key: String, _ reader: FalconEyeReader) throws(DecodeError) -> String {
    let json = try required(key)
    let string = try reader.string(json, at: keyPath(key))
    add(reader.leaf(key, .string(string), json))
    return string
  }

  mutating func optionalString(_ key: String, _ reader: FalconEyeReader) throws(DecodeError)
    -> String?
  {
    guard let json = optional(key) else { return nil }
    let string = try reader.string(json, at: keyPath(key))
    add(reader.leaf(key, .string(string), json))
    return string
  }

  mutating func number(_ key: String, _ reader: FalconEyeReader, unit: FieldUnit? = nil)
    throws(DecodeError) -> Double
  {
    let json = try required(key)
    let number = try reader.number(json, at: keyPath(key))
    add(reader.leaf(key, json.fieldValue, json, unit: unit))
    return number
  }

  mutating func integer(_ key: String, _ reader: FalconEyeReader, unit: FieldUnit? = nil)
    throws(DecodeError) -> Int
  {
    let json = try required(key)
    let integer = try reader.integer(json, at: keyPath(key))
    add(reader.leaf(key, .integer(Int64(integer)), json, unit: unit))
    return integer
  }

  mutating func bool(_ key: String, _ reader: FalconEyeReader) throws(DecodeError) -> Bool {
    let json = try required(key)
    let bool = try reader.bool(json, at: keyPath(key))
    add(reader.leaf(key, .bool(bool), json))
    return bool
  }

  mutating func optionalBool(_ key: String, _ reader: FalconEyeReader) throws(DecodeError) -> Bool? {
    guard let json = optional(key) else { return nil }
    let bool = try reader.bool(json, at: keyPath(key))
    add(reader.leaf(key, .bool(bool), json))
    return bool
  }
}

extension FalconEyeWireMap {
  /// A generic dissection with every range moved to the wire.
  func mapped(_ node: DissectionNode) -> DissectionNode {
    var node = node
    node.range = wire(node.range)
    node.children = node.children.map(mapped)
    return node
  }
}
