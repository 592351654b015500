/// A display filter in tshark's syntax, compiled once against a front
/// end's vocabulary and then asked of each record.
///
/// A comparison reads each occurrence of its field (an array's elements
/// are occurrences): `==`, `<`, `contains`, `matches` and `in` hold when
/// one occurrence satisfies them, `!=` when every one does. A record that
/// lacks the field satisfies none of them — `x != 1` is false when there
/// is no `x`, as in tshark — while `not x == 1` is true.
public struct DisplayFilter: Sendable {
  public let text: String
  public let expression: FilterExpression

  public init(_ text: String, vocabulary: some FilterVocabulary) throws(FilterSyntaxError) {
    self.text = text
    expression = try FilterParser.parse(text, vocabulary: vocabulary)
  }

  /// Whether `record` passes. Regular expressions share one record's
  /// `FilterBudget`; one given up on for want of steps does not match.
  public func matches(_ record: some FilterRecord) -> Bool {
    var budget = FilterBudget()
    return matches(record, budget: &budget)
  }

  /// The same, with the budget given, to learn afterwards whether a
  /// regular expression ran out of it (`budget.isExhausted`).
  public func matches(_ record: some FilterRecord, budget: inout FilterBudget) -> Bool {
    Self.evaluate(expression, record, &budget)
  }

  static func evaluate(
    _ expression: FilterExpression, _ record: some FilterRecord, _ budget: inout FilterBudget
  )
    -> Bool
  {
    switch expression {
    case .or(let operands):
      for operand in operands where evaluate(operand, record, &budget) { return true }
      return false
    case .and(let operands):
      for operand in operands where !evaluate(operand, record, &budget) { return false }
      return true
    case .not(let inner): return !evaluate(inner, record, &budget)
    case .exists(let field):
      var found = false
      record.visitValues(of: field) { _ in
        found = true
        return false
      }
      return found
    case .compare(let field, let comparison, .literal(let literal)):
      let right = literal.value
      return holds(field, comparison, record) { FilterCompare.order($0, right) }
    case .compare(let field, let comparison, .field(let other)):
      return holds(field, comparison, other, record)
    case .contains(let field, .literal(let literal)):
      let needle = literal.value
      return any(field, record) { FilterCompare.contains($0, needle) }
    case .contains(let field, .field(let other)):
      return any(field, record) { haystack in any(other, record) { FilterCompare.contains(haystack, $0) } }
    case .matches(let field, let pattern):
      return any(field, record) {
        FilterCompare.withText($0) { pattern.matches($0, budget: &budget) } ?? false
      }
    case .member(let field, let elements):
      return any(field, record) { value in
        elements.contains { element in
          switch element {
          case .value(let literal): FilterCompare.order(value, literal.value) == .equal
          case .range(let low, let high):
            FilterComparison.greaterOrEqual.holds(FilterCompare.order(value, low.value))
              && FilterComparison.lessOrEqual.holds(FilterCompare.order(value, high.value))
          }
        }
      }
    }
  }

  /// Field against field: each pair of occurrences, as tshark compares them.
  private static func holds(
    _ field: FilterField, _ comparison: FilterComparison, _ other: FilterField, _ record: some FilterRecord
  ) -> Bool {
    var any = false
    var all = true
    var seen = false
    record.visitValues(of: field) { left in
      record.visitValues(of: other) { right in
        seen = true
        let holds = comparison.holds(FilterCompare.order(left, right))
        any = any || holds
        all = all && holds
        return comparison.needsAll ? all : !any
      }
      return comparison.needsAll ? all : !any
    }
    return comparison.needsAll ? seen && all : any
  }

  /// Whether one occurrence of `field` passes `test`.
  private static func any(_ field: FilterField, _ record: some FilterRecord, _ test: (FilterValue) -> Bool)
    -> Bool
  {
    var found = false
    record.visitValues(of: field) { value in
      found = test(value)
      return !found
    }
    return found
  }

  /// Whether `comparison` holds for `field` given each occurrence's order
  /// against the other side: for one occurrence, or (for `!=` and `===`)
  /// for every one, and then at least one must exist.
  private static func holds(
    _ field: FilterField, _ comparison: FilterComparison, _ record: some FilterRecord,
    _ order: (FilterValue) -> FilterOrder?
  ) -> Bool {
    var any = false
    var all = true
    var seen = false
    record.visitValues(of: field) { value in
      seen = true
      let holds = comparison.holds(order(value))
      any = any || holds
      all = all && holds
      return comparison.needsAll ? all : !any
    }
    return comparison.needsAll ? seen && all : any
  }
}
