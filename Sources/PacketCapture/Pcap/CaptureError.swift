/// Why a capture could not be opened or filtered: one line for a person,
/// already naming the file or the filter expression.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
  public var text: String

  public init(_ text: String) {
    self.text = text
  }

  public var description: String { text }
}
