/// A display filter that cannot be compiled: what is wrong, and the column
/// (1-based, in characters) where it is, so a front end can print one line
/// that points at the spot.
public struct FilterSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var column: Int

  public init(_ message: String, column: Int) {
    self.message = message
    self.column = column
  }

  /// "expected a value after '==' at column 17".
  public var description: String { "\(message) at column \(column)" }
}
