/// Why a message could not be encoded or crafted: a value outside its range,
/// a missing field, an unknown message kind.
public struct EncodeError: Error, Sendable, Hashable, CustomStringConvertible {
  public var code: String
  public var text: String
  /// The field at fault, by its protocol name.
  public var field: String?
  /// Whether `--force` crafts it anyway: a value outside its documented
  /// range, a file that is not what the field should hold. Not a value
  /// too wide for the field on the wire, which nothing can write.
  public var forceCrafts: Bool

  public init(code: String, text: String, field: String? = nil, forceCrafts: Bool = false) {
    self.code = code
    self.text = text
    self.field = field
    self.forceCrafts = forceCrafts
  }

  public var description: String { text }

  public static func outOfRange(
    _ field: String, _ value: String, allowed: String, unit: FieldUnit? = nil
  ) -> EncodeError {
    let unitText = unit.map { " \($0)" } ?? ""
    return EncodeError(
      code: "out-of-range",
      text: "\(field) \(value)\(unitText) is out of range: allowed is \(allowed)\(unitText)",
      field: field, forceCrafts: true)
  }

  /// A value its field cannot hold on the wire, forced or not: `wire`
  /// names the width ("a u16, 2 bytes"), `allowed` what it holds.
  public static func tooWide(
    _ field: String, _ value: String, wire: String, allowed: String, unit: FieldUnit? = nil
  ) -> EncodeError {
    let unitText = unit.map { " \($0)" } ?? ""
    return EncodeError(
      code: "too-wide",
      text: "\(field) \(value)\(unitText) does not fit its field on the wire: \(wire), which holds "
        + "\(allowed)\(unitText)",
      field: field)
  }
}
