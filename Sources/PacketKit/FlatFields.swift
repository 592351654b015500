/// A clean message's name and fields as scalars, in wire order, held
/// inline: what `FrameCodec.cleanFields` fills so that summary lines and
/// ndjson can write a message without building a dissection tree. A field
/// may be a group of the scalars after it (a binary header): one level.
///
/// Names, units and text values are static strings (the codec's own
/// literals), so filling one allocates nothing. `nodes` gives the same
/// fields as the dissection tree `decode` returns; the fuzzer holds the two
/// equal on every input.
@frozen
public struct FlatFields: Sendable {
  @frozen
  public enum Value: Sendable {
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    /// A string value from the codec's vocabulary (plain ASCII, no quotes
    /// or backslashes: it is written without escaping).
    case text(StaticString)
    /// An enumeration's case name (from the codec's vocabulary, as `text`)
    /// and raw value.
    case enumeration(StaticString, raw: Int64)
    /// A group whose members are the `count` fields that follow it, all
    /// scalars (groups do not nest): a tree node with children.
    case group(count: Int)
  }

  @frozen
  public struct Field: Sendable {
    public var name: StaticString
    public var value: Value
    /// "" when the field has no unit.
    public var unit: StaticString
    /// Byte range within the payload.
    public var range: Range<Int>
    /// Whether the payload's bytes at `range` are this value exactly as
    /// `JSONWriter` writes it (an `integer` or a `number`): a writer that
    /// holds the payload copies them rather than formatting the value
    /// again. A JSON codec says so when the text is the writer's own form
    /// (`JSONNumber.isWritersForm`); the fuzzer holds it to that.
    public var verbatim: Bool

    @inlinable
    public init(
      _ name: StaticString, _ value: Value, unit: StaticString = "", range: Range<Int>, verbatim: Bool = false
    ) {
      self.name = name
      self.value = value
      self.unit = unit
      self.range = range
      self.verbatim = verbatim
    }

    /// The payload text a `verbatim` field stands for; nil for any other
    /// field, or when its range is not within `payload`.
    @inlinable
    public func verbatimText(in payload: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
      guard verbatim, range.lowerBound >= 0, range.upperBound <= payload.count else { return nil }
      return UnsafeRawBufferPointer(rebasing: payload[range])
    }

    /// The value as the dissection tree holds it.
    public var fieldValue: FieldValue {
      switch value {
      case .integer(let v): .integer(v)
      case .unsigned(let v): .unsigned(v)
      case .number(let v): .number(v)
      case .text(let text): .string(text.description)
      case .enumeration(let name, let raw): .enumeration(name: name.description, raw: raw)
      case .group: .null
      }
    }

    /// The number of members when this field is a group; nil for a scalar.
    @inlinable
    public var members: Int? {
      if case .group(let count) = value { return count }
      return nil
    }

    public var hasUnit: Bool { unit.utf8CodeUnitCount > 0 }

    /// The indices of this group's members when it stands at `index` among
    /// `count` fields: those after it, as many as it claims and there are
    /// (none for a scalar). The one rule for which fields a group holds.
    @inlinable
    public func memberIndices(at index: Int, of count: Int) -> Range<Int> {
      guard case .group(let members) = value else { return index + 1..<index + 1 }
      return index + 1..<max(index + 1, min(index + 1 + members, count))
    }
  }

  public static let capacity = 12

  /// The message kind's name in docs/protocols.md.
  public var message: StaticString = ""
  @inlinable public var count: Int { used }
  @usableFromInline
  var used = 0
  @usableFromInline
  var storage: (Field, Field, Field, Field, Field, Field, Field, Field, Field, Field, Field, Field)

  @usableFromInline
  static let unused = Field("", .integer(0), range: 0..<0)

  public init() {
    let unused = Self.unused
    storage = (unused, unused, unused, unused, unused, unused, unused, unused, unused, unused, unused, unused)
  }

  /// Adds a field; false (and nothing added) when all `capacity` are used.
  @discardableResult
  @inlinable
  public mutating func append(_ field: Field) -> Bool {
    switch used {
    case 0: storage.0 = field
    case 1: storage.1 = field
    case 2: storage.2 = field
    case 3: storage.3 = field
    case 4: storage.4 = field
    case 5: storage.5 = field
    case 6: storage.6 = field
    case 7: storage.7 = field
    case 8: storage.8 = field
    case 9: storage.9 = field
    case 10: storage.10 = field
    case 11: storage.11 = field
    default: return false
    }
    used += 1
    return true
  }

  @inlinable
  public mutating func removeAll() {
    used = 0
    message = ""
  }

  @inlinable
  public subscript(index: Int) -> Field {
    precondition(index >= 0 && index < count, "flat field \(index) of \(count)")
    return switch index {
    case 0: storage.0
    case 1: storage.1
    case 2: storage.2
    case 3: storage.3
    case 4: storage.4
    case 5: storage.5
    case 6: storage.6
    case 7: storage.7
    case 8: storage.8
    case 9: storage.9
    case 10: storage.10
    default: storage.11
    }
  }

  /// The fields of the value at `pointer`, read in place: no field is
  /// copied out (a `Field` is 64 bytes, and the subscript's switch copies
  /// one per read). The buffer is valid while the value at `pointer` is
  /// neither changed nor deinitialized.
  @inlinable
  public static func fields(at pointer: UnsafePointer<FlatFields>) -> UnsafeBufferPointer<Field> {
    // The storage is a homogeneous tuple: its elements lie one stride apart.
    UnsafeBufferPointer(
      start: UnsafeRawPointer(pointer).advanced(by: storageOffset).assumingMemoryBound(to: Field.self),
      count: pointer.pointee.used)
  }

  @usableFromInline
  static let storageOffset: Int = {
    guard let offset = MemoryLayout<FlatFields>.offset(of: \FlatFields.storage) else {
      preconditionFailure("FlatFields.storage is a stored property: it has an offset")
    }
    return offset
  }()

  /// The fields as a dissection tree: scalars as leaves, a group as a node
  /// whose children are its members. (A group claiming more members than
  /// follow it gets those that do; one among members stays empty. Either
  /// is a codec's mistake, and its tree then differs from `decode`'s, which
  /// the fuzzer reports.)
  public var nodes: [DissectionNode] {
    // At most `count` nodes: one allocation, where growing took three.
    var nodes: [DissectionNode] = []
    nodes.reserveCapacity(count)
    var index = 0
    while index < count {
      let field = self[index]
      guard field.members != nil else {
        nodes.append(Self.leaf(field))
        index += 1
        continue
      }
      let members = field.memberIndices(at: index, of: count)
      var children: [DissectionNode] = []
      children.reserveCapacity(members.count)
      for memberIndex in members {
        let member = self[memberIndex]
        children.append(
          member.members == nil
            ? Self.leaf(member)
            : DissectionNode(group: member.name.description, range: member.range, children: []))
      }
      nodes.append(DissectionNode(group: field.name.description, range: field.range, children: children))
      index = members.upperBound
    }
    return nodes
  }

  /// Whether `tree` is exactly `nodes`: the same names, values, units,
  /// ranges and shapes, in order (names and text compared byte for byte).
  /// Compared in place: the fuzzer asks on every clean input, and building
  /// `nodes` to compare allocated a second tree each time.
  public func matches(_ tree: [DissectionNode]) -> Bool {
    var index = 0
    var position = 0
    while index < count {
      let field = self[index]
      guard position < tree.count else { return false }
      let node = tree[position]
      position += 1
      guard field.members != nil else {
        if !Self.leaf(field, matches: node) { return false }
        index += 1
        continue
      }
      let members = field.memberIndices(at: index, of: count)
      guard Self.group(field, matches: node), node.children.count == members.count else { return false }
      for (child, memberIndex) in zip(node.children, members) {
        let member = self[memberIndex]
        let same =
          member.members == nil
          ? Self.leaf(member, matches: child) : Self.group(member, matches: child) && child.children.isEmpty
        if !same { return false }
      }
      index = members.upperBound
    }
    return position == tree.count
  }

  /// The first field marked `verbatim` whose text in `payload` is not
  /// what `JSONWriter` writes for its value, with both texts; nil when
  /// every such field keeps the promise. Compared in place: the fuzzer
  /// asks on every clean input, and the texts are made only for a failure.
  public func falseVerbatim(in payload: UnsafeRawBufferPointer) -> (
    name: String, text: String, written: String
  )? {
    for index in 0..<count where self[index].verbatim {
      let field = self[index]
      var writer = JSONWriter(capacity: 32)
      switch field.value {
      case .integer(let v): writer.integer(v)
      case .unsigned(let v): writer.integer(v)
      case .number(let v): writer.number(v)
      default: break
      }
      let text = field.verbatimText(in: payload)
      guard let text, writer.withUnsafeBytes({ $0.sameBytes(as: text) }) else {
        return (
          field.name.description, text.map { String(decoding: $0, as: UTF8.self) } ?? "(outside the payload)",
          writer.text
        )
      }
    }
    return nil
  }

  /// A group's node: named, no value or unit, its range (children apart).
  private static func group(_ field: Field, matches node: DissectionNode) -> Bool {
    node.shape == .object && node.value == .null && node.unit == nil && node.range == field.range
      && same(node.name, field.name)
  }

  private static func leaf(_ field: Field, matches node: DissectionNode) -> Bool {
    guard node.shape == .leaf, node.children.isEmpty, node.range == field.range, same(node.name, field.name)
    else { return false }
    switch (node.unit, field.hasUnit) {
    case (nil, false): break
    case (let unit?, true) where unit == FieldUnit(field.unit): break
    default: return false
    }
    switch (field.value, node.value) {
    case (.integer(let a), .integer(let b)): return a == b
    case (.unsigned(let a), .unsigned(let b)): return a == b
    case (.number(let a), .number(let b)): return a == b
    case (.text(let a), .string(let b)): return same(b, a)
    case (.enumeration(let a, let rawA), .enumeration(let b, let rawB)): return rawA == rawB && same(b, a)
    default: return false
    }
  }

  /// Whether `string` is `text`'s bytes, compared in place without building
  /// a String of `text` or stepping a UTF-8 view.
  private static func same(_ string: String, _ text: StaticString) -> Bool {
    text.withUTF8Buffer { literal in
      let expected = UnsafeRawBufferPointer(literal)
      return string.utf8.withContiguousStorageIfAvailable {
        UnsafeRawBufferPointer($0).sameBytes(as: expected)
      }
        ?? string.utf8.elementsEqual(literal)
    }
  }

  private static func leaf(_ field: Field) -> DissectionNode {
    DissectionNode(
      field.name.description, field.fieldValue, unit: field.hasUnit ? FieldUnit(field.unit) : nil,
      range: field.range)
  }
}
