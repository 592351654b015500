/// A parsed JSON value that remembers the bytes it came from, so the JSON
/// codecs can give every key and value a byte range in the dissection.
/// Foundation's JSONSerialization and JSONDecoder cannot give ranges, and
/// they accept things these protocols must reject (lone surrogates, very deep
/// nesting), so pktbench parses JSON itself.
public struct JSONValue: Sendable, Hashable {
  public enum Kind: Sendable, Hashable {
    case object([JSONMember])
    case array([JSONValue])
    case string(String)
    /// The number and whether its text had no fraction or exponent.
    case number(Double, isInteger: Bool)
    case bool(Bool)
    case null
  }

  public var kind: Kind
  /// Byte range of the whole value in the input.
  public var range: Range<Int>

  public init(_ kind: Kind, range: Range<Int>) {
    self.kind = kind
    self.range = range
  }

  public var typeName: String {
    switch kind {
    case .object: "object"
    case .array: "array"
    case .string: "string"
    case .number: "number"
    case .bool: "boolean"
    case .null: "null"
    }
  }

  /// The members of an object, in wire order.
  public var members: [JSONMember]? {
    if case .object(let members) = kind { return members }
    return nil
  }

  public var elements: [JSONValue]? {
    if case .array(let elements) = kind { return elements }
    return nil
  }

  public var string: String? {
    if case .string(let s) = kind { return s }
    return nil
  }

  public var number: Double? {
    if case .number(let n, _) = kind { return n }
    return nil
  }

  public var bool: Bool? {
    if case .bool(let b) = kind { return b }
    return nil
  }

  /// The first member with `key` (JSON objects may repeat keys; the first
  /// one wins here, and codecs warn about duplicates).
  public func member(_ key: String) -> JSONMember? {
    members?.first { $0.key == key }
  }

  public subscript(key: String) -> JSONValue? { member(key)?.value }

  /// The value as a `FieldValue`, keeping integers as integers.
  public var fieldValue: FieldValue {
    switch kind {
    case .object(let members): .object(members.map { .init($0.key, $0.value.fieldValue) })
    case .array(let elements): .array(elements.map(\.fieldValue))
    case .string(let s): .string(s)
    case .number(let n, let isInteger):
      isInteger && n.magnitude < 9.0e15 ? .integer(Int64(n)) : .number(n)
    case .bool(let b): .bool(b)
    case .null: .null
    }
  }

  /// The generic dissection of this value: objects and arrays become groups,
  /// scalars leaves, each with its byte range.
  public func dissection(name: String) -> DissectionNode {
    switch kind {
    case .object(let members):
      return DissectionNode(
        group: name, shape: .object, range: range,
        children: members.map { $0.value.dissection(name: $0.key) })
    case .array(let elements):
      return DissectionNode(
        group: name, shape: .array, range: range,
        children: elements.enumerated().map {
          $0.element.dissection(name: DissectionNode.elementName($0.offset))
        })
    default:
      return DissectionNode(name, fieldValue, range: range)
    }
  }
}

public struct JSONMember: Sendable, Hashable {
  public var key: String
  public var keyRange: Range<Int>
  public var value: JSONValue

  public init(key: String, keyRange: Range<Int>, value: JSONValue) {
    self.key = key
    self.keyRange = keyRange
    self.value = value
  }

  /// From the key's opening quote to the value's end.
  public var range: Range<Int> { keyRange.lowerBound..<value.range.upperBound }
}

extension JSONValue {
  /// A tree copy of a tape's value: containers are made at their final
  /// size, the tape knowing their counts.
  public init(_ node: JSONNode) {
    let range = node.range
    switch node.kind {
    case .object:
      var members: [JSONMember] = []
      members.reserveCapacity(node.members.count)
      for member in node.members {
        members.append(
          JSONMember(key: member.key.text, keyRange: member.key.range, value: JSONValue(member.value)))
      }
      self.init(.object(members), range: range)
    case .array:
      var elements: [JSONValue] = []
      elements.reserveCapacity(node.elements.count)
      for element in node.elements { elements.append(JSONValue(element)) }
      self.init(.array(elements), range: range)
    case .string, .key: self.init(.string(node.text), range: range)
    case .number: self.init(.number(node.number ?? 0, isInteger: node.isInteger), range: range)
    case .bool: self.init(.bool(node.bool ?? false), range: range)
    case .null: self.init(.null, range: range)
    }
  }
}
