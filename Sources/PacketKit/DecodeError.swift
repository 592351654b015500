/// Structural damage in a payload: what is wrong and where. Every decode
/// error names a byte offset, a JSON key path, or both.
///
/// The words (`text`, `expected`, `found`) are written when they are first
/// read, not when the error is thrown: a probe or the fuzz runner has a
/// decoder refuse input hundreds of thousands of times a second and reads
/// only `code`, while a person reading a damaged packet reads them once.
/// They come from one closure, given as a trailing closure:
///
///     throw DecodeError(code: "bad-version", offset: 0) {
///       .init("version at offset 0 is \(version); expected 1", expected: "01")
///     }
///
/// One closure captures what all three words need in one context, and one
/// that captures nothing allocates nothing, so a refusal whose words are
/// never read (a probe, the fuzzer) costs next to nothing. The closure is
/// `@Sendable`, so the compiler refuses one that would capture the input's
/// buffer (which may be gone when the words are read) or a variable (which
/// may have changed).
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The words for a person: one sentence, and what was expected and found
  /// where that is short (`01`, `4 bytes`).
  public struct Words: Sendable {
    public var text: String
    public var expected: String?
    public var found: String?

    public init(_ text: String, expected: String? = nil, found: String? = nil) {
      self.text = text
      self.expected = expected
      self.found = found
    }
  }

  /// Stable machine-readable code, e.g. `truncated`, `bad-magic`, `bad-check`.
  public var code: String
  /// Byte offset in the payload where the damage is.
  public var offset: Int?
  /// JSON key path (`payload.intrinsics.fx`) for JSON protocols.
  public var keyPath: String?

  private var writeWords: @Sendable () -> Words

  public init(
    code: String, offset: Int? = nil, keyPath: String? = nil, words: @escaping @Sendable () -> Words
  ) {
    self.code = code
    self.offset = offset
    self.keyPath = keyPath
    writeWords = words
  }

  /// An error with its words given at once: the simple form for a codec of
  /// one's own (the closure form spares a hot decoder the string work when
  /// nobody reads the words).
  public init(
    code: String, offset: Int? = nil, keyPath: String? = nil, text: String, expected: String? = nil,
    found: String? = nil
  ) {
    let words = Words(text, expected: expected, found: found)
    self.init(code: code, offset: offset, keyPath: keyPath) { words }
  }

  /// All three words, written now.
  public var words: Words { writeWords() }

  /// One sentence for a person.
  public var text: String {
    get { writeWords().text }
    set { replaceWords { $0.text = newValue } }
  }

  public var expected: String? {
    get { writeWords().expected }
    set { replaceWords { $0.expected = newValue } }
  }

  public var found: String? {
    get { writeWords().found }
    set { replaceWords { $0.found = newValue } }
  }

  private mutating func replaceWords(_ change: (inout Words) -> Void) {
    var words = writeWords()
    change(&words)
    writeWords = { [words] in words }
  }

  public var description: String {
    let text = text
    guard let offset, !text.contains("offset \(offset)") else { return text }
    return "\(text) (at offset \(offset))"
  }

  public static func == (lhs: DecodeError, rhs: DecodeError) -> Bool {
    guard lhs.code == rhs.code, lhs.offset == rhs.offset, lhs.keyPath == rhs.keyPath else { return false }
    let (left, right) = (lhs.words, rhs.words)
    return left.text == right.text && left.expected == right.expected && left.found == right.found
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(offset)
    hasher.combine(keyPath)
    hasher.combine(text)
  }
}
