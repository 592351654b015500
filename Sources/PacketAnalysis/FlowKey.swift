import PacketDecode
import PacketKit

/// One conversation in a capture: a UDP pair, a TCP (WebSocket) connection,
/// a BLE connection. Both directions belong to the same flow, so the key
/// holds the two ends in a fixed order whatever direction a record runs.
package struct FlowKey: Hashable, Sendable {
  /// "udp", "tcp" (WebSocket records join their TCP connection) or "ble".
  package var family: String
  /// The two ends, sorted, so A→B and B→A make the same key.
  package var ends: [String]

  package init(family: String, _ one: String, _ other: String) {
    self.family = family
    self.ends = one <= other ? [one, other] : [other, one]
  }

  /// The flow a record belongs to, or nil for records without both ends
  /// (damaged packets, raw payloads).
  package init?(_ record: DecodedRecord) {
    guard let source = record.source, let destination = record.destination else { return nil }
    self.init(family: Self.family(of: record.transport), source, destination)
  }

  /// WebSocket and plain TCP records of one connection share a flow; BLE
  /// transports ("ble-att", and whatever else the BLE layers name) share one.
  package static func family(of transport: String) -> String {
    switch transport {
    case "websocket", "tcp": "tcp"
    case let name where name.hasPrefix("ble"): "ble"
    default: transport
    }
  }
}
