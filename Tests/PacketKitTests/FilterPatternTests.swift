import Foundation
import Testing

@testable import PacketKit

/// `matches`'s regular expressions: PCRE2's syntax, checked against
/// Python's `re` (whose syntax agrees with PCRE2's on every case here), the
/// step budget that stops exponential backtracking, and the nesting limits
/// that keep a hostile filter or pattern from overflowing the stack.
@Suite struct FilterPatternTests {
  /// Whether `pattern` matches `text`, nil when it gave up for want of steps.
  static func match(_ pattern: String, _ text: String, steps: Int = FilterBudget.stepsPerRecord) throws
    -> Bool?
  {
    let compiled = try FilterPattern(pattern)
    var budget = FilterBudget(steps: steps)
    var text = text
    let found = text.withUTF8 { compiled.matches(UnsafeRawBufferPointer($0), budget: &budget) }
    return budget.isExhausted ? nil : found
  }

  /// Patterns and texts whose answer Python's `re` gives (with IGNORECASE,
  /// as a filter's `matches` ignores case, and `re.search`, as it finds a
  /// match anywhere). Every construct the engine has is here.
  static let cases: [(String, String)] = [
    ("^hel+o", "Hello"), ("^f-00[0-4]", "f-0003"), ("^f-00[0-4]", "f-0105"), ("-000[13]$", "f-0001"),
    ("^(bad-json|truncated)$", "truncated"), ("^(bad-json|truncated)$", "truncatedx"), ("a*", ""),
    ("^$", ""), ("^$", "a"), ("(a*)*b", "aaaac"), ("(a*)*b", "aaaab"), ("é", "É"),
    (#"\d+\.\d+"#, "v1.25"), (#"\bfoo\b"#, "a foo b"), (#"\bfoo\b"#, "afoob"), (#"\Bo"#, "foo"),
    ("(?<=a)b", "ab"), ("(?<=a)b", "cb"), ("(?<!a)b", "cb"), ("(?<!a)b", "ab"), ("a(?=b)", "ab"),
    ("a(?!b)", "ab"), ("a(?!b)", "ac"), (#"(a)\1"#, "aA"), (#"(?P<x>ab)(?P=x)"#, "abAB"), ("a{2,3}$", "caaa"),
    ("^a{2,3}$", "aaaa"), ("^a{2}$", "aa"), ("^a{0,}b", "aaab"), ("a.c", "a\nc"), ("(?s)a.c", "a\nc"),
    ("^b", "a\nb"), ("(?m)^b", "a\nb"), ("(?m)a$", "a\nb"), ("a$", "a\n"), (#"\Aa"#, "ba"),
    ("a*?b", "aaab"), ("^(a|ab)(c|bcd)(d*)$", "abcd"), ("[a-c]+", "xxbxx"), (#"[\d-]+$"#, "12-3"),
    (#"\x41"#, "a"), ("☺+", "x☺☺"), ("^.{3}$", "a☺b"), (#"(?x) a b # comment"#, "ab"),
    ("(?:ab)+$", "ababab"), ("[^ab]", "abab"), ("[^ab]", "abc"), (#"[\]]"#, "]"), ("[]a]", "]"),
    (#"\s\S\w\W"#, " xa!"), (#"^\D+$"#, "abc"), ("(?i)straße", "STRASSE"), ("x(?-i:A)", "Xa"),
    (#"(a+|b+)*c"#, "ababab"), ("^(?:a|b)*c", "abababc"), ("(foo|foobar)baz", "foobarbaz"), ("", "anything"),
    ("a|", "zzz"), (#"\t\n"#, "a\t\nb"), ("(?=.*[A-Z])(?=.*\\d)", "aB3"),
    ("colou?r", "COLOR"), ("^[-+]?[0-9]*\\.?[0-9]+$", "-3.14"), ("(\\w+)@(\\w+)\\.com", "me@example.com"),
  ]

  @Test func agreesWithPythonOnEveryConstruct() throws {
    let python = try #require(Self.which("python3"), "needs python3")
    let script = """
      import json, re, sys
      for pattern, text in json.load(sys.stdin):
          print(1 if re.search(pattern, text, re.IGNORECASE) else 0)
      """
    let input = try JSONSerialization.data(withJSONObject: Self.cases.map { [$0.0, $0.1] })
    let answers = try Self.run(python, ["-c", script], input: input).split(separator: "\n").map { $0 == "1" }
    #expect(answers.count == Self.cases.count)
    for ((pattern, text), expected) in zip(Self.cases, answers) {
      #expect(try Self.match(pattern, text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }
  }

  /// Where PCRE2 and Python part: PCRE2's answers, from its pattern
  /// documentation (pcre2pattern(3)).
  @Test(arguments: [
    (#"\x{263A}"#, "☺", true), (#"a\Z"#, "a\n", true), (#"a\z"#, "a\n", false),
    ("[[:digit:]]+x", "12x", true),
    ("[[:^alpha:]]", "a1", true), ("[[:^alpha:]]", "ab", false), (#"\p{Lu}"#, "abc", false),
    (#"(?-i)\p{Lu}"#, "aBc", true), (#"\p{L}+$"#, "ünïcödé", true), (#"\QA.B\E"#, "a.b", true),
    (#"\QA.B\E"#, "axb", false), ("(?>a+)a", "aaa", false), ("a++a", "aaa", false), (#"\R"#, "a\r\nb", true),
    ("(?#a comment)x", "x", true),
  ])
  func pcre2sOwnAnswers(pattern: String, text: String, expected: Bool) throws {
    #expect(try Self.match(pattern, text) == expected)
  }

  @Test func exponentialBacktrackingGivesUpWithinTheBudget() throws {
    let hostile = String(repeating: "a", count: 25) + "!"
    #expect(try Self.match("^(a+)+$", hostile) == nil)
    #expect(try Self.match(#"^(\w+\s?)*$"#, "An input string that takes a long time or even hangs!") == nil)
    // The same patterns on texts they match answer at once.
    #expect(try Self.match("^(a+)+$", String(repeating: "a", count: 25)) == true)
    #expect(try Self.match("^(a+)+$", "b") == false)
  }

  @Test func longTextsAreSearchedLinearly() throws {
    let long = String(repeating: "a", count: 200_000)
    #expect(try Self.match(".*x", long) == false)
    #expect(try Self.match(".*x", long + "x") == true)
    #expect(try Self.match("b", long + "b") == true)
    #expect(try Self.match("(?:a|b)*c", long) == false)
  }

  @Test func aRecordsPatternsShareOneBudget() throws {
    let pattern = try FilterPattern("^(a+)+$")
    var budget = FilterBudget(steps: 1000)
    var text = String(repeating: "a", count: 30) + "!"
    #expect(!text.withUTF8 { pattern.matches(UnsafeRawBufferPointer($0), budget: &budget) })
    #expect(budget.isExhausted)
    var plain = "aaa"
    // Once spent, a later pattern of the same record does not run.
    #expect(!plain.withUTF8 { pattern.matches(UnsafeRawBufferPointer($0), budget: &budget) })
  }

  @Test(arguments: [
    ("(", "missing closing parenthesis"), (")", "unmatched closing parenthesis"),
    ("[a", "missing terminating ]"), ("a**", "quantifier does not follow a repeatable item"),
    ("a{3,2}", "numbers out of order"), (#"\k<nope>"#, "non-existent subpattern"),
    (#"\2(a)"#, "non-existent"),
    (#"\p{Nope}"#, "unknown property"), ("(?R)", "recursion"), ("[z-a]", "range out of order"),
    ("a{1000}{1000}", "quantifier does not follow"), ("(?:a{1000}){1000}", "too large"),
    (String(repeating: "(", count: 200) + String(repeating: ")", count: 200), "too deeply nested"),
  ])
  func malformedPatternsSayWhy(pattern: String, says: String) throws {
    #expect(throws: RegexSyntaxError.self) { try FilterPattern(pattern) }
    do {
      _ = try FilterPattern(pattern)
    } catch {
      #expect(error.message.contains(says), "\(pattern): \(error)")
    }
  }

  // MARK: Nesting of the filter itself

  @Test func deepParenthesesAndNotChainsAreAnErrorWithTheColumn() throws {
    let vocabulary = DisplayFilterTests.Vocabulary()
    let limit = FilterParser<DisplayFilterTests.Vocabulary>.maxNesting
    let fits = String(repeating: "(", count: limit) + "m" + String(repeating: ")", count: limit)
    #expect(try DisplayFilter(fits, vocabulary: vocabulary).matches(DisplayFilterTests.record))
    for deep in [
      String(repeating: "(", count: 5000) + "m" + String(repeating: ")", count: 5000),
      String(repeating: "!", count: 100_000) + "m", String(repeating: "not ", count: 1000) + "m",
    ] {
      #expect(throws: FilterSyntaxError.self) { try DisplayFilter(deep, vocabulary: vocabulary) }
      do {
        _ = try DisplayFilter(deep, vocabulary: vocabulary)
      } catch {
        #expect(error.message.contains("deeper than \(limit) levels"))
        let column = deep.hasPrefix("not") ? 4 * limit + 1 : limit + 1
        #expect(error.column == column, "\(error)")
      }
    }
  }

  @Test func longChainsOfOrAndAndStayFlat() throws {
    let vocabulary = DisplayFilterTests.Vocabulary()
    let terms = (0..<20_000).map { "n == \($0)" }
    #expect(
      try DisplayFilter(terms.joined(separator: " or "), vocabulary: vocabulary).matches(
        DisplayFilterTests.record))
    #expect(
      try !DisplayFilter(terms.joined(separator: " and "), vocabulary: vocabulary).matches(
        DisplayFilterTests.record))
  }

  // MARK: Helpers

  static func which(_ tool: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
      let path = "\(directory)/\(tool)"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }

  static func run(_ path: String, _ arguments: [String], input: Data) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self)
  }
}
