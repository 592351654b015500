/// Parses the expression language by precedence, loosest first: `? :`,
/// `or`, `and`, `not`, comparisons, `|`, `^`, `&`, shifts, `+ -`,
/// `* / %`, unary `- ~`, then postfix `.name`, `.name(…)`, `[i]`,
/// `.as<type>`. Nesting is bounded (`maxDepth`), so a hostile spec cannot
/// exhaust the stack.
struct KsExpressionParser {
  static let maxDepth = 48

  private let tokens: [(token: KsToken, column: Int)]
  private var position = 0
  private var depth = 0

  static func parse(_ text: String) throws(KsExpressionError) -> KsExpression {
    var parser = KsExpressionParser(tokens: try KsLexer.tokens(text))
    let expression = try parser.ternary()
    guard parser.current == .end else {
      throw parser.error("unexpected \(parser.describe(parser.current)) after the expression")
    }
    return expression
  }

  private init(tokens: [(token: KsToken, column: Int)]) {
    self.tokens = tokens
  }

  private var current: KsToken { tokens[position].token }

  private func error(_ text: String) -> KsExpressionError {
    KsExpressionError(text: text, column: tokens[position].column)
  }

  private func describe(_ token: KsToken) -> String {
    switch token {
    case .integer(let value): return "'\(value)'"
    case .float(let value): return "'\(value)'"
    case .string: return "a string"
    case .name(let name): return "'\(name)'"
    case .symbol(let symbol): return "'\(symbol)'"
    case .end: return "the end"
    }
  }

  private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

  private mutating func take(_ symbol: String) -> Bool {
    guard current == .symbol(symbol) else { return false }
    advance()
    return true
  }

  private mutating func takeWord(_ word: String) -> Bool {
    guard current == .name(word) else { return false }
    advance()
    return true
  }

  private mutating func expect(_ symbol: String) throws(KsExpressionError) {
    guard take(symbol) else { throw error("expected '\(symbol)', found \(describe(current))") }
  }

  private mutating func enter() throws(KsExpressionError) {
    depth += 1
    guard depth <= Self.maxDepth else { throw error("an expression nested deeper than \(Self.maxDepth)") }
  }

  mutating func ternary() throws(KsExpressionError) -> KsExpression {
    try enter()
    defer { depth -= 1 }
    let condition = try logicalOr()
    guard take("?") else { return condition }
    let yes = try ternary()
    try expect(":")
    let no = try ternary()
    return .ternary(condition, yes, no)
  }

  private mutating func logicalOr() throws(KsExpressionError) -> KsExpression {
    var left = try logicalAnd()
    while takeWord("or") { left = .binary(.logicalOr, left, try logicalAnd()) }
    return left
  }

  private mutating func logicalAnd() throws(KsExpressionError) -> KsExpression {
    var left = try logicalNot()
    while takeWord("and") { left = .binary(.logicalAnd, left, try logicalNot()) }
    return left
  }

  private mutating func logicalNot() throws(KsExpressionError) -> KsExpression {
    if takeWord("not") {
      try enter()
      defer { depth -= 1 }
      return .unary(.not, try logicalNot())
    }
    return try comparison()
  }

  private static let comparisons: [String: KsBinary] = [
    "==": .equal, "!=": .notEqual, "<": .less, "<=": .lessEqual, ">": .greater, ">=": .greaterEqual,
  ]

  private mutating func comparison() throws(KsExpressionError) -> KsExpression {
    let left = try binary(level: 0)
    if case .symbol(let symbol) = current, let op = Self.comparisons[symbol] {
      advance()
      return .binary(op, left, try binary(level: 0))
    }
    return left
  }

  /// Binary levels, loosest first.
  private static let levels: [[String: KsBinary]] = [
    ["|": .or], ["^": .xor], ["&": .and], ["<<": .shiftLeft, ">>": .shiftRight],
    ["+": .add, "-": .subtract], ["*": .multiply, "/": .divide, "%": .modulo],
  ]

  private mutating func binary(level: Int) throws(KsExpressionError) -> KsExpression {
    guard level < Self.levels.count else { return try unary() }
    var left = try binary(level: level + 1)
    while case .symbol(let symbol) = current, let op = Self.levels[level][symbol] {
      advance()
      left = .binary(op, left, try binary(level: level + 1))
    }
    return left
  }

  private mutating func unary() throws(KsExpressionError) -> KsExpression {
    try enter()
    defer { depth -= 1 }
    if take("-") {
      // A literal's minus belongs to it: -9223372036854775808 fits.
      if case .integer(let value) = current {
        advance()
        return try postfix(.integer(0 &- value))
      }
      return .unary(.negate, try unary())
    }
    if take("+") { return try unary() }
    if take("~") { return .unary(.invert, try unary()) }
    return try postfix(try atom())
  }

  private mutating func postfix(_ start: KsExpression) throws(KsExpressionError) -> KsExpression {
    var expression = start
    var steps = 0
    while true {
      steps += 1
      guard steps <= 64 else { throw error("a chain of more than 64 steps") }
      if take("[") {
        let index = try ternary()
        try expect("]")
        expression = .index(expression, index)
      } else if take(".") {
        guard case .name(let name) = current else {
          throw error("expected a name after '.', found \(describe(current))")
        }
        advance()
        if name == "as", take("<") {
          expression = .cast(expression, try typeName(closing: ">"))
        } else if take("(") {
          expression = .call(expression, name, try arguments())
        } else {
          expression = .member(expression, name)
        }
      } else {
        return expression
      }
    }
  }

  /// A type name inside `.as<…>`: names joined by `::`.
  private mutating func typeName(closing: String) throws(KsExpressionError) -> String {
    var parts: [String] = []
    repeat {
      guard case .name(let name) = current else {
        throw error("expected a type name, found \(describe(current))")
      }
      parts.append(name)
      advance()
    } while take("::")
    try expect(closing)
    return parts.joined(separator: "::")
  }

  private mutating func arguments() throws(KsExpressionError) -> [KsExpression] {
    var list: [KsExpression] = []
    if take(")") { return list }
    repeat {
      guard list.count < 32 else { throw error("more than 32 arguments") }
      list.append(try ternary())
    } while take(",")
    try expect(")")
    return list
  }

  private mutating func atom() throws(KsExpressionError) -> KsExpression {
    switch current {
    case .integer(let value):
      advance()
      return .integer(value)
    case .float(let value):
      advance()
      return .float(value)
    case .string(let bytes):
      advance()
      return .string(bytes)
    case .name(let name):
      advance()
      switch name {
      case "true": return .bool(true)
      case "false": return .bool(false)
      default: break
      }
      guard take("::") else { return .name(name) }
      var parts = [name]
      repeat {
        guard case .name(let part) = current else {
          throw error("expected a name after '::', found \(describe(current))")
        }
        parts.append(part)
        advance()
      } while take("::")
      guard parts.count >= 2 else { throw error("expected enum::value") }
      return .enumValue(
        path: Array(parts.dropLast(2)), enumeration: parts[parts.count - 2], value: parts[parts.count - 1])
    case .symbol("("):
      advance()
      let inner = try ternary()
      try expect(")")
      return inner
    case .symbol("["):
      advance()
      var elements: [KsExpression] = []
      if !take("]") {
        repeat {
          guard elements.count < 4096 else { throw error("an array literal of more than 4096 elements") }
          elements.append(try ternary())
        } while take(",")
        try expect("]")
      }
      return .array(elements)
    default:
      throw error("expected a value, found \(describe(current))")
    }
  }
}
