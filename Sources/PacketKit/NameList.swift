/// Values by name, for a handful of names (a message's craft values, a fuzz
/// run's error codes): kept in the order first set and found by comparing
/// names, not by hashing. Two names from one literal, or two short names
/// (held inside the `String` itself), compare in a word or two, where a
/// dictionary ran SipHash over every name it was asked for. Inlinable, so
/// each user's copy is specialised for its values.
public struct NameList<Value> {
  @usableFromInline var storedNames: [String] = []
  @usableFromInline var storedValues: [Value] = []

  @inlinable
  public init(capacity: Int = 0) {
    storedNames.reserveCapacity(capacity)
    storedValues.reserveCapacity(capacity)
  }

  /// The names, in the order first set.
  @inlinable public var names: [String] { storedNames }

  /// `values[i]` is `names[i]`'s value.
  @inlinable public var values: [Value] { storedValues }

  @inlinable public var count: Int { storedNames.count }

  @inlinable public var isEmpty: Bool { storedNames.isEmpty }

  @inlinable
  public func index(of name: String) -> Int? { storedNames.firstIndex(of: name) }

  /// `name`'s value; setting nil removes it.
  @inlinable
  public subscript(name: String) -> Value? {
    get { index(of: name).map { storedValues[$0] } }
    set {
      switch (index(of: name), newValue) {
      case (let index?, let value?): storedValues[index] = value
      case (let index?, nil):
        storedNames.remove(at: index)
        storedValues.remove(at: index)
      case (nil, let value?):
        storedNames.append(name)
        storedValues.append(value)
      case (nil, nil): break
      }
    }
  }

  /// Changes `name`'s value in place, starting from `initial` when it has
  /// none; true when `name` is new.
  @inlinable
  @discardableResult
  public mutating func update(_ name: String, initial: Value, _ change: (inout Value) -> Void) -> Bool {
    if let index = index(of: name) {
      change(&storedValues[index])
      return false
    }
    var value = initial
    change(&value)
    storedNames.append(name)
    storedValues.append(value)
    return true
  }
}

extension NameList: Sendable where Value: Sendable {}

extension NameList where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
  /// Every case of a `String` enum by its raw value. For names that fit in
  /// a `String` itself (up to 15 bytes), finding one here compares a word
  /// or two per case, where `init(rawValue:)` runs the runtime's string switch.
  public init(rawValuesOf _: Value.Type) {
    self.init(capacity: Value.allCases.count)
    for value in Value.allCases { self[value.rawValue] = value }
  }
}
