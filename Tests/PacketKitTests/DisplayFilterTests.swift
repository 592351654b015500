import Testing

@testable import PacketKit

/// The display filter language on a record made here: every operator and
/// connective parsed and evaluated, precedence, literals, occurrences,
/// absent fields, and each kind of error with its column.
@Suite struct DisplayFilterTests {
  /// Names `m` (a message, its tree below) and `n` (a lone number).
  struct Vocabulary: FilterVocabulary {
    func resolve(_ parts: [Substring]) -> (root: Int, parts: Int)? {
      switch parts[0] {
      case "m": (0, 1)
      case "n" where parts.count == 1: (1, 1)
      default: nil
      }
    }
    func unknown(_ name: String) -> String { "fields are m and n" }
  }

  struct Record: FilterRecord {
    var nodes: [DissectionNode]
    var number: Int64?

    func visitValues(of field: FilterField, _ visit: (FilterValue) -> Bool) {
      if field.root == 0 { field.path.visit(nodes, visit) }
      if field.root == 1, let number { _ = visit(.integer(number)) }
    }
  }

  static func array(_ name: String, _ items: [DissectionNode]) -> DissectionNode {
    DissectionNode(group: name, shape: .array, range: 0..<0, children: items)
  }

  static func leaf(_ name: String, _ value: FieldValue) -> DissectionNode {
    DissectionNode(name, value, range: 0..<0)
  }

  static let record = Record(
    nodes: [
      leaf("state", .enumeration(name: "FAULT", raw: 2)),
      leaf("left", .number(95.5)),
      leaf("right", .integer(-20)),
      leaf("name", .string("Hello \"W\"")),
      leaf("ok", .bool(true)),
      leaf("magic", .bytes([0x5A, 0xA5])),
      leaf("big", .unsigned(UInt64.max)),
      DissectionNode(
        group: "header", range: 0..<0,
        children: [leaf("msg_type", .enumeration(name: "TELEMETRY", raw: 16)), leaf("version", .unsigned(1))]),
      array(
        "pose",
        [
          array("[0]", [leaf("[0]", .integer(1)), leaf("[1]", .integer(2))]),
          array("[1]", [leaf("[0]", .integer(3)), leaf("[1]", .integer(4))]),
        ]),
      array(
        "poses",
        [
          DissectionNode(
            group: "[0]", range: 0..<0,
            children: [leaf("personId", .string("p1")), leaf("conf", .number(0.5))]),
          DissectionNode(
            group: "[1]", range: 0..<0,
            children: [leaf("personId", .string("p2")), leaf("conf", .number(0.9))]),
        ]),
      leaf("info", .object([.init("model", .string("iPhone16,1")), .init("lidar", .bool(false))])),
    ],
    number: 7)

  func passes(_ text: String, _ record: Record = Self.record) throws -> Bool {
    try DisplayFilter(text, vocabulary: Vocabulary()).matches(record)
  }

  func error(_ text: String) -> FilterSyntaxError? {
    do {
      _ = try DisplayFilter(text, vocabulary: Vocabulary())
      return nil
    } catch {
      return error
    }
  }

  // MARK: Operators

  @Test func equal() throws {
    #expect(try passes("m.left == 95.5"))
    #expect(try passes("m.left eq 95.5"))
    #expect(try passes("m.right == -20"))
    #expect(try !passes("m.right == 20"))
    #expect(try passes("m.header.version == 1"))
    #expect(try passes("m.name == \"Hello \\\"W\\\"\""))
    #expect(try !passes("m.name == \"hello \\\"w\\\"\""), "text is case-sensitive")
    #expect(try passes("m.big == 18446744073709551615"))
    #expect(try passes("m.big == 0xFFFFFFFFFFFFFFFF"))
    #expect(try !passes("m.big == -1"))
  }

  @Test func enumerationsCompareByNameIgnoringCaseOrByNumber() throws {
    #expect(try passes("m.state == \"FAULT\""))
    #expect(try passes("m.state == \"fault\""))
    #expect(try passes("m.state == 2"))
    #expect(try !passes("m.state == \"ARMED\""))
    #expect(try !passes("m.state == 1"))
    #expect(try passes("m.header.msg_type == 0x10"))
    #expect(try passes("m.header.msg_type == \"telemetry\""))
  }

  @Test func booleansAndBytes() throws {
    #expect(try passes("m.ok == true"))
    #expect(try passes("m.ok == TRUE"))
    #expect(try passes("m.ok == True"))
    #expect(try passes("m.ok == 1"))
    #expect(try !passes("m.ok == false"))
    #expect(try passes("m.info.lidar == False"))
    #expect(try passes("m.magic == \"5aa5\""))
    #expect(try passes("m.magic == \"5AA5\""))
    #expect(try passes("m.magic contains \"a5\""))
    #expect(try !passes("m.magic == \"5a\""))
  }

  @Test func notEqualHoldsForEveryOccurrenceAndNeedsOne() throws {
    #expect(try passes("m.left != 95"))
    #expect(try passes("m.left ne 95"))
    #expect(try !passes("m.left != 95.5"))
    #expect(try passes("m.pose != 5"))
    #expect(try !passes("m.pose != 3"), "3 is one of the occurrences")
    #expect(try !passes("m.absent != 1"), "an absent field satisfies no comparison")
    #expect(try !passes("n != 1", Record(nodes: [], number: nil)))
    #expect(try passes("not n == 1", Record(nodes: [], number: nil)))
    #expect(try !passes("m.name != 5"), "text and a number do not compare")
  }

  @Test func allEqualAndAnyNotEqual() throws {
    #expect(try passes("m.pose == 4"))
    #expect(try !passes("m.pose === 4"))
    #expect(try passes("m.left === 95.5"))
    #expect(try passes("m.pose !== 4"))
    #expect(try !passes("m.left !== 95.5"))
    #expect(try passes("m.left all_eq 95.5"))
    #expect(try passes("m.pose any_ne 1"))
  }

  @Test func orderings() throws {
    #expect(try passes("m.left > 90"))
    #expect(try passes("m.left gt 90"))
    #expect(try !passes("m.left > 95.5"))
    #expect(try passes("m.left >= 95.5"))
    #expect(try passes("m.left ge 95.5"))
    #expect(try passes("m.right < 0"))
    #expect(try passes("m.right lt -19.5"))
    #expect(try passes("m.right <= -20"))
    #expect(try passes("m.right le -20"))
    #expect(try !passes("m.right < -20"))
    #expect(try passes("m.state > 1"), "an enumeration orders by its number")
    #expect(try passes("m.name > \"H\""))
    #expect(try passes("m.name < \"I\""))
    #expect(try passes("m.poses.conf > 0.8"))
    #expect(try !passes("m.poses.conf > 0.95"))
    #expect(try passes("90 < m.left"), "a literal on the left")
    #expect(try passes("m.left > m.right"), "field against field")
    #expect(try !passes("m.left < m.right"))
  }

  @Test func contains() throws {
    #expect(try passes("m.name contains \"llo\""))
    #expect(try !passes("m.name contains \"LLO\""), "contains is case-sensitive on text")
    #expect(try passes("m.state contains \"aul\""), "an enumeration by its name, ignoring case")
    #expect(try !passes("m.left contains \"9\""), "numbers contain nothing")
    #expect(try passes("m.info.model contains \"16,\""))
  }

  @Test func matchesIsCaseInsensitiveUnlessTold() throws {
    #expect(try passes("m.name matches \"^hel+o\""))
    #expect(try passes("m.name ~ \"W\\\"$\""))
    #expect(try !passes("m.name matches \"(?-i)^hel\""))
    #expect(try passes("m.name matches \"(?-i)^Hel\""))
    #expect(try passes("m.state matches \"^f.u\""))
    #expect(try passes("m.poses.personId matches \"2$\""))
    #expect(try !passes("m.left matches \"9\""), "a number is not text")
  }

  @Test func membership() throws {
    #expect(try passes("m.right in {1, -20}"))
    #expect(try passes("m.right in {1 -20}"))
    #expect(try passes("m.left in {90..100}"))
    #expect(try !passes("m.left in {0..95}"))
    #expect(try passes("m.state in {\"ARMED\", \"fault\"}"))
    #expect(try !passes("m.absent in {1}"))
  }

  @Test func existence() throws {
    #expect(try passes("m"))
    #expect(try passes("m.header"))
    #expect(try passes("m.header.msg_type"))
    #expect(try passes("m.poses.personId"))
    #expect(try !passes("m.nope"))
    #expect(try !passes("m.header.nope"))
    #expect(try !passes("m.left.nope"))
    #expect(try passes("not m.nope"))
    #expect(try passes("m", Record(nodes: [], number: nil)), "the message exists even with no fields")
  }

  @Test func numbersInEveryForm() throws {
    #expect(try passes("n == 0x7"))
    #expect(try passes("n == 07"), "a leading 0 is octal, as in tshark")
    #expect(try passes("n == 0b111"))
    #expect(try passes("n == 7.0"))
    #expect(try passes("n == 0.7e1"))
    #expect(try passes("n > -1"))
    #expect(try passes("n == +7"))
    #expect(try passes("n < .8e1"))
  }

  @Test func stringEscapes() throws {
    let record = Record(nodes: [Self.leaf("s", .string("HEAD\t\\é\"'\n"))], number: nil)
    #expect(try passes(#"m.s == "\x48EAD\t\\\u00e9\"\'\n""#, record))
    #expect(try passes(#"m.s == "\110EAD\011\\\U000000e9\"'\012""#, record))
    #expect(
      try passes(#"m.s contains r"\\""#, Record(nodes: [Self.leaf("s", .string(#"a\\b"#))], number: nil)))
    #expect(
      try passes(#"m.s matches r"^a\\\\b$""#, Record(nodes: [Self.leaf("s", .string(#"a\\b"#))], number: nil))
    )
  }

  // MARK: Connectives and precedence

  @Test func connectives() throws {
    #expect(try passes("m.left > 90 and m.right < 0"))
    #expect(try passes("m.left > 90 && m.right < 0"))
    #expect(try !passes("m.left > 90 and m.right > 0"))
    #expect(try passes("m.left > 100 or m.right < 0"))
    #expect(try passes("m.left > 100 || m.right < 0"))
    #expect(try !passes("m.left > 100 or m.right > 0"))
    #expect(try passes("not m.left > 100"))
    #expect(try passes("!m.left > 100"))
    #expect(try passes("! m.left > 100"))
    #expect(try !passes("not not m.left > 100"))
    #expect(try passes("(m.left > 100 or m.right < 0) and m.ok"))
  }

  @Test func notBindsTighterThanAndWhichBindsTighterThanOr() throws {
    // true or (false and false): true; (true or false) and false would be false.
    #expect(try passes("m.ok or m.nope and m.nope"))
    #expect(try !passes("(m.ok or m.nope) and m.nope"))
    // (not true) and false, not (true and false).
    #expect(try !passes("not m.ok and m.nope"))
    #expect(try passes("not (m.ok and m.nope)"))
    // (not false) or false: true.
    #expect(try passes("not m.nope or m.nope"))
    // and groups to the left, like or: a and b or c and d.
    #expect(try passes("m.nope and m.ok or m.ok and m.left > 1"))
    #expect(try passes("m.nope || m.ok && !m.nope"))
  }

  // MARK: Errors, with their columns

  @Test func errorsPointAtTheColumn() {
    let cases: [(String, String, Int)] = [
      ("m.left ==", "expected a value after '=='", 10),
      ("m.left == 1 and", "expected a test after 'and'", 16),
      ("m.left == 1 or  ", "expected a test after 'or'", 15),
      ("not", "expected a test after 'not'", 4),
      ("(m.left == 1", "expected ')' to close the '(' at column 1, found the end of the filter", 13),
      ("m.left == 1)", "')' closes no '('", 12),
      ("()", "empty '()'", 2),
      ("m.left = 1", "'=' is not an operator (compare with '==')", 8),
      ("x.y == 1", "'x.y' is not a field: fields are m and n", 1),
      ("m.left == 1 or n.x", "'n.x' is not a field: fields are m and n", 16),
      ("m.name == \"abc", "unterminated string (no closing '\"')", 11),
      ("m.left == 1 m.right", "expected 'and', 'or' or the end of the filter before 'm.right'", 13),
      ("m.name matches \"(\"", "not a valid regular expression", 16),
      ("m.name matches 5", "expected a regular expression in double quotes after 'matches'", 16),
      ("", "the filter is empty", 1),
      ("   ", "the filter is empty", 1),
      ("m.left == 08", "'08' is not a number", 11),
      ("m.left == 1x", "'1x' is not a number", 11),
      ("m.left & 1", "bitwise '&' is not supported", 8),
      ("m.left | 1", "'|' is not an operator", 8),
      ("m.left == \"\\q\"", "unknown escape '\\q' in a string", 12),
      ("m.left == \"\\x\"", "'\\x' needs one or two hex digits", 12),
      ("== 1", "expected a field, found '=='", 1),
      ("1 == 2", "expected a field after '=='", 6),
      ("1 contains m", "expected a comparison ('==', '<' …) after 1, found 'contains'", 3),
      ("m.left in 1", "expected '{' after 'in'", 11),
      ("m.left in {1", "expected '}' to close the '{' at column 11", 13),
      ("m.left in {}", "the set is empty", 11),
      ("m.left in {\"a\"..2}", "a range '..' joins two numbers", 15),
      ("m..left", "'m..left' is not a field name", 1),
      ("m.left == 1 and $", "unexpected '$'", 17),
    ]
    for (text, message, column) in cases {
      let error = self.error(text)
      #expect(error?.message.hasPrefix(message) == true, "\(text): \(String(describing: error))")
      #expect(error?.column == column, "\(text): \(String(describing: error))")
    }
  }

  @Test func anErrorReadsAsOneLine() {
    #expect(error("legctrl ==")?.description == "'legctrl' is not a field: fields are m and n at column 1")
    #expect(error("m.state == ")?.description == "expected a value after '==' at column 11")
  }
}
