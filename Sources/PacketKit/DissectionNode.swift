/// One field of a decoded message and the bytes it came from. The dissection
/// tree drives the tree view, the hex view's field marks and the `fields`
/// object of JSON output, so every node carries its byte range in the input.
public struct DissectionNode: Sendable, Hashable {
  public enum Shape: Sendable, Hashable {
    /// A single value (`value` is set).
    case leaf
    /// A JSON object or a group of header fields: children are named.
    case object
    /// A JSON array: children are its elements, in order.
    case array
  }

  public var name: String
  public var value: FieldValue
  public var unit: FieldUnit?
  /// Byte range within the decoded payload.
  public var range: Range<Int>
  public var shape: Shape
  public var children: [DissectionNode]

  // Inlinable, so a codec builds its nodes in place: through a call, each
  // node's name and value were copied (retained) into it. (And a node keeps
  // at most three reference-counted properties — name, value, children —
  // or every node built is copied once more: see FieldUnit.)
  @inlinable
  public init(
    _ name: String, _ value: FieldValue, unit: FieldUnit? = nil, range: Range<Int>
  ) {
    self.name = name
    self.value = value
    self.unit = unit
    self.range = range
    self.shape = .leaf
    self.children = []
  }

  @inlinable
  public init(
    group name: String, shape: Shape = .object, range: Range<Int>, children: [DissectionNode]
  ) {
    self.name = name
    self.value = .null
    self.unit = nil
    self.range = range
    self.shape = shape
    self.children = children
  }

  /// An array element's name: "[0]", "[1]" …, literals for the first few
  /// (a pose's rows and cells, a joint's axes), so naming them builds no
  /// string.
  public static func elementName(_ index: Int) -> String {
    switch index {
    case 0: "[0]"
    case 1: "[1]"
    case 2: "[2]"
    case 3: "[3]"
    case 4: "[4]"
    case 5: "[5]"
    case 6: "[6]"
    case 7: "[7]"
    default: "[\(index)]"
    }
  }

  /// Depth-first search for the first node named `name`.
  public func first(named target: String) -> DissectionNode? {
    name == target ? self : children.first(named: target)
  }

  /// The value this node stands for, with groups folded into objects/arrays.
  public var foldedValue: FieldValue {
    switch shape {
    case .leaf: return value
    case .object: return .object(children.map { .init($0.name, $0.foldedValue) })
    case .array: return .array(children.map(\.foldedValue))
    }
  }
}

extension Array where Element == DissectionNode {
  /// Depth-first search for the first node named `name`: each node, then
  /// its children, then the next. Nodes are read in place and only the hit
  /// is copied.
  public func first(named name: String) -> DissectionNode? {
    withUnsafeBufferPointer { nodes in
      for index in nodes.indices {
        if nodes[index].name == name { return nodes[index] }
        if let hit = nodes[index].children.first(named: name) { return hit }
      }
      return nil
    }
  }
}
