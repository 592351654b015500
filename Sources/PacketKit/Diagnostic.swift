/// Something worth telling about a message that still decoded: a value out
/// of its documented range, an unknown enum value, a security note.
public struct Diagnostic: Sendable, Hashable {
  public enum Severity: String, Sendable, Hashable, Comparable {
    case note, warning, error

    private var rank: Int {
      switch self {
      case .note: 0
      case .warning: 1
      case .error: 2
      }
    }
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
  }

  public var severity: Severity
  /// Stable machine-readable code, e.g. `out-of-range`.
  public var code: String
  public var text: String
  /// The bytes the diagnostic is about, when it is about some.
  public var range: Range<Int>?

  public init(_ severity: Severity, _ code: String, _ text: String, range: Range<Int>? = nil) {
    self.severity = severity
    self.code = code
    self.text = text
    self.range = range
  }

  public static func warning(_ code: String, _ text: String, range: Range<Int>? = nil) -> Self {
    .init(.warning, code, text, range: range)
  }

  public static func note(_ code: String, _ text: String, range: Range<Int>? = nil) -> Self {
    .init(.note, code, text, range: range)
  }
}
