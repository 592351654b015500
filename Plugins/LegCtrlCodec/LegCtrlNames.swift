import PacketKit

/// Every name and unit the decoder writes, and the places of the message
/// kinds, taken from `LegCtrlSchema` once, when the codec is made: the hot
/// paths read them from the codec itself, with no lazy static to check.
final class LegCtrlNames: Sendable {
  /// One for every codec value: a codec is copied freely, and a class
  /// costs one reference to copy where a struct of names cost twenty.
  static let shared = LegCtrlNames()

  private init() {}

  /// A name the dissection tree needs as a `String` and the flat fields as
  /// a literal, with its unit in both forms.
  struct Name: Sendable {
    let literal: StaticString
    let string: String
    let unit: FieldUnit?
    var unitLiteral: StaticString { unit?.text ?? "" }

    init(_ literal: StaticString, unit: FieldUnit? = nil) {
      self.literal = literal
      string = literal.description
      self.unit = unit
    }

    init(_ schema: FieldSchema) {
      self.init(schema.flatName, unit: schema.unit)
    }
  }

  // The header's fields, telemetry's reserved word and an unread payload
  // (no craft flags, so not in the schema's fields).
  let header = Name("header")
  let version = Name("version")
  let msgType = Name("msg_type")
  let payloadLength = Name("payload_len", unit: "bytes")
  let reserved = Name("reserved")
  let payload = Name("payload")

  // The schema's fields.
  let pulse = Name(LegCtrlSchema.pulse)
  let state = Name(LegCtrlSchema.state)
  let errorCode = Name(LegCtrlSchema.errorCode)
  let lastCommandAge = Name(LegCtrlSchema.lastCommandAge)
  let battery = Name(LegCtrlSchema.battery)

  /// The documented pulse range (`pulse_us`'s schema): outside it a servo
  /// command decodes with a warning.
  let pulseRange: ClosedRange<UInt16> = {
    let range = LegCtrlSchema.pulse.range ?? 0...65535
    return UInt16(range.lowerBound)...UInt16(range.upperBound)
  }()

  let kinds = LegCtrlSchema.kinds

  // The message names `kind(of:)` gives.
  let arm = LegCtrlSchema.arm.name
  let disarm = LegCtrlSchema.disarm.name
  let setServoCh0 = LegCtrlSchema.setServoCh0.name
  let ping = LegCtrlSchema.ping.name
  let telemetry = LegCtrlSchema.telemetry.name
}
