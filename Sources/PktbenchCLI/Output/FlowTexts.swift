import PacketKit

/// The ndjson text of the last few flows' transport and endpoints, escaped
/// once: `,"transport":"udp","src":"10.0.0.2:50000","dst":"10.0.0.7:5005"`.
/// A capture's records come from a few flows, and escaping the same three
/// names again for every message was some 15 % of ndjson's time on a Rider
/// capture. Looking a record's names up is quick: equal strings that share
/// storage (the pipeline hands out remembered names) or that are small
/// compare in a word or two. A few entries replaced round robin: bounded.
struct FlowTexts {
  private static let capacity = 4
  private var names: [Names] = []
  /// Each entry's text, as `write` appends it.
  private var texts: [[UInt8]] = []
  private var next = 0

  private struct Names {
    var transport: String
    var source: String?
    var destination: String?

    func name(_ record: DecodedRecord) -> Bool {
      transport == record.transport && source == record.source && destination == record.destination
    }
  }

  /// Writes `record`'s transport, src and dst members, each after a comma.
  mutating func write(_ record: DecodedRecord, into json: inout JSONWriter) {
    for index in names.indices where names[index].name(record) {
      texts[index].withUnsafeBytes { json.append(bytes: $0) }
      return
    }
    var text = JSONWriter(capacity: 96)
    Self.render(record, into: &text)
    let entry = Names(transport: record.transport, source: record.source, destination: record.destination)
    if names.count < Self.capacity {
      names.append(entry)
      texts.append(text.bytes)
    } else {
      names[next] = entry
      texts[next] = text.bytes
      next = (next + 1) % Self.capacity
    }
    text.withUnsafeBytes { json.append(bytes: $0) }
  }

  /// The members written afresh.
  static func render(_ record: DecodedRecord, into json: inout JSONWriter) {
    json.raw(",\"transport\":")
    json.string(record.transport)
    json.raw(",\"src\":")
    if let source = record.source { json.string(source) } else { json.null() }
    json.raw(",\"dst\":")
    if let destination = record.destination { json.string(destination) } else { json.null() }
  }
}
