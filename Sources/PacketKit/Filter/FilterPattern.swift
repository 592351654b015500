/// The regular expression of `matches` (`~`), in PCRE2's syntax as tshark
/// takes it, matching case-insensitively unless the pattern says `(?-i)`
/// (tshark's rule). A match may be anywhere in the value.
///
/// Matching backtracks, as PCRE2 does, so a pattern such as `^(a+)+$` can
/// take time exponential in the text; every match therefore runs against
/// a `FilterBudget` of steps, and a search that exhausts it is given up
/// (the value does not match) rather than left to run for hours.
public struct FilterPattern: Sendable {
  public let source: String
  let program: RegexProgram

  /// Compiles `source`; the error says what is wrong and where.
  public init(_ source: String) throws(RegexSyntaxError) {
    self.source = source
    var flags = RegexParser.Flags()
    flags.caseless = true
    let (node, captures) = try RegexParser.parse(source, flags: flags)
    program = try RegexProgram(node, captures: captures)
  }

  /// Whether the pattern matches somewhere in `text` (UTF-8), within the
  /// steps `budget` has left; false, with the budget marked exhausted,
  /// when they run out first.
  public func matches(_ text: UnsafeRawBufferPointer, budget: inout FilterBudget) -> Bool {
    guard !budget.isExhausted else { return false }
    var machine = RegexMachine(
      program: program, text: text, steps: budget.steps + FilterBudget.stepsPerByte * text.count)
    let found = machine.search()
    budget.steps = min(budget.steps, max(0, machine.steps))
    if machine.exhausted { budget.isExhausted = true }
    return found
  }
}

/// The steps one record's regular expressions may take together: enough
/// for any pattern that does not backtrack without bound (a million, and
/// a few more for every byte searched, so that long texts can be read),
/// far too few for one that does.
public struct FilterBudget: Sendable {
  public static let stepsPerRecord = 1_000_000
  public static let stepsPerByte = 4

  public var steps: Int
  /// Whether a match was given up on for want of steps (it did not match).
  public internal(set) var isExhausted = false

  public init(steps: Int = stepsPerRecord) {
    self.steps = steps
  }
}
