/// JSON parsed into a tree of `JSONValue`s, by `JSONTape`'s strict RFC 8259
/// parser, with its limits on size, depth and element count.
public enum JSONParser {
  public struct Limits: Sendable {
    public var maxBytes: Int
    public var maxDepth: Int
    public var maxElements: Int

    public init(maxBytes: Int = 16 << 20, maxDepth: Int = 64, maxElements: Int = 1 << 20) {
      self.maxBytes = maxBytes
      self.maxDepth = maxDepth
      self.maxElements = maxElements
    }

    public static let `default` = Limits()
  }

  /// Parses exactly one JSON value (surrounding white space allowed) into a
  /// tree that owns its values (see `JSONTape` for the grammar and errors).
  public static func parse(
    _ bytes: UnsafeRawBufferPointer, limits: Limits = .default
  ) throws(DecodeError) -> JSONValue {
    let tape = try JSONTape.parse(bytes, limits: limits)
    return withExtendedLifetime(tape) { JSONValue(tape.root) }
  }

  public static func parse(_ bytes: [UInt8], limits: Limits = .default) throws(DecodeError)
    -> JSONValue
  {
    try bytes.withUnsafeBytes { buffer in
      Result { () throws(DecodeError) in try parse(buffer, limits: limits) }
    }.get()
  }
}
