/// Parses a display filter's tokens into a `FilterExpression`, resolving
/// each field name against the front end's vocabulary. tshark's grammar,
/// by precedence from loosest: `or`/`||`, `and`/`&&`, `not`/`!`, then a
/// test (a field; a comparison; `contains`; `matches`/`~`; `in {…}`) or a
/// parenthesised expression. `and` and `or` group to the left.
///
/// Parentheses and `not` nest by recursion, so their depth is limited
/// (`maxNesting`): a filter of thousands of `(` is an error naming the
/// column, not a stack overflow. tshark refuses such filters too.
struct FilterParser<Vocabulary: FilterVocabulary> {
  /// The most `(` and `not` a test may sit inside.
  static var maxNesting: Int { 64 }

  private let tokens: [FilterToken]
  private let vocabulary: Vocabulary
  private var position = 0
  private var nesting = 0

  init(tokens: [FilterToken], vocabulary: Vocabulary) {
    self.tokens = tokens
    self.vocabulary = vocabulary
  }

  static func parse(_ text: String, vocabulary: Vocabulary) throws(FilterSyntaxError) -> FilterExpression {
    var parser = FilterParser(tokens: try FilterLexer.tokens(text), vocabulary: vocabulary)
    if parser.current.kind == .end { throw FilterSyntaxError("the filter is empty", column: 1) }
    let expression = try parser.orExpression()
    guard parser.current.kind == .end else {
      let token = parser.current
      if token.kind == .closeParen { throw FilterSyntaxError("')' closes no '('", column: token.column) }
      throw FilterSyntaxError(
        "expected 'and', 'or' or the end of the filter before '\(token.text)'", column: token.column)
    }
    return expression
  }

  private var current: FilterToken { tokens[position] }

  private mutating func advance() -> FilterToken {
    defer { if position < tokens.count - 1 { position += 1 } }
    return tokens[position]
  }

  // MARK: Connectives

  private mutating func orExpression() throws(FilterSyntaxError) -> FilterExpression {
    var operands = [try andExpression()]
    while current.kind == .or {
      let connective = advance()
      operands.append(
        try operand(after: connective) { (p: inout Self) throws(FilterSyntaxError) in try p.andExpression() })
    }
    return operands.count == 1 ? operands[0] : .or(operands)
  }

  private mutating func andExpression() throws(FilterSyntaxError) -> FilterExpression {
    var operands = [try notExpression()]
    while current.kind == .and {
      let connective = advance()
      operands.append(
        try operand(after: connective) { (p: inout Self) throws(FilterSyntaxError) in try p.notExpression() })
    }
    return operands.count == 1 ? operands[0] : .and(operands)
  }

  private mutating func notExpression() throws(FilterSyntaxError) -> FilterExpression {
    guard current.kind == .not else { return try primary() }
    let not = advance()
    try enter(not)
    defer { nesting -= 1 }
    return .not(
      try operand(after: not) { (p: inout Self) throws(FilterSyntaxError) in try p.notExpression() })
  }

  /// One level deeper (a `(` or a `not`), refused past `maxNesting`.
  private mutating func enter(_ token: FilterToken) throws(FilterSyntaxError) {
    nesting += 1
    guard nesting <= Self.maxNesting else {
      throw FilterSyntaxError(
        "'\(token.text)' nests the filter deeper than \(Self.maxNesting) levels of '(' and 'not'",
        column: token.column)
    }
  }

  /// What follows a connective, or an error naming it when nothing does.
  private mutating func operand(
    after connective: FilterToken, _ parse: (inout Self) throws(FilterSyntaxError) -> FilterExpression
  ) throws(FilterSyntaxError) -> FilterExpression {
    switch current.kind {
    case .end, .closeParen, .and, .or:
      throw FilterSyntaxError("expected a test after '\(connective.text)'", column: current.column)
    default:
      return try parse(&self)
    }
  }

  // MARK: Tests

  private mutating func primary() throws(FilterSyntaxError) -> FilterExpression {
    let token = current
    switch token.kind {
    case .openParen:
      _ = advance()
      try enter(token)
      defer { nesting -= 1 }
      if current.kind == .closeParen { throw FilterSyntaxError("empty '()'", column: current.column) }
      let inner = try orExpression()
      guard current.kind == .closeParen else {
        throw FilterSyntaxError(
          "expected ')' to close the '(' at column \(token.column), found \(describe(current))",
          column: current.column)
      }
      _ = advance()
      return inner
    case .name:
      let field = try self.field()
      return try test(on: field)
    case .string, .number, .boolean:
      // A literal first: `90 < rider.left` is `rider.left > 90`.
      let literal = try self.literal()
      guard case .comparison(let comparison) = current.kind else {
        throw FilterSyntaxError(
          "expected a comparison ('==', '<' …) after \(token.text), found \(describe(current))",
          column: current.column)
      }
      let operatorToken = advance()
      guard case .name = current.kind else {
        throw FilterSyntaxError(
          "expected a field after '\(operatorToken.text)' (a literal on the left needs a field on the right)",
          column: current.column)
      }
      return .compare(try field(), comparison.swapped, .literal(literal))
    case .end:
      throw FilterSyntaxError("expected a field", column: token.column)
    default:
      throw FilterSyntaxError("expected a field, found \(describe(token))", column: token.column)
    }
  }

  private mutating func test(on field: FilterField) throws(FilterSyntaxError) -> FilterExpression {
    let operatorToken = current
    switch operatorToken.kind {
    case .comparison(let comparison):
      _ = advance()
      return .compare(field, comparison, try operand(after: operatorToken))
    case .contains:
      _ = advance()
      return .contains(field, try operand(after: operatorToken))
    case .matches:
      _ = advance()
      guard case .string(let bytes) = current.kind else {
        throw FilterSyntaxError(
          "expected a regular expression in double quotes after '\(operatorToken.text)'",
          column: current.column)
      }
      let patternToken = advance()
      let source = String(decoding: bytes, as: UTF8.self)
      do {
        return .matches(field, try FilterPattern(source))
      } catch {
        throw FilterSyntaxError("not a valid regular expression (\(error))", column: patternToken.column)
      }
    case .in:
      _ = advance()
      return .member(field, try set(after: operatorToken))
    default:
      return .exists(field)
    }
  }

  /// The right side of a comparison: a literal or a field.
  private mutating func operand(after operatorToken: FilterToken) throws(FilterSyntaxError) -> FilterOperand {
    switch current.kind {
    case .name: return .field(try field())
    case .string, .number, .boolean: return .literal(try literal())
    default:
      throw FilterSyntaxError("expected a value after '\(operatorToken.text)'", column: current.column)
    }
  }

  private mutating func set(after inToken: FilterToken) throws(FilterSyntaxError) -> [FilterSetElement] {
    guard current.kind == .openBrace else {
      throw FilterSyntaxError("expected '{' after 'in'", column: current.column)
    }
    let open = advance()
    var elements: [FilterSetElement] = []
    while current.kind != .closeBrace {
      guard current.kind != .end else {
        throw FilterSyntaxError(
          "expected '}' to close the '{' at column \(open.column)", column: current.column)
      }
      if !elements.isEmpty, current.kind == .comma { _ = advance() }
      guard
        [.string([]), .number(.integer(0)), .boolean(true)].contains(where: {
          Self.sameKind($0, current.kind)
        })
      else {
        throw FilterSyntaxError(
          "expected a value in the set, found \(describe(current))", column: current.column)
      }
      let low = try literal()
      if current.kind == .range {
        let range = advance()
        guard case .number = current.kind, case .number = low.kind else {
          throw FilterSyntaxError("a range '..' joins two numbers", column: range.column)
        }
        elements.append(.range(low, try literal()))
      } else {
        elements.append(.value(low))
      }
    }
    _ = advance()
    if elements.isEmpty { throw FilterSyntaxError("the set is empty", column: open.column) }
    return elements
  }

  private static func sameKind(_ a: FilterToken.Kind, _ b: FilterToken.Kind) -> Bool {
    switch (a, b) {
    case (.string, .string), (.number, .number), (.boolean, .boolean): true
    default: false
    }
  }

  // MARK: Leaves

  private mutating func field() throws(FilterSyntaxError) -> FilterField {
    let token = advance()
    guard case .name(let name) = token.kind else {
      throw FilterSyntaxError("expected a field, found \(describe(token))", column: token.column)
    }
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    if parts.contains(where: \.isEmpty) || name.hasSuffix("-") {
      throw FilterSyntaxError("'\(name)' is not a field name", column: token.column)
    }
    guard let resolved = vocabulary.resolve(parts) else {
      throw FilterSyntaxError("'\(name)' is not a field: \(vocabulary.unknown(name))", column: token.column)
    }
    return FilterField(
      name: name, column: token.column, root: resolved.root, path: FilterPath(parts.dropFirst(resolved.parts))
    )
  }

  private mutating func literal() throws(FilterSyntaxError) -> FilterLiteral {
    let token = advance()
    switch token.kind {
    case .string(let bytes): return FilterLiteral(text: bytes, written: token.text)
    case .number(let number): return FilterLiteral(.number(number), written: token.text)
    case .boolean(let value): return FilterLiteral(.boolean(value), written: token.text)
    default: throw FilterSyntaxError("expected a value, found \(describe(token))", column: token.column)
    }
  }

  private func describe(_ token: FilterToken) -> String {
    token.kind == .end ? "the end of the filter" : "'\(token.text)'"
  }
}
