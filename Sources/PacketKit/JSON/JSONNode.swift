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
  /// A short run is compared as two overlapping words (the first and last
  /// eight, four or one bytes, and the middle one of three): a byte loop
  /// was half of each key lookup.
  @inlinable
  static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    let count = a.count
    guard count <= 16, count == b.count else { return a.sameBytes(as: b) }
    guard count > 0, let x = a.baseAddress, let y = b.baseAddress else { return true }
    if count >= 8 {
      return x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self)
        && x.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
          == y.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }
    if count >= 4 {
      return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
        && x.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
          == y.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
    }
    return x.load(as: UInt8.self) == y.load(as: UInt8.self)
      && x.load(fromByteOffset: count >> 1, as: UInt8.self)
        == y.load(fromByteOffset: count >> 1, as: UInt8.self)
      && x.load(fromByteOffset: count - 1, as: UInt8.self)
        == y.load(fromByteOffset: count - 1, as: UInt8.self)
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

  /// The member of this object at `position` (a `Member.position` of its
  /// own members).
  @inlinable
  public func member(at position: Int) -> Member {
    precondition(
      position > index && position < Int(entry.next), "member \(position) is not in object \(index)")
    return Member.read(tape, at: position).child
  }

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
  public struct Member: JSONChild {
    public let key: JSONNode
    public let value: JSONNode

    @inlinable init(key: JSONNode, value: JSONNode) {
      self.key = key
      self.value = value
    }

    /// From the key's opening quote to the value's end.
    public var range: Range<Int> { key.range.lowerBound..<value.range.upperBound }

    /// Where the member is in its tape: `JSONNode.member(at:)` gives it back
    /// without comparing keys.
    @inlinable public var position: Int { key.index }

    public static var container: JSONTape.Kind { .object }

    @inlinable
    public static func read(_ tape: JSONTape, at index: Int) -> (child: Member, next: Int) {
      let member = Member(
        key: JSONNode(tape: tape, index: index), value: JSONNode(tape: tape, index: index + 1))
      return (member, Int(tape.entries[index + 1].next))
    }
  }

  /// An object's members.
  public typealias Members = Children<Member>

  /// An array's elements.
  public typealias Elements = Children<JSONNode>

  /// What a container holds, stepped through the tape: nothing unless the
  /// node is a container of `Child.container`'s kind.
  public struct Children<Child: JSONChild>: Sequence {
    @usableFromInline let node: JSONNode

    @inlinable init(node: JSONNode) { self.node = node }

    @inlinable public var count: Int {
      let entry = node.entry
      return entry.kind == Child.container ? Int(entry.count) : 0
    }

    @inlinable public var isEmpty: Bool { count == 0 }

    /// Exact: arrays made from the children are made at their size.
    @inlinable public var underestimatedCount: Int { count }

    /// The child at `offset` (found by stepping: children are not indexed).
    @inlinable
    public subscript(offset: Int) -> Child {
      var children = makeIterator()
      for _ in 0..<offset { _ = children.next() }
      guard let child = children.next() else { preconditionFailure("child \(offset) of \(count)") }
      return child
    }

    @inlinable
    public func makeIterator() -> Iterator {
      let entry = node.entry
      let end = entry.kind == Child.container ? Int(entry.next) : 0
      return Iterator(tape: node.tape, position: node.index + 1, end: end)
    }

    public struct Iterator: IteratorProtocol {
      @usableFromInline unowned(unsafe) let tape: JSONTape
      @usableFromInline var position: Int
      @usableFromInline let end: Int

      @inlinable init(tape: JSONTape, position: Int, end: Int) {
        self.tape = tape
        self.position = position
        self.end = end
      }

      @inlinable
      public mutating func next() -> Child? {
        guard position < end else { return nil }
        let (child, next) = Child.read(tape, at: position)
        position = next
        return child
      }
    }
  }
}

extension JSONNode: JSONChild {
  public static var container: JSONTape.Kind { .array }

  @inlinable
  public static func read(_ tape: JSONTape, at index: Int) -> (child: JSONNode, next: Int) {
    (JSONNode(tape: tape, index: index), Int(tape.entries[index].next))
  }
}

/// One child of a JSON container: an object's member (a key entry, then its
/// value's entries) or an array's element.
public protocol JSONChild {
  /// The kind of container that holds this kind of child.
  static var container: JSONTape.Kind { get }
  /// The child whose first entry is `index`, and the entry after it.
  static func read(_ tape: JSONTape, at index: Int) -> (child: Self, next: Int)
}
