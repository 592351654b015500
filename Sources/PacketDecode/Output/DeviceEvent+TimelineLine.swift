import PacketKit

/// A device event as one line of `analyze --timeline` (and of `emulate
/// --format ndjson`, which writes the same lines as they happen).
extension DeviceEvent {
  /// `{"time":…,"frame":…,"device":…,"flow":…,"codec":…,"event":…,"certain":…,"state":{…},"text":…}`
  package func timelineLine(device: String?, flow: Int?, codec: String) -> [UInt8] {
    var json = JSONWriter(capacity: 256)
    json.raw("{\"time\":")
    json.number(time)
    json.raw(",\"frame\":")
    if let frame { json.integer(frame) } else { json.null() }
    json.raw(",\"device\":")
    if let device { json.string(device) } else { json.null() }
    json.raw(",\"flow\":")
    if let flow { json.integer(flow) } else { json.null() }
    json.raw(",\"codec\":")
    json.string(codec)
    json.raw(",\"event\":")
    json.string(name)
    json.raw(",\"certain\":")
    json.bool(certain)
    json.raw(",\"state\":")
    json.value(.object(state))
    json.raw(",\"text\":")
    json.string(text)
    if let mismatch {
      json.raw(",\"mismatch\":")
      json.string(mismatch)
    }
    json.raw("}")
    return json.bytes
  }
}
