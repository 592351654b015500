/// What a codec is: the whole of what a plugin author writes. A codec turns
/// one application payload (a UDP datagram, a WebSocket text message, an
/// ATT value) into a typed message with a dissection tree and diagnostics,
/// a typed message back into canonical bytes, and craft values into a
/// message. It never knows where its bytes came from.
///
/// Everything else pktbench does with a codec (routing, decode output, the
/// display filter, `craft`, `send`, fuzzing, analysis rates) comes from
/// these and from `info`: six requirements, one of them optional
/// (`craftBytes`). Speed is opt-in and separate (`FastFrameCodec`); what
/// the devices do is separate too (`DeviceBehaviour`, `AnalysisRules`).
public protocol FrameCodec: Sendable {
  associatedtype Message: Sendable & Equatable

  /// The codec's name, message kinds and field schemas (names, craft flags,
  /// units, ranges, defaults) and its well-known ports and paths. `craft`
  /// flags, help, range checks and the fuzzer's messages all come from here.
  var info: CodecInfo { get }

  /// Decodes one payload. Structural damage throws a `DecodeError` naming
  /// the offset or key (`DecodeError(code: "bad-version", offset: 0, text:
  /// "…")`); a value out of its range decodes with a warning. `decode` must
  /// read nothing but its bytes.
  func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<Message>

  /// Canonical bytes for a message. Refuses out-of-range values.
  func encode(_ message: Message) throws(EncodeError) -> [UInt8]

  /// How sure the codec is that these bytes are its own: 0 (no) … 100 (certain).
  func probe(_ bytes: ByteView) -> Int

  /// Builds a typed message of kind `kind` (a schema name) from craft
  /// values, validating ranges unless `values.force`.
  func message(_ kind: String, from values: CraftValues) throws(EncodeError) -> Message

  /// The schema name of a typed message's kind.
  func kind(of message: Message) -> String

  /// Optional: encodes as `craft` does, honouring `force` (no range checks)
  /// and `badCheck` (a wrong check byte) for codecs that have them. By
  /// default, `encode`.
  func craftBytes(_ message: Message, values: CraftValues) throws(EncodeError) -> [UInt8]
}

extension FrameCodec {
  /// `info.name`.
  public var name: String { info.name }

  public func craftBytes(_ message: Message, values: CraftValues) throws(EncodeError) -> [UInt8] {
    try encode(message)
  }

  @inlinable
  public func decode(_ bytes: [UInt8]) throws(DecodeError) -> Decoded<Message> {
    try ByteView.of(bytes) { view throws(DecodeError) in try decode(view) }
  }

  @inlinable
  public func probe(_ bytes: [UInt8]) -> Int {
    ByteView.of(bytes) { probe($0) }
  }

  /// `decode` with the message type erased, for outputs and the pipeline.
  @inlinable
  public func decodeFrame(_ bytes: ByteView) -> FrameDecode {
    do {
      return .decoded(DecodedFrame(codec: name, try decode(bytes)))
    } catch {
      return .failed(codec: name, error: error)
    }
  }

  public func decodeFrame(_ bytes: [UInt8]) -> FrameDecode {
    ByteView.of(bytes) { decodeFrame($0) }
  }

  /// Crafts message kind `message` (a schema name or craft name) from values.
  public func craft(_ message: String, values: CraftValues) throws(EncodeError) -> [UInt8] {
    guard let schema = info.message(named: message) else {
      throw EncodeError(
        code: "unknown-message",
        text: "\(info.name) has no message '\(message)'; it has "
          + info.messages.map(\.name).joined(separator: ", "))
    }
    let typed = try self.message(schema.name, from: values)
    return try craftBytes(typed, values: values)
  }
}

/// A successful decode: the typed message, its dissection and diagnostics.
public struct Decoded<Message: Sendable & Equatable>: Sendable {
  public var message: Message
  /// The message kind's name in docs/protocols.md.
  public var messageName: String
  /// Top-level fields in wire order.
  public var fields: [DissectionNode]
  public var diagnostics: [Diagnostic]

  public init(
    message: Message, messageName: String, fields: [DissectionNode],
    diagnostics: [Diagnostic] = []
  ) {
    self.message = message
    self.messageName = messageName
    self.fields = fields
    self.diagnostics = diagnostics
  }
}

/// A decoded message with its type erased: what every output shows.
public struct DecodedFrame: Sendable {
  public var codec: String
  public var message: String
  public var fields: [DissectionNode]
  public var diagnostics: [Diagnostic]

  public init(codec: String, message: String, fields: [DissectionNode], diagnostics: [Diagnostic]) {
    self.codec = codec
    self.message = message
    self.fields = fields
    self.diagnostics = diagnostics
  }

  /// A codec's typed decode with the message type erased.
  @inlinable
  public init<Message>(codec: String, _ decoded: Decoded<Message>) {
    self.init(
      codec: codec, message: decoded.messageName, fields: decoded.fields, diagnostics: decoded.diagnostics)
  }
}

public enum FrameDecode: Sendable {
  case decoded(DecodedFrame)
  case failed(codec: String, error: DecodeError)

  public var codec: String {
    switch self {
    case .decoded(let frame): frame.codec
    case .failed(let codec, _): codec
    }
  }
}
