/// One value (or object key) of a `JSONTape`, read in place: its kind, range,
/// text or number, members and elements. Two words, no reference counting:
/// valid only while its tape, and the bytes the tape parsed, are alive.
/// Foundation's JSONSerialization and JSONDecoder give no byte ranges, and
/// they accept what these protocols must refuse (lone surrogates, very deep
/// nesting), so pktbench parses JSON itself.
public struct JSONNode {
  @usableFromInline unowned(unsafe) let tape: JSONTape
  @usableFromInline let index: Int

  @inlinable
  init(tape: JSONTape, index: Int) {
    self.tape = tape
    self.index = index
  }

  @inlinable var entry: JSONTape.Entry { tape.entries[index] }

  @inlinable public var kind: JSONTape.Kind { entry.kind }

  /// Byte range of the whole value (or key, quotes included) in the input.
  @inlinable public var range: Range<Int> {
    let entry = entry
    return Int(entry.start)..<Int(entry.end)
  }

  public var isNull: Bool { kind == .null }

  public var typeName: String {
    switch kind {
    case .object: "object"
    case .array: "array"
    case .string, .key: "string"
    case .number: "number"
    case .bool: "boolean"
    case .null: "null"
    }
  }

  /// The text of a string or key, made into a `String` now.
  public var string: String? {
    kind == .string ? text : nil
  }

  /// A string's or key's text (empty for other kinds).
  public var text: String {
    let entry = entry
    guard entry.kind == .string || entry.kind == .key else { return "" }
    if entry.text >= 0 { return tape.texts[Int(entry.text)] }
    return String(decoding: innerBytes(entry), as: UTF8.self)
  }

  /// A string's bytes between its quotes when they are its text (no escapes,
  /// all ASCII): read without making a `String`. Nil otherwise.
  public var verbatimBytes: UnsafeRawBufferPointer? {
    let entry = entry
    guard entry.kind == .string, entry.text < 0 else { return nil }
    return innerBytes(entry)
  }

  @inlinable
  func innerBytes(_ entry: JSONTape.Entry) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: tape.bytes[Int(entry.start) + 1..<Int(entry.end) - 1])
  }

  /// Whether this string or key's text is `other`, compared without making
  /// a `String` when its bytes are its text. Most keys differ in length,
  /// which is checked first.
  @inlinable
  public func textEquals(_ other: String) -> Bool {
    let entry = entry
    if entry.text >= 0 { return tape.texts[Int(entry.text)] == other }
    let mine = innerBytes(entry)
    guard other.utf8.count == mine.count else { return false }
    return other.utf8.withContiguousStorageIfAvailable { Self.same(mine, UnsafeRawBufferPointer($0)) }
      ?? (other == text)
  }

  /// Whether two strings or keys have the same text.
  @inlinable
  public func sameText(as other: JSONNode) -> Bool {
    let (mine, theirs) = (entry, other.entry)
    if mine.text < 0, theirs.text < 0 {
      guard mine.end - mine.start == theirs.end - theirs.start else { return false }
      return Self.same(innerBytes(mine), other.innerBytes(theirs))
    }
    return text == other.text
  }

  /// Two runs of bytes of one length: short ones (keys) compared here,
  /// long ones by memcmp.
  @inlinable
  static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count <= 16 else { return a.sameBytes(as: b) }
    for index in 0..<a.count where a[index] != b[index] { return false }
    return true
  }

  public var number: Double? {
    let entry = entry
    return entry.kind == .number ? entry.number : nil
  }

  /// Whether a number's text had no fraction or exponent.
  public var isInteger: Bool {
    let entry = entry
    return entry.kind == .number && entry.flag
  }

  public var bool: Bool? {
    let entry = entry
    return entry.kind == .bool ? entry.flag : nil
  }

  /// The members of an object (empty for other kinds), in wire order.
  public var members: Members { Members(node: self) }

  /// The elements of an array (empty for other kinds).
  public var elements: Elements { Elements(node: self) }

  /// The first member with `key`.
  public func member(_ key: String) -> JSONNode.Member? {
    members.first { $0.key.textEquals(key) }
  }

  public subscript(key: String) -> JSONNode? { member(key)?.value }

  /// The value as a `FieldValue`, keeping integers as integers.
  public var fieldValue: FieldValue {
    switch kind {
    case .object: .object(members.map { .init($0.key.text, $0.value.fieldValue) })
    case .array: .array(elements.map(\.fieldValue))
    case .string, .key: .string(text)
    case .number:
      isInteger && entry.number.magnitude < 9.0e15 ? .integer(Int64(entry.number)) : .number(entry.number)
    case .bool: .bool(entry.flag)
    case .null: .null
    }
  }

  /// The generic dissection of this value: objects and arrays become groups,
  /// scalars leaves, each with its byte range.
  public func dissection(name: String) -> DissectionNode {
    switch kind {
    case .object:
      return DissectionNode(
        group: name, shape: .object, range: range,
        children: members.map { $0.value.dissection(name: $0.key.text) })
    case .array:
      return DissectionNode(
        group: name, shape: .array, range: range,
        children: elements.enumerated().map {
          $0.element.dissection(name: DissectionNode.elementName($0.offset))
        })
    default:
      return DissectionNode(name, fieldValue, range: range)
    }
  }

  /// An object member: its key and value.
  public struct Member {
    public let key: JSONNode
    public let value: JSONNode

    /// From the key's opening quote to the value's end.
    public var range: Range<Int> { key.range.lowerBound..<value.range.upperBound }
  }

  /// An object's members, stepped through the tape.
  public struct Members: Sequence {
    let node: JSONNode

    public var count: Int {
      let entry = node.entry
      return entry.kind == .object ? Int(entry.count) : 0
    }

    public var isEmpty: Bool { count == 0 }

    /// Exact: arrays made from the members are made at their size.
    public var underestimatedCount: Int { count }

    /// The member at `offset` (found by stepping: members are not indexed).
    public subscript(offset: Int) -> Member {
      var members = makeIterator()
      for _ in 0..<offset { _ = members.next() }
      guard let member = members.next() else { preconditionFailure("member \(offset) of \(count)") }
      return member
    }

    public func makeIterator() -> Iterator {
      let entry = node.entry
      let isObject = entry.kind == .object
      return Iterator(tape: node.tape, position: node.index + 1, end: isObject ? Int(entry.next) : 0)
    }

    public struct Iterator: IteratorProtocol {
      unowned(unsafe) let tape: JSONTape
      var position: Int
      let end: Int

      public mutating func next() -> Member? {
        guard position < end else { return nil }
        let key = JSONNode(tape: tape, index: position)
        let value = JSONNode(tape: tape, index: position + 1)
        position = Int(tape.entries[position + 1].next)
        return Member(key: key, value: value)
      }
    }
  }

  /// An array's elements, stepped through the tape.
  public struct Elements: Sequence {
    let node: JSONNode

    public var count: Int {
      let entry = node.entry
      return entry.kind == .array ? Int(entry.count) : 0
    }

    public var isEmpty: Bool { count == 0 }

    /// Exact: arrays made from the elements are made at their size.
    public var underestimatedCount: Int { count }

    /// The element at `offset` (found by stepping: elements are not indexed).
    public subscript(offset: Int) -> JSONNode {
      var elements = makeIterator()
      for _ in 0..<offset { _ = elements.next() }
      guard let element = elements.next() else { preconditionFailure("element \(offset) of \(count)") }
      return element
    }

    public func makeIterator() -> Iterator {
      let entry = node.entry
      let isArray = entry.kind == .array
      return Iterator(tape: node.tape, position: node.index + 1, end: isArray ? Int(entry.next) : 0)
    }

    public struct Iterator: IteratorProtocol {
      unowned(unsafe) let tape: JSONTape
      var position: Int
      let end: Int

      public mutating func next() -> JSONNode? {
        guard position < end else { return nil }
        let element = JSONNode(tape: tape, index: position)
        position = Int(tape.entries[position].next)
        return element
      }
    }
  }
}
