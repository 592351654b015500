import PacketDecode
import PacketKit

/// Decodes one live payload into a record, exactly as the capture pipeline
/// does for a payload it found in a file: the router picks the codec
/// (`--codec`, `--decode-as`, well-known ports and paths, probes).
struct LiveDecoding {
  package var router: PayloadRouter
  var keepPayload: Bool

  package func decode(
    _ payload: UnsafeRawBufferPointer, carrier: PayloadRouter.Carrier, into record: inout DecodedRecord
  ) {
    record.payloadLength = payload.count
    if keepPayload { record.payload = [UInt8](payload) }
    guard
      let choice = router.choose(
        carrier, sourcePort: record.sourcePort, destinationPort: record.destinationPort, payload: payload)
    else { return }
    record.routing = router.reason(choice)
    record.result = router.codecs.decodeFrame(choice.index, payload)
  }

  package func decode(_ payload: [UInt8], carrier: PayloadRouter.Carrier, into record: inout DecodedRecord) {
    payload.withUnsafeBytes { decode($0, carrier: carrier, into: &record) }
  }
}
