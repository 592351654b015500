import PacketKit

/// Counts by name, for the small vocabularies a fuzz run tallies (error
/// codes, message kinds): a `NameList` of counts. The fuzzer counts one
/// name per input, hundreds of thousands of times a second, and the names
/// come from the codecs' and parsers' fixed vocabularies, so the list stays
/// short.
public struct Tally: Sendable, Equatable, CustomStringConvertible {
  private var counts = NameList<Int>()

  public init() {}

  /// The names in the order first seen.
  public var names: [String] { counts.names }

  /// The number of different names.
  public var count: Int { counts.count }

  public var isEmpty: Bool { counts.isEmpty }

  /// How often `name` was added (0 when never).
  public subscript(name: String) -> Int { counts[name] ?? 0 }

  /// Adds `amount` to `name`'s count; true when `name` is new.
  @discardableResult
  public mutating func add(_ name: String, _ amount: Int = 1) -> Bool {
    counts.update(name, initial: 0) { $0 += amount }
  }

  /// Adds `other`'s counts (another worker's), its new names after these.
  public mutating func add(_ other: Tally) {
    for (name, count) in zip(other.counts.names, other.counts.values) { add(name, count) }
  }

  /// The names and counts, by name.
  public var sorted: [(name: String, count: Int)] {
    zip(counts.names, counts.values).sorted { $0.0 < $1.0 }.map { (name: $0.0, count: $0.1) }
  }

  /// The sum of all counts.
  public var total: Int { counts.values.reduce(0, +) }

  /// Equal when every name has the same count, whatever the order seen.
  public static func == (lhs: Tally, rhs: Tally) -> Bool {
    lhs.count == rhs.count && zip(lhs.counts.names, lhs.counts.values).allSatisfy { rhs[$0.0] == $0.1 }
  }

  public var description: String {
    sorted.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
  }
}
