import PacketKit

extension FlowMessage {
  /// A record as rules and device models read it; nil without a time.
  package init?(_ record: DecodedRecord) {
    guard let time = record.time, time.isFinite else { return nil }
    self.init(
      frame: record.frame, time: time, source: record.source, destination: record.destination,
      transport: record.transport, codec: record.codecName, result: record.result, event: record.event,
      layerError: record.layerError, payload: record.payload ?? [], size: record.payloadLength)
  }
}
