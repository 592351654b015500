/// Counts by name, for the small vocabularies a fuzz run tallies (error
/// codes, message kinds): the names seen so far, searched in order.
///
/// The fuzzer counts one name per input, hundreds of thousands of times a
/// second. A dictionary hashed the name with SipHash every time; here a
/// name is compared with the few already seen, and two names from one
/// literal, or two short names (held inside the `String` itself), compare
/// in a word or two. The names come from the codecs' and parsers' fixed
/// vocabularies, so the list stays short.
public struct Tally: Sendable, Equatable, CustomStringConvertible {
  /// The names in the order first seen.
  public private(set) var names: [String] = []
  /// `counts[i]` is how often `names[i]` was added.
  public private(set) var counts: [Int] = []

  public init() {}

  /// The number of different names.
  public var count: Int { names.count }

  public var isEmpty: Bool { names.isEmpty }

  /// How often `name` was added (0 when never).
  public subscript(name: String) -> Int {
    guard let index = names.firstIndex(of: name) else { return 0 }
    return counts[index]
  }

  /// Adds `amount` to `name`'s count; true when `name` is new.
  @discardableResult
  public mutating func add(_ name: String, _ amount: Int = 1) -> Bool {
    if let index = names.firstIndex(of: name) {
      counts[index] += amount
      return false
    }
    names.append(name)
    counts.append(amount)
    return true
  }

  /// The names and counts, by name.
  public var sorted: [(name: String, count: Int)] {
    zip(names, counts).sorted { $0.0 < $1.0 }.map { (name: $0.0, count: $0.1) }
  }

  /// The sum of all counts.
  public var total: Int { counts.reduce(0, +) }

  /// Equal when every name has the same count, whatever the order seen.
  public static func == (lhs: Tally, rhs: Tally) -> Bool {
    lhs.count == rhs.count && zip(lhs.names, lhs.counts).allSatisfy { rhs[$0.0] == $0.1 }
  }

  public var description: String {
    sorted.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
  }
}
