/// Why a message could not be encoded or crafted: a value outside its range,
/// a missing field, an unknown message kind.
public struct EncodeError: Error, Sendable, Hashable, CustomStringConvertible {
  public var code: String
  public var text: String
  /// The field at fault, by its protocol name.
  public var field: String?

  public init(code: String, text: String, field: String? = nil) {
    self.code = code
    self.text = text
    self.field = field
  }

  public var description: String { text }

  public static func outOfRange(
    _ field: String, _ value: String, allowed: String, unit: FieldUnit? = nil
  ) -> EncodeError {
    let unitText = unit.map { " \($0)" } ?? ""
    return EncodeError(
      code: "out-of-range",
      text: "\(field) \(value)\(unitText) is out of range: allowed is \(allowed)\(unitText)",
      field: field)
  }
}
