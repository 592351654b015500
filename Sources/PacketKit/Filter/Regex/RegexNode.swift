/// A regular expression of `matches`, parsed: PCRE's syntax for what a
/// display filter uses. The flags in force where each part was written
/// (`(?i)`, `(?s)`, `(?m)`) are already applied to it.
indirect enum RegexNode: Sendable {
  case empty
  /// One scalar; `caseless`: any of its case forms.
  case scalar(Unicode.Scalar, caseless: Bool)
  /// `.`: any scalar, a newline only under `(?s)`.
  case any(dotAll: Bool)
  case set(RegexSet)
  case sequence([RegexNode])
  case alternation([RegexNode])
  /// A group; `capture` is its number when it captures.
  case group(RegexNode, capture: Int?)
  case repetition(RegexNode, min: Int, max: Int?, mode: RegexRepetitionMode)
  case assertion(RegexAssertion)
  case look(RegexNode, behind: Bool, negative: Bool)
  /// `(?>…)`: once matched, never tried another way.
  case atomic(RegexNode)
  case backreference(Int, caseless: Bool)
}

enum RegexRepetitionMode: Sendable {
  case greedy, lazy, possessive
}

/// The zero-width tests.
enum RegexAssertion: Sendable {
  /// `^` (after any newline too under `(?m)`).
  case lineStart(multiline: Bool)
  /// `$`: the end, or before a newline that ends the text (before any newline under `(?m)`).
  case lineEnd(multiline: Bool)
  /// `\A`.
  case textStart
  /// `\z`.
  case textEnd
  /// `\Z`: the end or before a final newline.
  case textEndBeforeNewline
  /// `\b`, or `\B` when negated.
  case wordBoundary(negated: Bool)
}

/// Why a pattern does not compile, and where (a byte offset into it).
public struct RegexSyntaxError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var offset: Int

  init(_ message: String, at offset: Int) {
    self.message = message
    self.offset = offset
  }

  public var description: String { "\(message) at offset \(offset)" }
}
