import PacketKit

/// What one spec file says about a protocol: its name and transport, the
/// layout shared by every message (header, trailer), how a message's kind
/// is told, each message kind, where its traffic is found (UDP ports, BLE
/// characteristics) and, optionally, how its device answers.
///
/// The model holds what the file says and nothing the interpreter derives
/// at run time, so a Wireshark dissector can be generated from it too:
/// every field has its width, byte order and (where it does not move)
/// its byte offset.
public struct Spec: Sendable {
  /// The codec's short name (`legctrl`): output's `codec`, `--codec`, the
  /// display filter's first name. A built-in codec of the same name is
  /// replaced for the run.
  public var name: String
  public var title: String
  /// Free text for `pktbench codecs` ("BLE GATT; also UDP").
  public var transport: String
  public var encoding: PayloadEncoding
  /// Lines for `pktbench codecs`.
  public var notes: [String]
  /// Fields every binary message starts with, before its own.
  public var header: [SpecField]
  /// Fields every binary message ends with, after its own (a frame check).
  public var trailer: [SpecField]
  /// How a message's kind is told from its bytes.
  public var discriminator: SpecDiscriminator
  public var messages: [SpecMessageKind]
  /// What a frame whose kind is none of `messages` decodes as; nil: a
  /// decode error.
  public var unknownMessage: SpecUnknownMessage?
  /// Enumerations by name, in the file's order (fields refer to them).
  public var enums: [SpecEnum]
  /// Where the protocol's traffic is recognised without probing.
  public var udpPorts: [UInt16]
  public var webSocketPaths: [SpecWebSocketPath]
  public var ble: SpecBLE?
  /// How the device answers, for `emulate`; nil when the spec says nothing.
  public var device: SpecDevice?
  /// Example command lines by command, each after `pktbench `.
  public var examples: [String: [String]]
  /// The file it came from, for messages about it.
  public var file: String

  public init(
    name: String, title: String, transport: String, encoding: PayloadEncoding, notes: [String],
    header: [SpecField], trailer: [SpecField], discriminator: SpecDiscriminator,
    messages: [SpecMessageKind], unknownMessage: SpecUnknownMessage?, enums: [SpecEnum],
    udpPorts: [UInt16], webSocketPaths: [SpecWebSocketPath], ble: SpecBLE?, device: SpecDevice?,
    examples: [String: [String]], file: String
  ) {
    self.name = name
    self.title = title
    self.transport = transport
    self.encoding = encoding
    self.notes = notes
    self.header = header
    self.trailer = trailer
    self.discriminator = discriminator
    self.messages = messages
    self.unknownMessage = unknownMessage
    self.enums = enums
    self.udpPorts = udpPorts
    self.webSocketPaths = webSocketPaths
    self.ble = ble
    self.device = device
    self.examples = examples
    self.file = file
  }

  /// The message kind called `name` (its name or a craft name).
  public func message(named name: String) -> SpecMessageKind? {
    messages.first { $0.name == name || $0.craftNames.contains(name) }
  }
}

/// How a binary message's kind is told.
public enum SpecDiscriminator: Sendable, Equatable {
  /// The value of a header field (by name, anywhere in the header's
  /// groups): each message kind states its value (`when`).
  case field(String)
  /// The frame's length in bytes: each message kind states its length.
  case frameLength
  /// JSON: by the keys present and the values of fixed keys.
  case keys
  /// Only one message kind.
  case none
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
