import PacketDecode
import PacketKit

/// Which end of a flow is the modelled device: the end that listens (the
/// WebSocket server, the UDP port's owner, the GATT server). A WebSocket
/// handshake names it, and otherwise the first message only one side
/// sends does (with the codec's `DeviceDescription`).
enum DeviceEnd {
  package static func of(_ message: FlowMessage, description: DeviceDescription?) -> String? {
    if message.eventName == "ws.handshake" { return message.destination }
    if message.eventName == "ws.accept" { return message.source }
    guard let description, let kind = message.message else { return nil }
    if description.messagesToDevice.contains(kind) { return message.destination }
    if description.messagesFromDevice.contains(kind) { return message.source }
    return nil
  }

  /// The end that owns the port the record was routed by (`udp port 5005`,
  /// `--decode-as udp:29000`): a damaged payload still names its device so.
  static func byRouting(_ record: DecodedRecord) -> String? {
    guard let routing = record.routing, routing.hasPrefix("udp port") || routing.hasPrefix("--decode-as"),
      let port = UInt16(String(routing.reversed().prefix { $0.isNumber }.reversed()))
    else { return nil }
    if record.destinationPort == port { return record.destination }
    if record.sourcePort == port { return record.source }
    return nil
  }

  /// How `message` runs as the device at `end` sees it; nil for a record
  /// of neither way.
  package static func heading(of message: FlowMessage, end: String) -> Heading? {
    if message.destination == end { return .toDevice }
    if message.source == end { return .fromDevice }
    return nil
  }
}

/// One device in a capture: the endpoint its clients reach. A BLE
/// peripheral is known by its address across connection handles and
/// reconnects when the capture shows the connection's peer.
struct DeviceKey: Hashable {
  /// "udp", "tcp", "ble", as `FlowKey.family`.
  package var family: String
  /// The device's endpoint ("127.0.0.1:5005", "peripheral AA:BB:…"), and
  /// for a device that is each connection, the connection.
  package var endpoint: String
  package var connection: [String] = []

  /// What people read: "127.0.0.1:5005", "BLE peripheral AA:BB:CC:DD:EE:FF".
  package var name: String {
    family == "ble" ? "BLE \(endpoint)" : endpoint
  }
}
