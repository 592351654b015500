/// One message kind of a codec: its name in docs/protocols.md, the names `craft`
/// accepts for it, and its fields.
public struct MessageSchema: Sendable {
  public enum Direction: String, Sendable {
    case appToDevice = "app→device"
    case deviceToApp = "device→app"
    case either = "either"
  }

  /// The name in docs/protocols.md (`set_servo_ch0`, `authRequest`).
  public var name: String
  /// The same name as the literal it was written as (`FlatFields.message`);
  /// nil for a name made at run time.
  public var staticName: StaticString?
  /// Names `pktbench craft` accepts (`servo`, `auth`). The name itself is
  /// always accepted too.
  public var craftNames: [String]
  public var summary: String
  public var direction: Direction
  public var fields: [FieldSchema]

  /// A message kind named by a literal: its name serves the fast path too.
  public init(
    _ name: StaticString, craftNames: [String] = [], summary: String,
    direction: Direction, fields: [FieldSchema]
  ) {
    self.init(
      named: name.description, craftNames: craftNames, summary: summary, direction: direction, fields: fields)
    staticName = name
  }

  /// A message kind whose name is made at run time (a spec file's).
  public init(
    named name: String, craftNames: [String] = [], summary: String,
    direction: Direction, fields: [FieldSchema]
  ) {
    self.name = name
    self.staticName = nil
    self.craftNames = craftNames
    self.summary = summary
    self.direction = direction
    self.fields = fields
  }

  public func field(named name: String) -> FieldSchema? {
    fields.first { $0.name == name }
  }
}

/// What a codec says about itself in `pktbench codecs`.
public struct CodecInfo: Sendable {
  /// Short lower-case name used in flags and output (`legctrl`).
  public var name: String
  public var title: String
  public var transport: String
  public var messages: [MessageSchema]
  /// Options of the codec as a whole (e.g. the Rallie check variant).
  public var notes: [String]
  /// BLE GATT characteristics (lower-case 128-bit UUIDs) whose values are
  /// this codec's messages: the capture router maps ATT handles through them.
  public var gattCharacteristics: [String]
  /// JSON text or binary.
  public var encoding: PayloadEncoding
  /// Whether a frame carries a check byte (`craft --bad-check` spoils it).
  public var hasCheckByte: Bool
  /// The longest payload `decode` can accept: `decode --codec X -` reads
  /// no more of stdin than this (and one byte to know it is longer).
  public var maxPayloadLength: Int
  /// Ports and WebSocket paths that are this protocol's.
  public var wellKnown: [WellKnownEndpoint]
  /// Example command lines for the help texts, by command (`decode`,
  /// `craft`, `send`, `listen`, `replay`, …), each a whole line after
  /// `pktbench `: the CLI names no codec, its help shows the plugins'.
  public var examples: [String: [String]]
  /// Payloads as the protocol's reference writes them (its golden
  /// vectors), each named by its message: where the fuzzer starts from,
  /// besides what it crafts.
  public var vectors: [(message: String, bytes: [UInt8])]
  /// Fields that frame a message rather than say what it means (a header
  /// group, magic bytes, a source byte, a check, an envelope's type):
  /// summary lines leave them out. A group named here goes with its members.
  public var framingFields: Set<String>

  public init(
    name: String, title: String, transport: String, messages: [MessageSchema],
    notes: [String] = [], gattCharacteristics: [String] = [], encoding: PayloadEncoding = .binary,
    hasCheckByte: Bool = false, maxPayloadLength: Int = 16 << 20, wellKnown: [WellKnownEndpoint] = [],
    examples: [String: [String]] = [:], framingFields: Set<String> = [],
    vectors: [(message: String, bytes: [UInt8])] = []
  ) {
    self.name = name
    self.title = title
    self.transport = transport
    self.messages = messages
    self.notes = notes
    self.gattCharacteristics = gattCharacteristics
    self.encoding = encoding
    self.hasCheckByte = hasCheckByte
    self.maxPayloadLength = maxPayloadLength
    self.wellKnown = wellKnown
    self.examples = examples
    self.framingFields = framingFields
    self.vectors = vectors
  }

  public func message(named name: String) -> MessageSchema? {
    messages.first { $0.name == name || $0.craftNames.contains(name) }
  }

  /// The index in `messages` of the kind called `name` (a codec's fast
  /// path names its kinds this way, once, rather than by position).
  public func messageIndex(named name: String) -> Int? {
    messages.firstIndex { $0.name == name }
  }

  /// The schema name of the message `name` names (its schema name or a
  /// craft name), read in place: a codec's craft asks for every message it
  /// builds (the fuzzer's round trips), and `message(named:)` copies the
  /// whole schema out.
  public func messageName(named name: String) -> String? {
    messages.withUnsafeBufferPointer { schemas in
      for index in schemas.indices
      where schemas[index].name == name || schemas[index].craftNames.contains(name) {
        return schemas[index].name
      }
      return nil
    }
  }
}
