/// A record as a protocol's rules and device model read it: decoded fields
/// by their docs/protocols.md names, transport events by theirs, and the payload
/// as it travelled. Rules never see codec types, so a codec can change its
/// Swift types without touching its analysis.
public struct FlowMessage: Sendable {
  /// The capture record that carried it (the first, for a message spread
  /// over several); nil for live records that have none.
  public var frame: Int?
  /// Unix seconds.
  public var time: Double
  public var source: String?
  public var destination: String?
  /// `udp`, `tcp`, `websocket`, `ble-att`.
  public var transport: String
  /// The codec that claimed the payload, decoded or not.
  public var codec: String?
  /// The codec's decode, when a codec claimed the payload.
  public var result: FrameDecode?
  /// A transport event that is not a codec message (`ws.close`, `tcp.gap`).
  public var event: (name: String, fields: [FieldValue.Member])?
  /// Damage below the codec (a broken header, a WebSocket violation).
  public var layerError: DecodeError?
  /// The payload bytes as they travelled; empty for events.
  public var payload: [UInt8]
  /// Payload length (the bytes above may be left out by a caller that
  /// needs no device model).
  public var size: Int

  public init(
    frame: Int?, time: Double, source: String?, destination: String?, transport: String,
    codec: String? = nil, result: FrameDecode? = nil,
    event: (name: String, fields: [FieldValue.Member])? = nil, layerError: DecodeError? = nil,
    payload: [UInt8] = [], size: Int? = nil
  ) {
    self.frame = frame
    self.time = time
    self.source = source
    self.destination = destination
    self.transport = transport
    self.codec = codec ?? result?.codec
    self.result = result
    self.event = event
    self.layerError = layerError
    self.payload = payload
    self.size = size ?? payload.count
  }

  /// The message kind when a codec decoded it (`telemetry`, `authRequest`).
  public var message: String? {
    if case .decoded(let frame) = result { return frame.message }
    return nil
  }

  /// The transport event's name (`ws.close`, `tcp.gap`).
  public var eventName: String? { event?.name }

  public var fields: [DissectionNode] {
    if case .decoded(let frame) = result { return frame.fields }
    return []
  }

  /// The codec's or a lower layer's error, when the payload did not decode.
  public var error: DecodeError? {
    if let layerError { return layerError }
    if case .failed(_, let error) = result { return error }
    return nil
  }

  /// The first field named `name`, depth first (envelope fields before inner ones).
  public func field(_ name: String) -> FieldValue? {
    if let event {
      return event.fields.first { $0.key == name }?.value
    }
    return fields.first(named: name)?.value
  }

  public func number(_ name: String) -> Double? {
    guard let value = field(name) else { return nil }
    if case .enumeration = value { return nil }
    return value.numericValue
  }

  /// Strings, and enumerations by their protocol name (`ARMED`).
  public func string(_ name: String) -> String? { field(name)?.stringValue }

  public func bool(_ name: String) -> Bool? { field(name)?.boolValue }

  /// Whether `name` is present at all (`pong` in a heartbeat).
  public func has(_ name: String) -> Bool { field(name) != nil }
}
