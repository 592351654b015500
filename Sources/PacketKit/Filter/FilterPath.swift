/// The parts of a field name after its root (`payload`, `frameId`), each
/// kept as text and UTF-8 bytes, to compare with a record's names in place.
public struct FilterPath: Sendable {
  public struct Part: Sendable {
    public let text: String
    public let utf8: [UInt8]

    public init(_ text: Substring) {
      self.text = String(text)
      utf8 = Array(text.utf8)
    }

    /// Whether a codec's static name is this part.
    @inlinable
    public func names(_ name: StaticString) -> Bool {
      name.withUTF8Buffer { name in utf8.withUnsafeBytes { $0.sameBytes(as: UnsafeRawBufferPointer(name)) } }
    }

    public func names(_ name: String) -> Bool { text == name }
  }

  public var parts: [Part]

  public init(_ parts: some Sequence<Substring>) {
    self.parts = parts.map(Part.init)
  }

  public var count: Int { parts.count }

  /// Visits the values at `parts[from...]` in a dissection tree. An array's
  /// elements are each an occurrence: the path goes on into every one.
  @discardableResult
  public func visit(_ nodes: [DissectionNode], from start: Int = 0, _ visit: (FilterValue) -> Bool) -> Bool {
    guard start < parts.count else { return visit(.present) }
    return nodes.withUnsafeBufferPointer { nodes in
      for index in nodes.indices where nodes[index].name == parts[start].text {
        if !self.visit(node: nodes[index], from: start + 1, visit) { return false }
      }
      return true
    }
  }

  private func visit(node: DissectionNode, from start: Int, _ visit: (FilterValue) -> Bool) -> Bool {
    switch node.shape {
    case .leaf:
      guard start < parts.count else { return FilterValue.visit(node.value, visit) }
      return self.visit(node.value, from: start, visit)
    case .object:
      guard start < parts.count else { return visit(.present) }
      return self.visit(node.children, from: start, visit)
    case .array:
      for element in node.children where !self.visit(node: element, from: start, visit) { return false }
      return true
    }
  }

  /// Visits the values at `parts[from...]` in a value (an event's fields,
  /// a transport's details): objects by key, arrays element by element.
  @discardableResult
  public func visit(_ value: FieldValue, from start: Int, _ visit: (FilterValue) -> Bool) -> Bool {
    switch value {
    case .object(let members):
      guard start < parts.count else { return visit(.present) }
      return self.visit(members, from: start, visit)
    case .array(let items):
      for item in items where !self.visit(item, from: start, visit) { return false }
      return true
    default:
      guard start < parts.count else { return FilterValue.visit(value, visit) }
      return true  // a scalar has no members: absent
    }
  }

  /// Visits the values at `parts[from...]` among an object's members.
  @discardableResult
  public func visit(_ members: [FieldValue.Member], from start: Int, _ visit: (FilterValue) -> Bool) -> Bool {
    guard start < parts.count else { return visit(.present) }
    for member in members where member.key == parts[start].text {
      if !self.visit(member.value, from: start + 1, visit) { return false }
    }
    return true
  }

  /// Visits the value at `parts[from...]` among a clean message's flat
  /// fields: a top-level field, or a member of a group (one level).
  @discardableResult
  public func visit(
    flat fields: UnsafeBufferPointer<FlatFields.Field>, from start: Int = 0, _ visit: (FilterValue) -> Bool
  ) -> Bool {
    guard start < parts.count else { return visit(.present) }
    var index = 0
    while index < fields.count {
      let members = fields[index].memberIndices(at: index, of: fields.count)
      if parts[start].names(fields[index].name) {
        if start + 1 == parts.count { return FilterValue.visit(fields[index].value, visit) }
        guard start + 2 == parts.count else { return true }
        for member in members where parts[start + 1].names(fields[member].name) {
          return FilterValue.visit(fields[member].value, visit)
        }
        return true
      }
      index = members.upperBound
    }
    return true
  }
}
