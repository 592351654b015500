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
  /// Events not yet written, in time order from `head` on (the written
  /// ones before it are dropped in batches, not one by one).
  private var pending: [(event: DeviceEvent, flow: Int, codec: String)] = []
  private var head = 0

  init(out: OutputWriter) {
    self.out = out
  }

  func add(_ event: DeviceEvent, flow: FlowAnalyzer) {
    // Events come nearly in order: an insertion from the back is a step or two.
    var at = pending.count
    while at > head, pending[at - 1].event.time > event.time { at -= 1 }
    pending.insert((event, flow.id, flow.device?.codec ?? flow.codec ?? ""), at: at)
    if pending.count - head > Self.limit { flush(before: .infinity, keep: Self.limit / 2) }
  }

  /// The capture's clock reached `time`.
  func passed(_ time: Double) {
    guard head < pending.count, pending[head].event.time < time - Self.horizon else { return }
    flush(before: time - Self.horizon)
  }

  func finish() {
    flush(before: .infinity)
  }

  /// Writes the events before `time` in time order (ties in the order the
  /// models gave them), keeping at least `keep` of the latest.
  private func flush(before time: Double, keep: Int = 0) {
    while head < pending.count - keep, pending[head].event.time < time {
      let item = pending[head]
      out.bytes(Self.line(item.event, flow: item.flow, codec: item.codec))
      out.line()
      head += 1
    }
    if head > 4096 || head == pending.count {
      pending.removeFirst(head)
      head = 0
    }
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
