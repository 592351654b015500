import PacketKit

/// A record as the rules read it: decoded fields by their PROTOCOLS.md
/// names, events by theirs. Rules never see codec types, so a codec can
/// change its Swift types without touching the analysis.
struct FlowMessage {
  let record: DecodedRecord
  let time: Double

  init?(_ record: DecodedRecord) {
    guard let time = record.time, time.isFinite else { return nil }
    self.record = record
    self.time = time
  }

  var frame: Int? { record.frame }
  var source: String? { record.source }
  var destination: String? { record.destination }
  var transport: String { record.transport }
  var codec: String? { record.codecName }
  var size: Int { record.payloadLength }

  /// The message kind when a codec decoded it (`telemetry`, `authRequest`).
  var message: String? {
    if case .decoded(let frame) = record.result { return frame.message }
    return nil
  }

  /// The transport event's name (`ws.close`, `tcp.gap`).
  var event: String? { record.event?.name }

  var fields: [DissectionNode] {
    if case .decoded(let frame) = record.result { return frame.fields }
    return []
  }

  /// The codec's or a lower layer's error, when the payload did not decode.
  var error: DecodeError? { record.error }

  /// The first field named `name`, depth first (envelope fields before inner ones).
  func field(_ name: String) -> FieldValue? {
    if let event = record.event {
      return event.fields.first { $0.key == name }?.value
    }
    return fields.first(named: name)?.value
  }

  func number(_ name: String) -> Double? {
    guard let value = field(name) else { return nil }
    if case .enumeration = value { return nil }
    return value.numericValue
  }

  /// Strings, and enumerations by their protocol name (`ARMED`).
  func string(_ name: String) -> String? { field(name)?.stringValue }

  func bool(_ name: String) -> Bool? { field(name)?.boolValue }

  /// Whether `name` is present at all (`pong` in a heartbeat).
  func has(_ name: String) -> Bool { field(name) != nil }
}
