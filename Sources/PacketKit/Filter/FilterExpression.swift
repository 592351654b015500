/// A compiled display filter: the tree the parser builds, with every field
/// name resolved once against the front end's vocabulary.
/// A run of `or` (or of `and`) is one node with its operands in order, so
/// a filter of thousands of alternatives is a flat list, not a tree as deep.
public indirect enum FilterExpression: Sendable {
  case or([FilterExpression])
  case and([FilterExpression])
  case not(FilterExpression)
  /// A bare field or protocol name: true when the record has it.
  case exists(FilterField)
  case compare(FilterField, FilterComparison, FilterOperand)
  case contains(FilterField, FilterOperand)
  case matches(FilterField, FilterPattern)
  /// `field in {a, b, c..d}`.
  case member(FilterField, [FilterSetElement])
}

/// The right-hand side of a comparison: a literal or another field.
public enum FilterOperand: Sendable {
  case literal(FilterLiteral)
  case field(FilterField)
}

/// One element of a set: a value, or an inclusive range.
public enum FilterSetElement: Sendable {
  case value(FilterLiteral)
  case range(FilterLiteral, FilterLiteral)
}

/// tshark's comparison operators. A field may occur more than once in a
/// record (an array's elements): `==` holds when any occurrence is equal,
/// `!=` when every occurrence differs (tshark's `all_ne`), `===` when all
/// are equal and `!==` when any differs; the orderings hold for any.
public enum FilterComparison: Sendable, Equatable {
  case equal, notEqual, allEqual, anyNotEqual
  case less, lessOrEqual, greater, greaterOrEqual

  /// Whether the comparison must hold for every occurrence (else for one).
  var needsAll: Bool { self == .notEqual || self == .allEqual }

  /// Whether `order` (nil: the two cannot be compared) satisfies it.
  /// Values of kinds that do not compare satisfy no operator, `!=` included.
  @inline(__always)
  func holds(_ order: FilterOrder?) -> Bool {
    guard let order else { return false }
    switch self {
    case .equal, .allEqual: return order == .equal
    case .notEqual, .anyNotEqual: return order != .equal
    case .less: return order == .less
    case .lessOrEqual: return order != .greater
    case .greater: return order == .greater
    case .greaterOrEqual: return order != .less
    }
  }

  /// The same test with its sides swapped (`90 < x` is `x > 90`).
  var swapped: FilterComparison {
    switch self {
    case .less: .greater
    case .lessOrEqual: .greaterOrEqual
    case .greater: .less
    case .greaterOrEqual: .lessOrEqual
    default: self
    }
  }
}

/// How two values order; nil where they do not compare.
public enum FilterOrder: Sendable, Equatable {
  case less, equal, greater
}
