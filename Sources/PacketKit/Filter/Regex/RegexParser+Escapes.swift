/// Escapes (`\d`, `\x{263A}`, `\1`, `\k<name>`, `\p{Lu}`…) and character
/// classes, as PCRE2 reads them.
extension RegexParser {
  /// What follows a backslash outside a class.
  mutating func escape(at start: Int) throws(RegexSyntaxError) -> RegexNode {
    guard let scalar = peek else { throw RegexSyntaxError("\\ at end of pattern", at: start) }
    if let items = try classEscape() { return .set(sealed(items)) }
    index += 1
    switch scalar {
    case "b": return .assertion(.wordBoundary(negated: false))
    case "B": return .assertion(.wordBoundary(negated: true))
    case "A": return .assertion(.textStart)
    case "z": return .assertion(.textEnd)
    case "Z": return .assertion(.textEndBeforeNewline)
    case "N": return .any(dotAll: false)
    case "R":
      // Any newline sequence, \r\n taken whole.
      let crlf = RegexNode.sequence([.scalar("\r", caseless: false), .scalar("\n", caseless: false)])
      var single = RegexSet()
      single.add([.range(0x0A, 0x0D), .range(0x85, 0x85), .range(0x2028, 0x2029)])
      single.seal()
      return .atomic(.alternation([crlf, .set(single)]))
    case "1"..."9":
      index -= 1
      let number = self.number() ?? 0
      references.append((number, start))
      return .backreference(number, caseless: flags.caseless)
    case "g":
      return try numberedReference(at: start)
    case "k":
      guard let open = peek, let closer = Self.closer(of: open) else {
        throw RegexSyntaxError("\\k is not followed by a name in <>, '' or {}", at: start)
      }
      index += 1
      return try namedReference(closer: closer, at: start)
    case "G", "K", "X", "C":
      throw RegexSyntaxError("\\\(scalar) is not supported", at: start)
    default:
      index -= 1
      return literal(try escapedScalar(at: start))
    }
  }

  /// `\g1`, `\g{1}`, `\g{-1}` (relative), `\g{name}`.
  private mutating func numberedReference(at start: Int) throws(RegexSyntaxError) -> RegexNode {
    let braced = take("{")
    if braced, let scalar = peek, !(scalar == "-" || (0x30...0x39).contains(scalar.value)) {
      return try namedReference(closer: "}", at: start)
    }
    let relative = take("-")
    guard var number = self.number() else {
      throw RegexSyntaxError("a numbered reference must not be zero", at: start)
    }
    if braced, !take("}") { throw RegexSyntaxError("\\g{ is not closed", at: start) }
    if relative { number = captureCount - number + 1 }
    guard number > 0 else { throw RegexSyntaxError("reference to non-existent subpattern", at: start) }
    references.append((number, start))
    return .backreference(number, caseless: flags.caseless)
  }

  private static func closer(of open: Unicode.Scalar) -> Unicode.Scalar? {
    switch open {
    case "<": ">"
    case "'": "'"
    case "{": "}"
    default: nil
    }
  }

  /// A class escape (`\d`, `\W`, `\p{L}`…) at the scalar after the
  /// backslash, consumed; nil (nothing consumed) for any other.
  private mutating func classEscape() throws(RegexSyntaxError) -> [RegexSet.Item]? {
    guard let scalar = peek else { return nil }
    let named: [RegexSet.Item]
    switch scalar {
    case "d", "D": named = RegexSet.digit
    case "w", "W": named = RegexSet.word
    case "s", "S": named = RegexSet.space
    case "h", "H": named = RegexSet.horizontalSpace
    case "v", "V": named = RegexSet.verticalSpace
    case "p", "P":
      let start = index - 1
      index += 1
      var name = ""
      if take("{") {
        while let next = peek, next != "}" {
          name.unicodeScalars.append(next)
          index += 1
        }
        guard take("}") else { throw RegexSyntaxError("malformed \\p or \\P sequence", at: start) }
      } else if let next = peek {
        name.unicodeScalars.append(next)
        index += 1
      }
      var negated = scalar == "P"
      if name.hasPrefix("^") {
        negated.toggle()
        name.removeFirst()
      }
      guard let items = RegexSet.property(name) else {
        throw RegexSyntaxError("unknown property name after \\P or \\p (general categories only)", at: start)
      }
      return negated ? [.inverted(items)] : items
    default: return nil
    }
    index += 1
    return scalar.properties.isUppercase ? [.inverted(named)] : named
  }

  /// A backslash escape that stands for one scalar: `\t`, `\x41`,
  /// `\x{263A}`, `\u263A`, `\0`, `\o{101}`, `\cA`, or a punctuation mark
  /// as itself. `index` is at the scalar after the backslash.
  mutating func escapedScalar(at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
    guard let scalar = peek else { throw RegexSyntaxError("\\ at end of pattern", at: start) }
    index += 1
    switch scalar {
    case "t": return "\t"
    case "n": return "\n"
    case "r": return "\r"
    case "f": return "\u{0C}"
    case "e": return "\u{1B}"
    case "a": return "\u{07}"
    case "0": return try code(digits(radix: 8, max: 2), at: start)
    case "o":
      guard take("{") else { throw RegexSyntaxError("missing opening brace after \\o", at: start) }
      let value = digits(radix: 8, max: 11)
      guard take("}") else { throw RegexSyntaxError("missing closing brace after \\o{", at: start) }
      return try code(value, at: start)
    case "x", "u":
      if take("{") {
        let value = digits(radix: 16, max: 8)
        guard take("}") else { throw RegexSyntaxError("missing closing brace after \\\(scalar){", at: start) }
        return try code(value, at: start)
      }
      let value = digits(radix: 16, max: scalar == "x" ? 2 : 4)
      if scalar == "u", value == nil { throw RegexSyntaxError("\\u needs hexadecimal digits", at: start) }
      return try code(value, at: start)
    case "c":
      guard let control = peek, control.isASCII, control.value >= 0x20 else {
        throw RegexSyntaxError("\\c must be followed by a printable ASCII character", at: start)
      }
      index += 1
      let upper = control.value >= 0x61 && control.value <= 0x7A ? control.value - 32 : control.value
      return Unicode.Scalar(upper ^ 0x40) ?? "\0"
    default:
      if scalar.properties.isAlphabetic || (0x30...0x39).contains(scalar.value) {
        throw RegexSyntaxError("unrecognized character follows \\", at: start)
      }
      return scalar
    }
  }

  private mutating func digits(radix: UInt32, max: Int) -> UInt32? {
    var value: UInt32?
    var count = 0
    while count < max, let scalar = peek, let digit = Self.digit(scalar, radix: radix) {
      value = (value ?? 0) &* radix &+ digit
      index += 1
      count += 1
    }
    return value
  }

  private static func digit(_ scalar: Unicode.Scalar, radix: UInt32) -> UInt32? {
    let value = scalar.value
    let digit: UInt32
    switch value {
    case 0x30...0x39: digit = value - 0x30
    case 0x41...0x46: digit = value - 0x41 + 10
    case 0x61...0x66: digit = value - 0x61 + 10
    default: return nil
    }
    return digit < radix ? digit : nil
  }

  private func code(_ value: UInt32?, at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
    guard let scalar = Unicode.Scalar(value ?? 0) else {
      throw RegexSyntaxError("character code point value is too large or a surrogate", at: start)
    }
    return scalar
  }

  // MARK: Classes

  /// `[…]` after its `[`: ranges, escapes, `[:posix:]`; a `]` first is itself.
  mutating func characterClass(at start: Int) throws(RegexSyntaxError) -> RegexSet {
    var set = RegexSet()
    set.negated = take("^")
    var first = true
    while true {
      guard let scalar = peek else {
        throw RegexSyntaxError("missing terminating ] for character class", at: start)
      }
      if scalar == "]", !first {
        index += 1
        break
      }
      first = false
      if scalar == "[", peek(1) == ":", let items = try posixClass() {
        set.add(items)
        continue
      }
      if scalar == "\\", peek(1) == "Q" {
        index += 2
        while let next = peek, !(next == "\\" && peek(1) == "E") {
          set.add(.range(next.value, next.value))
          index += 1
        }
        if peek == "\\", peek(1) == "E" { index += 2 }
        continue
      }
      if scalar == "\\", peek(1) == "E" {
        index += 2
        continue
      }
      let low: Unicode.Scalar
      if scalar == "\\" {
        index += 1
        if let items = try classEscape() {
          set.add(items)
          continue
        }
        if take("b") {
          low = "\u{08}"
        } else {
          low = try escapedScalar(at: index - 1)
        }
      } else {
        index += 1
        low = scalar
      }
      // A range, unless the '-' ends the class or the other end is a class.
      if peek == "-", let after = peek(1), after != "]" {
        let save = index
        index += 1
        var high: Unicode.Scalar?
        if after == "\\" {
          index += 1
          if try classEscape() != nil {
            index = save
          } else {
            high = take("b") ? "\u{08}" : try escapedScalar(at: index - 1)
          }
        } else if after == "[", peek(1) == ":" {
          index = save
        } else {
          index += 1
          high = after
        }
        if let high {
          guard low.value <= high.value else {
            throw RegexSyntaxError("range out of order in character class", at: save)
          }
          set.add(.range(low.value, high.value))
          continue
        }
      }
      set.add(.range(low.value, low.value))
    }
    set.caseless = flags.caseless
    set.seal()
    return set
  }

  /// `[:alpha:]` or `[:^alpha:]` at a `[`; nil (nothing consumed) when it is not one.
  private mutating func posixClass() throws(RegexSyntaxError) -> [RegexSet.Item]? {
    let start = index
    index += 2
    let negated = take("^")
    var name = ""
    while let scalar = peek, scalar.isASCII, scalar.properties.isAlphabetic {
      name.unicodeScalars.append(scalar)
      index += 1
    }
    guard take(":"), take("]") else {
      index = start
      return nil
    }
    guard let items = RegexSet.posix(name) else {
      throw RegexSyntaxError("unknown POSIX class name", at: start)
    }
    return negated ? [.inverted(items)] : items
  }

  private func sealed(_ items: [RegexSet.Item]) -> RegexSet {
    var set = RegexSet()
    set.add(items)
    set.caseless = flags.caseless
    set.seal()
    return set
  }
}
