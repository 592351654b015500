import PacketKit

/// `analyze --timeline`: the device models' events as NDJSON, one line
/// each, in time order. A model may find an event a little after it fell
/// (a watchdog poll decided by the next datagram), so events wait here
/// until the capture's clock is `horizon` past them; memory stays bounded
/// by `limit` events however dense the capture.
final class TimelineWriter {
  static let horizon = 2.0
  static let limit = 65_536

  private let out: OutputWriter
  private var pending: [(event: DeviceEvent, flow: Int, codec: String, order: Int)] = []
  private var order = 0

  init(out: OutputWriter) {
    self.out = out
  }

  func add(_ event: DeviceEvent, flow: FlowAnalyzer) {
    pending.append((event, flow.id, flow.device?.codec ?? flow.codec ?? "", order))
    order += 1
    if pending.count > Self.limit { flush(before: .infinity, keep: Self.limit / 2) }
  }

  /// The capture's clock reached `time`.
  func passed(_ time: Double) {
    guard let first = pending.first, first.event.time < time - Self.horizon else { return }
    flush(before: time - Self.horizon)
  }

  func finish() {
    flush(before: .infinity)
  }

  /// Writes the events before `time` in time order (ties in the order the
  /// models gave them), keeping at least `keep` of the latest.
  private func flush(before time: Double, keep: Int = 0) {
    pending.sort { ($0.event.time, $0.order) < ($1.event.time, $1.order) }
    var written = 0
    while written < pending.count - keep, pending[written].event.time < time {
      let item = pending[written]
      out.bytes(Self.line(item.event, flow: item.flow, codec: item.codec))
      out.line()
      written += 1
    }
    pending.removeFirst(written)
  }

  /// `{"time":…,"frame":…,"flow":…,"codec":…,"event":…,"certain":…,"state":{…},"text":…}`
  static func line(_ event: DeviceEvent, flow: Int?, codec: String) -> [UInt8] {
    var json = JSONWriter(capacity: 256)
    json.raw("{\"time\":")
    json.number(event.time)
    json.raw(",\"frame\":")
    if let frame = event.frame { json.integer(frame) } else { json.null() }
    json.raw(",\"flow\":")
    if let flow { json.integer(flow) } else { json.null() }
    json.raw(",\"codec\":")
    json.string(codec)
    json.raw(",\"event\":")
    json.string(event.name)
    json.raw(",\"certain\":")
    json.bool(event.certain)
    json.raw(",\"state\":")
    json.value(.object(event.state))
    json.raw(",\"text\":")
    json.string(event.text)
    if let mismatch = event.mismatch {
      json.raw(",\"mismatch\":")
      json.string(mismatch)
    }
    json.raw("}")
    return json.bytes
  }
}
