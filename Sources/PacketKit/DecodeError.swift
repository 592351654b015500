/// Structural damage in a payload: what is wrong and where. Every decode
/// error names a byte offset, a JSON key path, or both.
///
/// The words (`text`, `expected`, `found`) are written when they are first
/// read, not when the error is thrown: a probe or the fuzz runner has a
/// decoder refuse input hundreds of thousands of times a second and reads
/// only `code`, while a person reading a damaged packet reads them once.
/// The initializer takes them as autoclosures, so a call site reads like a
/// plain string, and `@Sendable`, so the compiler refuses one that would
/// capture the input's buffer (which may be gone when the words are read)
/// or a variable (which may have changed).
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Stable machine-readable code, e.g. `truncated`, `bad-magic`, `bad-check`.
  public var code: String
  /// Byte offset in the payload where the damage is.
  public var offset: Int?
  /// JSON key path (`payload.intrinsics.fx`) for JSON protocols.
  public var keyPath: String?

  private var writeText: @Sendable () -> String
  private var writeExpected: @Sendable () -> String?
  private var writeFound: @Sendable () -> String?

  public init(
    code: String, text: @autoclosure @escaping @Sendable () -> String, offset: Int? = nil,
    keyPath: String? = nil, expected: @autoclosure @escaping @Sendable () -> String? = nil,
    found: @autoclosure @escaping @Sendable () -> String? = nil
  ) {
    self.code = code
    self.offset = offset
    self.keyPath = keyPath
    writeText = text
    writeExpected = expected
    writeFound = found
  }

  /// One sentence for a person.
  public var text: String {
    get { writeText() }
    set { writeText = { newValue } }
  }

  public var expected: String? {
    get { writeExpected() }
    set { writeExpected = { newValue } }
  }

  public var found: String? {
    get { writeFound() }
    set { writeFound = { newValue } }
  }

  public var description: String {
    let text = text
    guard let offset, !text.contains("offset \(offset)") else { return text }
    return "\(text) (at offset \(offset))"
  }

  public static func == (lhs: DecodeError, rhs: DecodeError) -> Bool {
    lhs.code == rhs.code && lhs.offset == rhs.offset && lhs.keyPath == rhs.keyPath
      && lhs.text == rhs.text && lhs.expected == rhs.expected && lhs.found == rhs.found
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(offset)
    hasher.combine(keyPath)
    hasher.combine(text)
  }
}
