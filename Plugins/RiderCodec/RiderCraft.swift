import Foundation
import PacketKit

/// Builds typed Rider messages from `craft` values. A value left out takes
/// its schema default; the timestamp defaults to now.
enum RiderCraft {
  static func message(_ name: String, from values: CraftValues, info: CodecInfo)
    throws(EncodeError) -> RiderMessage
  {
    switch info.messageName(named: name) {
    case "drive": return .drive(try drive(values))
    case "legacy": return .legacy(try legacy(values))
    case "move": return .move(try move(values))
    default:
      throw EncodeError(
        code: "unknown-message", text: "rider has no message '\(name)'; it has drive, legacy, move")
    }
  }

  private static func drive(_ values: CraftValues) throws(EncodeError) -> RiderDrive {
    let stick = values.has("x") || values.has("y")
    let motors = values.has("left") || values.has("right")
    let left: Double
    let right: Double
    if stick {
      guard !motors else {
        throw EncodeError(
          code: "conflicting-fields",
          text: "give either x/y (joystick) or left/right, not both: left and right are mixed from x and y",
          field: values.has("left") ? "left" : "right")
      }
      let x = try number(RiderSchema.x, values, missing: 0)
      let y = try number(RiderSchema.y, values, missing: 0)
      (left, right) = RiderJoystick.mix(x: x, y: y)
    } else {
      left = try number(RiderSchema.left, values, missing: 0)
      right = try number(RiderSchema.right, values, missing: 0)
    }
    return RiderDrive(left: left, right: right, timestamp: try timestamp(values))
  }

  private static func legacy(_ values: CraftValues) throws(EncodeError) -> RiderLegacy {
    RiderLegacy(
      left: try integer(RiderSchema.legacyLeft, values),
      right: try integer(RiderSchema.legacyRight, values),
      direction: try enumRaw(RiderSchema.legacyDirection, values))
  }

  private static func move(_ values: CraftValues) throws(EncodeError) -> RiderMove {
    RiderMove(
      command: try enumName(RiderSchema.moveCommand, values),
      speed: try number(RiderSchema.speed, values),
      direction: try number(RiderSchema.moveDirection, values),
      timestamp: try timestamp(values))
  }

  private static func timestamp(_ values: CraftValues) throws(EncodeError) -> Double {
    values.has("timestamp") ? try values.number("timestamp") : Date().timeIntervalSince1970
  }

  /// The given value, else the schema default, else `missing`.
  private static func value(_ schema: FieldSchema, _ values: CraftValues, missing: FieldValue? = nil)
    throws(EncodeError) -> FieldValue
  {
    guard let value = values[schema.name] ?? schema.defaultValue ?? missing else {
      return try values.required(schema.name)
    }
    return value
  }

  /// A number in the documented range unless forced; always finite.
  private static func number(_ schema: FieldSchema, _ values: CraftValues, missing: Double? = nil)
    throws(EncodeError) -> Double
  {
    let number = try CraftValues.number(
      value(schema, values, missing: missing.map { .number($0) }), named: schema.name)
    guard number.isFinite else {
      throw EncodeError(
        code: "not-finite", text: "\(schema.name) must be a finite number", field: schema.name)
    }
    if !values.force { try schema.validate(.number(number)) }
    return number
  }

  private static func integer(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError) -> Int {
    let integer = try CraftValues.integer(value(schema, values), named: schema.name)
    if !values.force { try schema.validate(.integer(integer)) }
    guard let exact = Int(exactly: integer) else {
      throw .outOfRange(schema.name, String(integer), allowed: "an Int", unit: schema.unit)
    }
    return exact
  }

  /// The known case a value names: by case name or flag spelling, as an
  /// enumeration value, or by raw number.
  private static func knownCase(_ schema: FieldSchema, _ given: FieldValue) -> FieldSchema.EnumCase? {
    switch given {
    case .enumeration(_, let raw): return schema.enumCase(raw: raw)
    case .string(let text):
      let spelling = text.lowercased()
      return schema.enumCases.first { $0.name.lowercased() == spelling || $0.flagSpelling == spelling }
        ?? Int64(text).flatMap { schema.enumCase(raw: $0) }
    default:
      guard let number = given.numericValue, let raw = Int64(exactly: number) else { return nil }
      return schema.enumCase(raw: raw)
    }
  }

  private static func unknownEnum(_ schema: FieldSchema, _ given: FieldValue) -> EncodeError {
    EncodeError(
      code: "unknown-enum",
      text: "\(schema.name) \(given.stringValue ?? given.display) is not one of "
        + schema.enumCases.map(\.name).joined(separator: ", "),
      field: schema.name)
  }

  /// An enumeration sent as its number (legacy direction); forced, any whole number.
  private static func enumRaw(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError) -> Int {
    let given = try value(schema, values)
    if let known = knownCase(schema, given), let raw = Int(exactly: known.raw) { return raw }
    let number = given.stringValue.flatMap { Double($0) } ?? given.numericValue
    guard values.force, let number, let raw = Int(exactly: number) else {
      throw unknownEnum(schema, given)
    }
    return raw
  }

  /// An enumeration sent as its name (move command); forced, any text.
  private static func enumName(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError)
    -> String
  {
    let given = try value(schema, values)
    if let known = knownCase(schema, given) { return known.name }
    guard values.force, case .string(let text) = given else { throw unknownEnum(schema, given) }
    return text
  }
}

/// The app's joystick mixing (docs/protocols.md §1a).
public enum RiderJoystick {
  /// `left = 100y + 100x`, `right = 100y − 100x`; when either magnitude
  /// exceeds 100 both are scaled by the same factor so the larger is 100.
  public static func mix(x: Double, y: Double) -> (left: Double, right: Double) {
    let left = 100 * y + 100 * x
    let right = 100 * y - 100 * x
    let larger = max(left.magnitude, right.magnitude)
    guard larger > 100 else { return (left, right) }
    let factor = 100 / larger
    return (left * factor, right * factor)
  }
}
