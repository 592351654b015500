import PacketKit

/// The ndjson text of the last few flows' transport and endpoints, escaped
/// once: `,"transport":"udp","src":"10.0.0.2:50000","dst":"10.0.0.7:9000"`.
/// A capture's records come from a few flows, so the same three names are
/// not escaped again for every message. Comparing a record's names with a
/// flow's is quick: equal
/// strings that share storage (the pipeline hands out remembered names) or
/// that are small compare in a word or two.
package struct FlowTexts {
  private var texts: RecentTable<Flow, [UInt8]>

  /// A record's transport and endpoint names: what a flow's texts depend on.
  package struct Flow {
    package var transport: String
    package var source: String?
    package var destination: String?

    package init(_ record: DecodedRecord) {
      transport = record.transport
      source = record.source
      destination = record.destination
    }

    package func names(_ record: DecodedRecord) -> Bool {
      transport == record.transport && source == record.source && destination == record.destination
    }
  }

  /// Texts of up to `capacity` flows; 0 writes every record's afresh.
  package init(capacity: Int = 4) {
    texts = RecentTable(capacity: capacity)
  }

  /// Writes `record`'s transport, src and dst members, each after a comma.
  package mutating func write(_ record: DecodedRecord, into json: inout JSONWriter) {
    texts.write(into: &json, where: { $0.names(record) }, key: { Flow(record) }) { json in
      json.raw(",\"transport\":")
      json.string(record.transport)
      json.raw(",\"src\":")
      if let source = record.source { json.string(source) } else { json.null() }
      json.raw(",\"dst\":")
      if let destination = record.destination { json.string(destination) } else { json.null() }
    }
  }
}
