import PacketKit

/// Builds typed Rallie messages from `craft` values. A value the user left
/// out takes its schema default, so the codec crafts the same frame whether
/// or not the CLI filled the defaults in first.
///
/// Its helpers are inlined into `message(_:from:)`, rather than each
/// passed a schema and the values.
enum RallieCraft {
  static func message(_ name: String, from values: CraftValues, info: CodecInfo)
    throws(EncodeError) -> RallieMessage
  {
    let variant = try checkVariant(values)
    switch info.messageName(named: name) {
    case "command":
      let command = RallieCommand(
        upperWheel: try byte(RallieSchema.upperWheel, values),
        lowerWheel: try byte(RallieSchema.lowerWheel, values),
        pitch: try byte(RallieSchema.pitch, values),
        yaw: try byte(RallieSchema.yaw, values),
        feed: try byte(RallieSchema.feed, values),
        control: try enumByte(RallieSchema.control, values))
      return RallieMessage(.command(command), checkVariant: variant)
    case "response":
      return RallieMessage(
        .response(RallieResponse(code: try enumByte(RallieSchema.code, values))), checkVariant: variant)
    default:
      throw EncodeError(
        code: "unknown-message",
        text: "rallie has no message '\(name)'; it has command (rallie), response (rallie-response)")
    }
  }

  /// Refuses an enumeration value that has no name in docs/protocols.md.
  @inline(__always)
  static func checkKnown(_ schema: FieldSchema, _ raw: Int64) throws(EncodeError) {
    guard schema.enumCase(raw: raw) == nil else { return }
    throw .outOfRange(
      schema.name, String(raw),
      allowed: schema.enumCases.map { "\($0.name) (\($0.raw))" }.joined(separator: ", "))
  }

  @inline(__always)
  private static func value(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError)
    -> FieldValue
  {
    if let value = values[schema.name] ?? schema.defaultValue { return value }
    return try values.required(schema.name)
  }

  /// A ranged byte field: the documented range unless forced; the wire
  /// width (one byte) even when forced.
  @inline(__always)
  private static func byte(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError) -> UInt8 {
    let integer = try CraftValues.integer(value(schema, values), named: schema.name)
    if !values.force { try schema.validate(.integer(integer)) }
    return try fitByte(schema, integer)
  }

  @inline(__always)
  private static func enumByte(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError)
    -> UInt8
  {
    let raw = try enumRaw(schema, values)
    if !values.force { try checkKnown(schema, raw) }
    return try fitByte(schema, raw)
  }

  @inline(__always)
  private static func fitByte(_ schema: FieldSchema, _ value: Int64) throws(EncodeError) -> UInt8 {
    guard let byte = UInt8(exactly: value) else {
      throw .tooWide(schema.name, String(value), wire: "a u8 (1 byte)", allowed: "0…255", unit: schema.unit)
    }
    return byte
  }

  /// An enumeration given by case name (`start`), as an enumeration value,
  /// or as its raw number.
  @inline(__always)
  private static func enumRaw(_ schema: FieldSchema, _ values: CraftValues) throws(EncodeError)
    -> Int64
  {
    let given = try value(schema, values)
    if case .enumeration(_, let raw) = given { return raw }
    if let text = given.stringValue {
      let spelling = text.lowercased()
      if let known = schema.enumCases.first(where: {
        $0.name.lowercased() == spelling || $0.flagSpelling == spelling
      }) {
        return known.raw
      }
      if let raw = Int64(text) { return raw }
      throw EncodeError(
        code: "unknown-enum",
        text: "\(schema.name) '\(text)' is not one of "
          + schema.enumCases.map(\.name).joined(separator: ", "),
        field: schema.name)
    }
    return try CraftValues.integer(given, named: schema.name)
  }

  private static func checkVariant(_ values: CraftValues) throws(EncodeError) -> RallieCheckVariant {
    let raw = try enumRaw(RallieSchema.checksum, values)
    guard let variant = RallieCheckVariant.allCases.first(where: { $0.raw == raw }) else {
      throw EncodeError(
        code: "unknown-enum", text: "checksum \(raw) is not one of xor, modbus16lo", field: "checksum")
    }
    return variant
  }
}
