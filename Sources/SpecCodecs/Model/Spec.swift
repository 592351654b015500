import PacketKit

/// A JSON protocol, as a `.ksy` file's `-pktbench` section describes it
/// (Kaitai describes bytes, not JSON): its messages, told apart by their
/// keys, and the `meta` it shares with the file.
public struct Spec: Sendable {
  /// The codec's short name (`meta/id`).
  public var name: String
  public var title: String
  public var transport: String
  public var notes: [String]
  public var messages: [SpecMessageKind]
  public var enums: [SpecEnum]
  public var udpPorts: [UInt16]
  public var webSocketPaths: [SpecWebSocketPath]
  public var ble: SpecBLE?
  /// How the device answers, for `emulate`; nil when the spec says nothing.
  public var device: SpecDevice?
  /// Example command lines by command, each after `pktbench `.
  public var examples: [String: [String]]
  /// The file it came from, for messages about it.
  public var file: String

  /// The message kind called `name` (its name or a craft name).
  public func message(named name: String) -> SpecMessageKind? {
    messages.first { $0.name == name || $0.craftNames.contains(name) }
  }
}

/// A WebSocket path prefix whose messages are this protocol's.
public struct SpecWebSocketPath: Sendable, Equatable {
  public var prefix: String
  /// The field the path's last segment fills (`send` takes it from the URL).
  public var lastSegmentField: String?

  public init(prefix: String, lastSegmentField: String?) {
    self.prefix = prefix
    self.lastSegmentField = lastSegmentField
  }
}

/// The BLE GATT service and the characteristics whose values are messages.
public struct SpecBLE: Sendable, Equatable {
  public var service: String?
  public var characteristics: [Characteristic]

  public struct Characteristic: Sendable, Equatable {
    /// Lower-case 128-bit UUID.
    public var uuid: String
    /// `write`, `write-without-response`, `notify`, `indicate`, `read`.
    public var properties: [String]
    /// The message kinds it carries (empty: any).
    public var messages: [String]

    public init(uuid: String, properties: [String], messages: [String]) {
      self.uuid = uuid
      self.properties = properties
      self.messages = messages
    }
  }

  public init(service: String?, characteristics: [Characteristic]) {
    self.service = service
    self.characteristics = characteristics
  }
}
