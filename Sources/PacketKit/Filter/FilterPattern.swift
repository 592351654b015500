/// The regular expression of `matches` (`~`). tshark's are PCRE2 and match
/// case-insensitively unless the pattern says `(?-i)`; these are Swift
/// regular expressions (PCRE's syntax for everything a filter is likely to
/// use), ignoring case the same way. A match may be anywhere in the value.
public struct FilterPattern: @unchecked Sendable {
  // Unchecked: a Regex is an immutable value once compiled; it is only read.
  public let source: String
  private let regex: Regex<AnyRegexOutput>

  /// Compiles `source`; the error's text is the regex parser's.
  public init(_ source: String) throws {
    self.source = source
    regex = try Regex(source).ignoresCase()
  }

  /// Whether the pattern matches somewhere in `text` (UTF-8).
  public func matches(_ text: UnsafeRawBufferPointer) -> Bool {
    // Regex reads Strings only; one of at most 15 bytes is made without allocating.
    let string = String(decoding: text, as: UTF8.self)
    return (try? regex.firstMatch(in: string)) != nil
  }
}
