/// Parses a regular expression in PCRE2's syntax (what tshark's `matches`
/// takes) into a `RegexNode`: alternation, groups (capturing, named,
/// non-capturing, atomic, look-ahead and look-behind), quantifiers
/// (greedy, lazy, possessive), classes with ranges, POSIX names and
/// `\p{…}`, escapes, back-references and the flags i, m, s and x. Nesting
/// is limited, so a hostile pattern cannot exhaust the stack.
struct RegexParser {
  struct Flags {
    var caseless = false
    var multiline = false
    var dotAll = false
    var extended = false
  }

  /// The deepest nesting of groups accepted.
  static let maxDepth = 100
  /// The largest count in `{n,m}` (PCRE2's).
  static let maxCount = 65535

  private let scalars: [Unicode.Scalar]
  var index = 0
  var flags: Flags
  private var depth = 0
  private(set) var captureCount = 0
  private var names: [String: Int] = [:]
  /// Back-references by number, checked once every group is known.
  var references: [(number: Int, offset: Int)] = []

  private init(_ source: String, flags: Flags) {
    scalars = Array(source.unicodeScalars)
    self.flags = flags
  }

  /// The tree and the number of capturing groups.
  static func parse(_ source: String, flags: Flags) throws(RegexSyntaxError) -> (RegexNode, captures: Int) {
    var parser = RegexParser(source, flags: flags)
    let node = try parser.alternation()
    if parser.index < parser.scalars.count {
      throw RegexSyntaxError("unmatched closing parenthesis", at: parser.index)
    }
    for reference in parser.references where reference.number > parser.captureCount {
      throw RegexSyntaxError("reference to non-existent subpattern", at: reference.offset)
    }
    return (node, parser.captureCount)
  }

  var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

  func peek(_ offset: Int) -> Unicode.Scalar? {
    index + offset < scalars.count ? scalars[index + offset] : nil
  }

  mutating func take(_ scalar: Unicode.Scalar) -> Bool {
    guard peek == scalar else { return false }
    index += 1
    return true
  }

  // MARK: Structure

  private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
    var branches = [try sequence()]
    while take("|") { branches.append(try sequence()) }
    return branches.count == 1 ? branches[0] : .alternation(branches)
  }

  private mutating func sequence() throws(RegexSyntaxError) -> RegexNode {
    var items: [RegexNode] = []
    while true {
      skipExtended()
      guard let scalar = peek, scalar != "|", scalar != ")" else { break }
      if scalar == "\\", peek(1) == "Q" {
        index += 2
        var run = quoted()
        guard let last = run.popLast() else { continue }
        items += run
        items.append(try quantified(last, at: index))
        continue
      }
      let start = index
      guard let atom = try atom() else { continue }
      items.append(try quantified(atom, at: start))
    }
    return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .sequence(items))
  }

  /// Under (?x): white space and `#` comments between items are not part of the pattern.
  private mutating func skipExtended() {
    guard flags.extended else { return }
    while let scalar = peek {
      if scalar.properties.isWhitespace {
        index += 1
      } else if scalar == "#" {
        while let next = peek, next != "\n" { index += 1 }
      } else {
        return
      }
    }
  }

  /// `\Q…\E`: every scalar up to `\E` (or the end) as itself.
  private mutating func quoted() -> [RegexNode] {
    var run: [RegexNode] = []
    while let scalar = peek {
      if scalar == "\\", peek(1) == "E" {
        index += 2
        break
      }
      index += 1
      run.append(literal(scalar))
    }
    return run
  }

  func literal(_ scalar: Unicode.Scalar) -> RegexNode {
    .scalar(scalar, caseless: flags.caseless && RegexCase.variants(of: scalar).count > 1)
  }

  // MARK: Quantifiers

  private mutating func quantified(_ atom: RegexNode, at start: Int) throws(RegexSyntaxError) -> RegexNode {
    skipExtended()
    let before = index
    guard let (min, max) = try quantifier() else { return atom }
    switch atom {
    case .assertion, .empty:
      throw RegexSyntaxError("quantifier does not follow a repeatable item", at: before)
    default: break
    }
    var mode = RegexRepetitionMode.greedy
    if take("?") {
      mode = .lazy
    } else if take("+") {
      mode = .possessive
    }
    if case .look = atom {
      // An assertion matches no text: repeating it more than once changes nothing (PCRE2).
      return .repetition(atom, min: Swift.min(min, 1), max: 1, mode: mode)
    }
    return .repetition(atom, min: min, max: max, mode: mode)
  }

  /// `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`; a `{` that begins none of
  /// these is a literal, as in PCRE2.
  private mutating func quantifier() throws(RegexSyntaxError) -> (Int, Int?)? {
    switch peek {
    case "*":
      index += 1
      return (0, nil)
    case "+":
      index += 1
      return (1, nil)
    case "?":
      index += 1
      return (0, 1)
    case "{":
      let start = index
      index += 1
      guard let min = number() else {
        index = start
        return nil
      }
      var max: Int? = min
      if take(",") { max = number() }
      guard take("}") else {
        index = start
        return nil
      }
      if min > Self.maxCount || (max ?? 0) > Self.maxCount {
        throw RegexSyntaxError("number too big in {} quantifier", at: start)
      }
      if let max, max < min { throw RegexSyntaxError("numbers out of order in {} quantifier", at: start) }
      return (min, max)
    default:
      return nil
    }
  }

  mutating func number() -> Int? {
    var value: Int?
    while let scalar = peek, (0x30...0x39).contains(scalar.value) {
      value = Swift.min((value ?? 0) * 10 + Int(scalar.value - 0x30), 1_000_000)
      index += 1
    }
    return value
  }

  // MARK: Atoms

  /// One item, or nil for what matches nothing (a comment, a flag setting).
  private mutating func atom() throws(RegexSyntaxError) -> RegexNode? {
    guard let scalar = peek else { return nil }
    let start = index
    index += 1
    switch scalar {
    case "(": return try group(at: start)
    case "[": return .set(try characterClass(at: start))
    case ".": return .any(dotAll: flags.dotAll)
    case "^": return .assertion(.lineStart(multiline: flags.multiline))
    case "$": return .assertion(.lineEnd(multiline: flags.multiline))
    case "\\": return try escape(at: start)
    case "*", "+", "?":
      throw RegexSyntaxError("quantifier does not follow a repeatable item", at: start)
    case "{":
      index = start
      if (try? quantifier()) ?? nil != nil {
        throw RegexSyntaxError("quantifier does not follow a repeatable item", at: start)
      }
      index = start + 1
      return literal(scalar)
    default: return literal(scalar)
    }
  }

  private mutating func group(at start: Int) throws(RegexSyntaxError) -> RegexNode? {
    if take("?") {
      if take("#") {
        while let scalar = peek, scalar != ")" { index += 1 }
        guard take(")") else { throw RegexSyntaxError("missing ) after (?# comment", at: start) }
        return nil
      }
      if take(":") { return try body(at: start) { .group($0, capture: nil) } }
      if take(">") { return try body(at: start) { .atomic($0) } }
      if take("=") { return try body(at: start) { .look($0, behind: false, negative: false) } }
      if take("!") { return try body(at: start) { .look($0, behind: false, negative: true) } }
      if peek == "<", peek(1) == "=" || peek(1) == "!" {
        let negative = peek(1) == "!"
        index += 2
        return try body(at: start) { .look($0, behind: true, negative: negative) }
      }
      if take("<") { return try named(closer: ">", at: start) }
      if take("'") { return try named(closer: "'", at: start) }
      if peek == "P", peek(1) == "<" {
        index += 2
        return try named(closer: ">", at: start)
      }
      if peek == "P", peek(1) == "=" {
        index += 2
        return try namedReference(closer: ")", at: start)
      }
      return try flagGroup(at: start)
    }
    captureCount += 1
    let number = captureCount
    return try body(at: start) { .group($0, capture: number) }
  }

  /// The alternatives of a group up to its `)`, with the flags restored after it.
  private mutating func body(at start: Int, _ make: (RegexNode) -> RegexNode) throws(RegexSyntaxError)
    -> RegexNode
  {
    depth += 1
    if depth > Self.maxDepth {
      throw RegexSyntaxError("parentheses are too deeply nested (more than \(Self.maxDepth))", at: start)
    }
    let saved = flags
    let inner = try alternation()
    flags = saved
    depth -= 1
    guard take(")") else { throw RegexSyntaxError("missing closing parenthesis", at: start) }
    return make(inner)
  }

  private mutating func named(closer: Unicode.Scalar, at start: Int) throws(RegexSyntaxError) -> RegexNode {
    let name = try groupName(closer: closer, at: start)
    if names[name] != nil { throw RegexSyntaxError("two named subpatterns have the same name", at: start) }
    captureCount += 1
    let number = captureCount
    names[name] = number
    return try body(at: start) { .group($0, capture: number) }
  }

  private mutating func groupName(closer: Unicode.Scalar, at start: Int) throws(RegexSyntaxError) -> String {
    var name = ""
    while let scalar = peek, scalar != closer {
      guard
        scalar.properties.isAlphabetic || scalar == "_" || (scalar.isASCII && ("0"..."9").contains(scalar))
      else { throw RegexSyntaxError("syntax error in subpattern name", at: index) }
      name.unicodeScalars.append(scalar)
      index += 1
    }
    guard !name.isEmpty, take(closer) else {
      throw RegexSyntaxError("subpattern name expected", at: start)
    }
    return name
  }

  mutating func namedReference(closer: Unicode.Scalar, at start: Int) throws(RegexSyntaxError)
    -> RegexNode
  {
    let name = try groupName(closer: closer, at: start)
    guard let number = names[name] else {
      throw RegexSyntaxError("reference to non-existent subpattern", at: start)
    }
    return .backreference(number, caseless: flags.caseless)
  }

  /// `(?i)`, `(?-i)`, `(?im-sx)`, `(?^)`, or with `:` a group they apply to.
  private mutating func flagGroup(at start: Int) throws(RegexSyntaxError) -> RegexNode? {
    var on = true
    var changed = flags
    if take("^") { changed = Flags() }
    while let scalar = peek, scalar != ")", scalar != ":" {
      index += 1
      switch scalar {
      case "-": on = false
      case "i": changed.caseless = on
      case "m": changed.multiline = on
      case "s": changed.dotAll = on
      case "x": changed.extended = on
      case "R", "0"..."9", "+", "&", "|", "(", "C":
        throw RegexSyntaxError("recursion, conditions and callouts are not supported", at: start)
      default:
        throw RegexSyntaxError("unrecognized character after (? or (?-", at: index - 1)
      }
    }
    if take(")") {
      // To the end of the enclosing group (restored when it closes).
      flags = changed
      return nil
    }
    guard take(":") else { throw RegexSyntaxError("missing closing parenthesis", at: start) }
    let saved = flags
    flags = changed
    defer { flags = saved }
    return try body(at: start) { .group($0, capture: nil) }
  }
}
