/// Splits a display filter into tokens, as tshark's scanner does: names
/// (letters, digits, `_`, `-` and `.`), double-quoted and raw strings with
/// tshark's escapes, integers in decimal, hex, octal and binary, decimals,
/// `True`/`False`, and the C-like and English operators.
struct FilterLexer {
  private let scalars: [Unicode.Scalar]
  private var index = 0

  init(_ text: String) {
    scalars = Array(text.unicodeScalars)
  }

  /// Every token, ending with `.end` (whose column is one past the text).
  static func tokens(_ text: String) throws(FilterSyntaxError) -> [FilterToken] {
    var lexer = FilterLexer(text)
    var tokens: [FilterToken] = []
    while true {
      let token = try lexer.next()
      tokens.append(token)
      if token.kind == .end { return tokens }
    }
  }

  private var column: Int { index + 1 }

  private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
    index + offset < scalars.count ? scalars[index + offset] : nil
  }

  private func text(from start: Int) -> String {
    var text = ""
    text.unicodeScalars.append(contentsOf: scalars[start..<index])
    return text
  }

  mutating func next() throws(FilterSyntaxError) -> FilterToken {
    while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
    let start = index
    guard let scalar = peek() else {
      // The end is just after the last character written: trailing spaces
      // do not move "expected a value after '=='" away from the '=='.
      let last = scalars.lastIndex { !$0.properties.isWhitespace } ?? -1
      return FilterToken(kind: .end, column: last + 2, text: "")
    }
    func token(_ kind: FilterToken.Kind, length: Int) -> FilterToken {
      index += length
      return FilterToken(kind: kind, column: start + 1, text: text(from: start))
    }
    switch scalar {
    case "(": return token(.openParen, length: 1)
    case ")": return token(.closeParen, length: 1)
    case "{": return token(.openBrace, length: 1)
    case "}": return token(.closeBrace, length: 1)
    case ",": return token(.comma, length: 1)
    case "~": return token(.matches, length: 1)
    case "=":
      if peek(1) == "=" {
        return peek(2) == "="
          ? token(.comparison(.allEqual), length: 3) : token(.comparison(.equal), length: 2)
      }
      throw FilterSyntaxError("'=' is not an operator (compare with '==')", column: column)
    case "!":
      if peek(1) == "=" {
        return peek(2) == "="
          ? token(.comparison(.anyNotEqual), length: 3) : token(.comparison(.notEqual), length: 2)
      }
      return token(.not, length: 1)
    case "<":
      return peek(1) == "="
        ? token(.comparison(.lessOrEqual), length: 2) : token(.comparison(.less), length: 1)
    case ">":
      return peek(1) == "="
        ? token(.comparison(.greaterOrEqual), length: 2) : token(.comparison(.greater), length: 1)
    case "&":
      if peek(1) == "&" { return token(.and, length: 2) }
      throw FilterSyntaxError("bitwise '&' is not supported (for 'and' write '&&')", column: column)
    case "|":
      if peek(1) == "|" { return token(.or, length: 2) }
      throw FilterSyntaxError("'|' is not an operator (for 'or' write '||')", column: column)
    case "\"":
      return try string(raw: false)
    case "." where peek(1) == ".":
      return token(.range, length: 2)
    default:
      break
    }
    if scalar == "r", peek(1) == "\"" {
      index += 1
      return try string(raw: true, start: start)
    }
    if Self.isDigit(scalar)
      || ((scalar == "-" || scalar == "+" || scalar == ".") && peek(1).map(Self.isDigit) == true)
      || ((scalar == "-" || scalar == "+") && peek(1) == "." && peek(2).map(Self.isDigit) == true)
    {
      return try number()
    }
    if Self.startsName(scalar) { return name() }
    throw FilterSyntaxError("unexpected '\(Character(scalar))'", column: column)
  }

  // MARK: Names and keywords

  private mutating func name() -> FilterToken {
    let start = index
    while let scalar = peek(), Self.continuesName(scalar) { index += 1 }
    let word = text(from: start)
    let kind: FilterToken.Kind
    switch word {
    case "and": kind = .and
    case "or": kind = .or
    case "not": kind = .not
    case "contains": kind = .contains
    case "matches": kind = .matches
    case "in": kind = .in
    case "eq", "any_eq": kind = .comparison(.equal)
    case "ne", "all_ne": kind = .comparison(.notEqual)
    case "all_eq": kind = .comparison(.allEqual)
    case "any_ne": kind = .comparison(.anyNotEqual)
    case "lt": kind = .comparison(.less)
    case "le": kind = .comparison(.lessOrEqual)
    case "gt": kind = .comparison(.greater)
    case "ge": kind = .comparison(.greaterOrEqual)
    default:
      // tshark spells booleans True/TRUE/False/FALSE; any case is taken.
      switch word.lowercased() {
      case "true": kind = .boolean(true)
      case "false": kind = .boolean(false)
      default: kind = .name(word)
      }
    }
    return FilterToken(kind: kind, column: start + 1, text: word)
  }

  static func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar >= "0" && scalar <= "9" }

  static func startsName(_ scalar: Unicode.Scalar) -> Bool {
    (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
  }

  /// Field names carry '-' (ATT events: `att.read-by-type-request`) and
  /// path parts that start with a digit (`att.read-by-type-response.0x0012`).
  static func continuesName(_ scalar: Unicode.Scalar) -> Bool {
    startsName(scalar) || isDigit(scalar) || scalar == "-" || scalar == "."
  }

  // MARK: Numbers

  private mutating func number() throws(FilterSyntaxError) -> FilterToken {
    let start = index
    var negative = false
    if peek() == "-" || peek() == "+" {
      negative = peek() == "-"
      index += 1
    }
    let digitsStart = index
    while let scalar = peek(), Self.continuesName(scalar) || scalar == "+" || scalar == "-" {
      // A sign belongs to the number only right after an exponent's 'e'.
      if scalar == "+" || scalar == "-" {
        guard index > digitsStart, scalars[index - 1] == "e" || scalars[index - 1] == "E",
          !text(from: digitsStart).lowercased().hasPrefix("0x")
        else { break }
      }
      if scalar == ".", peek(1) == "." { break }
      index += 1
    }
    let written = text(from: start)
    let digits = text(from: digitsStart)
    guard let value = Self.number(digits, negative: negative) else {
      throw FilterSyntaxError("'\(written)' is not a number", column: start + 1)
    }
    return FilterToken(kind: .number(value), column: start + 1, text: written)
  }

  /// tshark's integer forms (0x hex, 0b binary, a leading 0 for octal),
  /// else a decimal with an optional fraction and exponent.
  static func number(_ digits: String, negative: Bool) -> FilterNumber? {
    let lower = digits.lowercased()
    var radix = 10
    var body = Substring(lower)
    if lower.hasPrefix("0x") {
      radix = 16
      body = body.dropFirst(2)
    } else if lower.hasPrefix("0b") {
      radix = 2
      body = body.dropFirst(2)
    } else if lower.count > 1, lower.hasPrefix("0"), lower.allSatisfy({ $0.isNumber }) {
      radix = 8
      body = body.dropFirst(1)
    }
    if radix != 10 || lower.allSatisfy({ $0 >= "0" && $0 <= "9" }) {
      guard !body.isEmpty, let magnitude = UInt64(body, radix: radix) else {
        return radix == 10 ? Double(lower).map { .number(negative ? -$0 : $0) } : nil
      }
      if negative {
        if magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
        if magnitude == UInt64(Int64.max) + 1 { return .integer(Int64.min) }
        return .number(-Double(magnitude))
      }
      return magnitude <= UInt64(Int64.max) ? .integer(Int64(magnitude)) : .unsigned(magnitude)
    }
    // Swift's Double(_:) also reads "nan", "inf" and hex floats: only plain decimals here.
    guard lower.allSatisfy({ ($0 >= "0" && $0 <= "9") || $0 == "." || $0 == "e" || $0 == "+" || $0 == "-" }),
      let value = Double(lower)
    else { return nil }
    return .number(negative ? -value : value)
  }

  // MARK: Strings

  private mutating func string(raw: Bool, start: Int? = nil) throws(FilterSyntaxError) -> FilterToken {
    let start = start ?? index
    let quote = index
    index += 1
    var bytes: [UInt8] = []
    func append(_ scalar: Unicode.Scalar) {
      bytes.append(contentsOf: String(Character(scalar)).utf8)
    }
    while true {
      guard let scalar = peek() else {
        throw FilterSyntaxError("unterminated string (no closing '\"')", column: quote + 1)
      }
      index += 1
      if scalar == "\"" { break }
      guard scalar == "\\" else {
        append(scalar)
        continue
      }
      let escapeColumn = index
      guard let escaped = peek() else {
        throw FilterSyntaxError("unterminated string (no closing '\"')", column: quote + 1)
      }
      index += 1
      if raw {
        // A raw string keeps its backslashes; '\"' still does not end it.
        append("\\")
        append(escaped)
        continue
      }
      switch escaped {
      case "\"", "'", "\\": append(escaped)
      case "a": bytes.append(0x07)
      case "b": bytes.append(0x08)
      case "f": bytes.append(0x0C)
      case "n": bytes.append(0x0A)
      case "r": bytes.append(0x0D)
      case "t": bytes.append(0x09)
      case "v": bytes.append(0x0B)
      case "x":
        guard let value = digits(radix: 16, count: 1...2) else {
          throw FilterSyntaxError("'\\x' needs one or two hex digits", column: escapeColumn)
        }
        bytes.append(UInt8(value))
      case "u", "U":
        let count = escaped == "u" ? 4 : 8
        guard let value = digits(radix: 16, count: count...count), let code = Unicode.Scalar(UInt32(value))
        else {
          throw FilterSyntaxError(
            "'\\\(escaped)' needs \(count) hex digits of a Unicode code point", column: escapeColumn)
        }
        append(code)
      case "0"..."7":
        index -= 1
        guard let value = digits(radix: 8, count: 1...3), value <= 0xFF else {
          throw FilterSyntaxError("an octal escape is at most '\\377'", column: escapeColumn)
        }
        bytes.append(UInt8(value))
      default:
        throw FilterSyntaxError("unknown escape '\\\(Character(escaped))' in a string", column: escapeColumn)
      }
    }
    return FilterToken(kind: .string(bytes), column: start + 1, text: text(from: start))
  }

  /// Up to `count.upperBound` digits of `radix` (at least `count.lowerBound`).
  private mutating func digits(radix: Int, count: ClosedRange<Int>) -> Int? {
    var value = 0
    var taken = 0
    while taken < count.upperBound, let scalar = peek(), let digit = Character(scalar).hexDigitValue,
      digit < radix
    {
      value = value * radix + digit
      taken += 1
      index += 1
    }
    return taken >= count.lowerBound ? value : nil
  }
}
