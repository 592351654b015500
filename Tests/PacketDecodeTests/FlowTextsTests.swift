import Foundation
import PacketKit
import Testing

@testable import PacketDecode

/// ndjson writes a record's transport, src and dst from a small cache of
/// flows. Records from more flows than it holds, interleaved, must each
/// show their own names: read back by Foundation's JSON parser, and equal to
/// the object rendered without the cache.
@Suite struct FlowTextsTests {
  static let flows: [(transport: String, source: String?, destination: String?)] = [
    ("udp", "10.0.0.2:50000", "10.0.0.7:5005"),
    ("udp", "10.0.0.7:5005", "10.0.0.2:50000"),
    ("tcp", "10.0.0.2:50000", "10.0.0.7:5005"),
    ("websocket", "[2001:db8::1]:49152", "[2001:db8::2]:8080"),
    ("ble-att", "0x0040 central", "0x0040 peripheral"),
    ("udp", "name \"quoted\" \\ and\ttab", "10.0.0.9:9"),
    ("ipv4", nil, nil),
  ]

  @Test func interleavedFlowsKeepTheirNames() throws {
    var random = SplitMix64(seed: 7)
    var cache = FlowTexts()
    for frame in 1...400 {
      let flow = Self.flows[random.below(Self.flows.count)]
      // Fresh strings each time, as a pipeline without remembered names would give.
      let record = DecodedRecord(
        frame: frame, time: 1.5, transport: String(flow.transport), source: flow.source.map { String($0) },
        destination: flow.destination.map { String($0) }, payloadLength: 3)
      var json = JSONWriter()
      JSONRenderer.write(record, includeDissection: false, flows: &cache, into: &json)
      let bytes = json.bytes
      #expect(bytes == JSONRenderer.object(record, includeDissection: false), "frame \(frame)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
      #expect(object["transport"] as? String == flow.transport)
      #expect(object["src"] as? String == flow.source, "frame \(frame)")
      #expect(object["dst"] as? String == flow.destination, "frame \(frame)")
      #expect(flow.source != nil || object["src"] is NSNull)
      #expect(object["frame"] as? Int == frame)
    }
  }
}
