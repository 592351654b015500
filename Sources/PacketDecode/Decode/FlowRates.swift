import PacketKit

/// `--stats`' rates: per flow (source → destination) and kind of message,
/// over that flow's own span, first message to last. Over the capture's
/// span a 20 Hz stream that ran half the capture read 9.5/s; over a kind's
/// span in all flows, a heartbeat and its reply 0.3 ms apart read 3,000/s.
/// One message has no rate.
struct FlowRates {
  package struct Key: Hashable {
    package var source: String
    package var destination: String
    package var codec: String
    package var message: String
  }

  /// Where each key's tally is in `tallies`.
  private var slots: [Key: Int] = [:]
  private var keys: [Key] = []
  /// Messages counted as records (`add(source:…)`).
  private var tallies: [MessageTally] = []
  /// Clean messages counted without a record (`addClean(slot:…)`), and
  /// what each slot's clean ones are (codec and message index, transport):
  /// the one tally their fast path updates, folded into the per-message
  /// counts for reports (`cleanCounts`).
  private var clean: [MessageTally] = []
  private var cleanKinds: [CleanKind?] = []

  struct CleanKind {
    package var codec: Int
    package var kind: Int
    package var transport: CaptureStats.CleanTransport
  }

  /// How many flows there are.
  package var count: Int { keys.count }
  /// Messages of flows past `limit` (a scan across ports): counted, not tallied.
  package private(set) var overflow = 0
  package static let limit = 10_000
  /// Flows listed in the text report; JSON lists them all.
  package static let shown = 20

  /// Counts a message of this flow and kind; returns its tally's slot
  /// (for `add(slot:time:)`), nil past `limit` flows.
  @discardableResult
  package mutating func add(source: String, destination: String, codec: String, message: String, time: Double)
    -> Int?
  {
    guard let slot = slot(source, destination, codec, message) else {
      overflow += 1
      return nil
    }
    tallies[slot].add(bytes: 0, time: time)
    return slot
  }

  /// The slot of a flow and kind, made when it is new; nil past `limit`.
  private mutating func slot(_ source: String, _ destination: String, _ codec: String, _ message: String)
    -> Int?
  {
    let key = Key(source: source, destination: destination, codec: codec, message: message)
    if let known = slots[key] { return known }
    guard keys.count < Self.limit else { return nil }
    let slot = keys.count
    slots[key] = slot
    keys.append(key)
    tallies.append(MessageTally())
    clean.append(MessageTally())
    cleanKinds.append(nil)
    return slot
  }

  /// The slot for clean messages of this flow and kind (`CodecSet` indices
  /// for the kind); nil past `limit`, and then they are counted elsewhere.
  mutating func cleanSlot(
    source: String, destination: String, codec: String, message: String, kind: CleanKind
  ) -> Int? {
    guard let slot = slot(source, destination, codec, message) else { return nil }
    cleanKinds[slot] = kind
    return slot
  }

  /// Counts a clean message of the flow and kind whose slot `cleanSlot` gave.
  @inline(__always)
  mutating func addClean(slot: Int, bytes: Int, time: Double) {
    clean[slot].add(bytes: bytes, time: time)
  }

  /// The clean messages counted per slot, with what they are.
  var cleanCounts: some Sequence<(kind: CleanKind, tally: MessageTally)> {
    zip(cleanKinds, clean).lazy.compactMap { kind, tally in
      kind.flatMap { tally.count > 0 ? (kind: $0, tally: tally) : nil }
    }
  }

  private var sorted: [(key: Key, value: MessageTally)] {
    zip(keys, zip(tallies, clean)).map { key, pair in
      var tally = pair.0
      tally.merge(pair.1)
      return (key: key, value: tally)
    }.sorted {
      $0.value.count != $1.value.count
        ? $0.value.count > $1.value.count
        : ($0.key.source, $0.key.destination, $0.key.message) < (
          $1.key.source, $1.key.destination, $1.key.message
        )
    }
  }

  package func lines() -> [String] {
    guard !keys.isEmpty else { return [] }
    var out = ["  flows (count, rate over the flow's own span):"]
    let rows = sorted.prefix(Self.shown).map { entry -> (String, String) in
      let key = entry.key
      let name = TerminalText.escaped("\(key.source) → \(key.destination)  \(key.codec) \(key.message)")
      let rate = entry.value.rate.map { "  \(SummaryRenderer.fixed($0, digits: 1))/s" } ?? ""
      return (name, "\(entry.value.count)\(rate)")
    }
    let width = rows.map(\.0.count).max() ?? 0
    for (name, detail) in rows { out.append("    \(name.padding(toLength: width))  \(detail)") }
    if tallies.count > Self.shown {
      out.append("    … \(tallies.count - Self.shown) more flows (all in --format json)")
    }
    if overflow > 0 { out.append("    … \(overflow) messages of flows past the first \(Self.limit)") }
    return out
  }

  package func json() -> FieldValue {
    .array(
      sorted.map { entry in
        let tally = entry.value
        return .object([
          .init("src", .string(entry.key.source)), .init("dst", .string(entry.key.destination)),
          .init("codec", .string(entry.key.codec)), .init("message", .string(entry.key.message)),
          .init("count", .integer(Int64(tally.count))),
          .init("first_time", tally.count > 0 && tally.first.isFinite ? .number(tally.first) : .null),
          .init("last_time", tally.count > 0 && tally.last.isFinite ? .number(tally.last) : .null),
          .init("rate", tally.rate.map { .number($0) } ?? .null),
        ])
      })
  }
}
