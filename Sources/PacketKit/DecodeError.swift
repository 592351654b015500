/// Structural damage in a payload: what is wrong and where. Every decode
/// error names a byte offset, a JSON key path, or both.
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Stable machine-readable code, e.g. `truncated`, `bad-magic`, `bad-check`.
  public var code: String
  /// One sentence for a person.
  public var text: String
  /// Byte offset in the payload where the damage is.
  public var offset: Int?
  /// JSON key path (`payload.intrinsics.fx`) for JSON protocols.
  public var keyPath: String?
  public var expected: String?
  public var found: String?

  public init(
    code: String, text: String, offset: Int? = nil, keyPath: String? = nil,
    expected: String? = nil, found: String? = nil
  ) {
    self.code = code
    self.text = text
    self.offset = offset
    self.keyPath = keyPath
    self.expected = expected
    self.found = found
  }

  public var description: String {
    var parts = [text]
    if let offset, !text.contains("offset \(offset)") { parts.append("(at offset \(offset))") }
    return parts.joined(separator: " ")
  }
}
