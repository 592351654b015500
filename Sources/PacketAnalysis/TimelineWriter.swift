import PacketDecode
import PacketKit

/// `analyze --timeline`: the device models' events as NDJSON, one line
/// each, in time order, naming the device and the client flow. A model may
/// find an event a little after it fell (a watchdog poll decided by the
/// next datagram), so events wait here until the capture's clock is
/// `horizon` past them; a guess (`certain` false) waits up to
/// `guessHorizon`, so the event that settles it (`DeviceEvent.settles`)
/// can settle it in place: one line, not two. Memory stays bounded by
/// `limit` events however dense the capture.
package final class TimelineWriter {
  static let horizon = 2.0
  /// Past a 10 s timer (a server's auth timeout), the latest a recorded
  /// guess was settled.
  static let guessHorizon = 12.0
  package static let limit = 65_536

  package struct Item {
    package var event: DeviceEvent
    package var device: String?
    package var flow: Int?
    package var codec: String
  }

  private let out: OutputWriter
  /// Events not yet written, in time order from `head` on (the written
  /// ones before it are dropped in batches, not one by one).
  private var pending: [Item] = []
  private var head = 0

  package init(out: OutputWriter) {
    self.out = out
  }

  func add(_ event: DeviceEvent, device: DeviceAnalyzer?, flow: FlowAnalyzer?) {
    let item = Item(
      event: event, device: device?.key.name, flow: flow?.id, codec: device?.codec ?? flow?.codec ?? "")
    if let settled = event.settles, settle(settled, by: item) { return }
    // Events come nearly in order: an insertion from the back is a step or two.
    var at = pending.count
    while at > head, pending[at - 1].event.time > event.time { at -= 1 }
    pending.insert(item, at: at)
    if pending.count - head > Self.limit { flush(before: .infinity, keep: Self.limit / 2) }
  }

  /// The guess `settled` names, still held: confirmed, it stands certain
  /// with the evidence added; refuted, the settling event takes its place.
  /// False when the guess was written already (or never made).
  private func settle(_ settled: SettledGuess, by item: Item) -> Bool {
    guard
      let index = pending[head...].lastIndex(where: {
        !$0.event.certain && $0.event.name == settled.name && $0.device == item.device
          && ($0.event.frame == settled.frame && (settled.frame != nil || $0.event.time == settled.time))
      })
    else { return false }
    switch settled.outcome {
    case .confirmed:
      pending[index].event.certain = true
      pending[index].event.text += " — confirmed: " + item.event.text
    case .refuted:
      var replacement = item
      replacement.event.time = pending[index].event.time
      replacement.flow = replacement.flow ?? pending[index].flow
      pending[index] = replacement
    }
    return true
  }

  /// The capture's clock reached `time`.
  package func passed(_ time: Double) {
    flush(before: time - Self.horizon, guessesBefore: time - Self.guessHorizon)
  }

  package func finish() {
    flush(before: .infinity)
  }

  /// Writes the events before `time` in time order (ties in the order the
  /// models gave them) up to the first guess not older than
  /// `guessesBefore`, keeping at least `keep` of the latest.
  private func flush(before time: Double, guessesBefore: Double = .infinity, keep: Int = 0) {
    while head < pending.count - keep, pending[head].event.time < time {
      let item = pending[head]
      if !item.event.certain, item.event.time >= guessesBefore, keep == 0 { break }
      out.bytes(item.event.timelineLine(device: item.device, flow: item.flow, codec: item.codec))
      out.line()
      head += 1
    }
    if head > 4096 || head == pending.count {
      pending.removeFirst(head)
      head = 0
    }
  }
}
