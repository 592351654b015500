/// A codec that knows what its device does: `analyze` predicts with its
/// model and `emulate` acts as it. Adopted by the codec type, beside
/// `FrameCodec`; a codec without it is decoded but not modelled.
public protocol DeviceBehaviour {
  /// The modelled device in the protocol's words ("robot", "firmware",
  /// "Aerie server").
  var device: DeviceDescription { get }
  /// A fresh model of one device: every flow, connection and file that
  /// reaches it feeds this one model, in capture-time order.
  func makeModel(mode: ModelMode, settings: ModelSettings) throws(ModelSettingError) -> any DeviceModel
}

/// Who the modelled device is in a flow, and how `emulate` offers it.
public struct DeviceDescription: Sendable {
  /// "robot", "firmware", "machine", "Aerie server".
  public var name: String
  /// Message kinds only the device's peer sends to it, and kinds only the
  /// device sends: the first of either in a flow tells which end the device is.
  public var messagesToDevice: Set<String>
  public var messagesFromDevice: Set<String>
  /// Where the device listens when `emulate` plays it: `udp` or `ws`.
  public var listens: Set<String>
  /// The settings `emulate` and `analyze` take for the model, as flags.
  public var settings: [ModelSettingSchema]
  /// An example command line for help texts, after `pktbench emulate`.
  public var example: String
  /// What makes one device: its endpoint (every sender feeds it), or each
  /// connection to it.
  public var identity: DeviceIdentity
  /// Whom the device sends to.
  public var answers: DeviceAnswers
  /// The field the device keeps its state by within one endpoint
  /// (`deviceId`, the last segment of a WebSocket path), when it does: its
  /// model gets the handshake that names it.
  public var stateKey: String?

  public init(
    name: String, messagesToDevice: Set<String>, messagesFromDevice: Set<String>, listens: Set<String>,
    settings: [ModelSettingSchema] = [], example: String, identity: DeviceIdentity = .endpoint,
    answers: DeviceAnswers = .lastWriter, stateKey: String? = nil
  ) {
    self.name = name
    self.messagesToDevice = messagesToDevice
    self.messagesFromDevice = messagesFromDevice
    self.listens = listens
    self.settings = settings
    self.example = example
    self.identity = identity
    self.answers = answers
    self.stateKey = stateKey
  }
}

/// What makes one device in traffic.
public enum DeviceIdentity: Sendable {
  /// The endpoint it listens on (a UDP address and port, a WebSocket
  /// server's address and port, a BLE peripheral across its connections):
  /// every sender, source port and connection reaches the same device.
  case endpoint
  /// Each connection is a device of its own (a server whose sessions share
  /// nothing).
  case connection
}

/// Whom a device sends to, besides the replies an event names a peer for.
public enum DeviceAnswers: Sendable {
  /// The peer that wrote last (LegCtrl's notifications follow the last writer).
  case lastWriter
  /// The connection that asked; a timer's reply names its connection.
  case askingConnection
  /// Nobody: the device only acts (the Rider robot).
  case nobody
}

/// One setting of a model: `--checksum xor|modbus16lo`, `--aerie-bugs`,
/// `--auth-timeout 10s`.
public struct ModelSettingSchema: Sendable {
  public enum Kind: Sendable {
    /// On when given, with no value.
    case flag
    /// One of these words.
    case choice([String])
    /// Any text, shown in help as this placeholder (`SECONDS`, `SECRET`).
    case value(String)
  }

  /// The flag without dashes.
  public var flag: String
  public var help: String
  public var kind: Kind
  /// The value when not given; nil for a flag that is off, or no value.
  public var defaultValue: String?

  public init(flag: String, help: String, kind: Kind, defaultValue: String? = nil) {
    self.flag = flag
    self.help = help
    self.kind = kind
    self.defaultValue = defaultValue
  }
}

/// A model setting that is wrong: one sentence saying what and what is allowed.
public struct ModelSettingError: Error, Sendable {
  public var text: String

  public init(_ text: String) {
    self.text = text
  }
}
