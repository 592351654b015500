/// The contract every codec plugin adopts.
///
/// A codec turns one application payload (a UDP datagram, a WebSocket text
/// message, an ATT value) into a typed message with a dissection tree and
/// diagnostics, and a typed message back into canonical bytes. It never knows
/// where its bytes came from.
public protocol FrameCodec: Sendable {
  associatedtype Message: Sendable & Equatable

  /// The codec's name, message kinds and field schemas. The CLI builds
  /// `craft` flags and help from it; the fuzzer builds random messages.
  var info: CodecInfo { get }

  /// `info.name`, without copying `info` (hot paths ask for it per message).
  var name: String { get }

  /// Decodes one payload. Structural damage throws a `DecodeError` that names
  /// the offset or key; out-of-range values decode with a warning.
  func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<Message>

  /// Canonical bytes for a message. Refuses out-of-range values.
  func encode(_ message: Message) throws(EncodeError) -> [UInt8]

  /// How sure the codec is that these bytes are its own: 0 (no) … 100 (certain).
  func probe(_ bytes: UnsafeRawBufferPointer) -> Int

  /// Counting without dissecting: the index in `info.messages` of the
  /// message these bytes decode to when `decode` would succeed with no
  /// diagnostics at all; nil when only a full `decode` can tell (damage,
  /// warnings, notes, unusual but valid forms). Must not allocate, and must
  /// never disagree with `decode`: the fuzzer checks that on every input.
  /// `decode --stats` counts the common case with it.
  func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int?

  /// `cleanKind` with the message: for a payload that decodes with no
  /// diagnostics into scalar fields (and groups of scalars, such as a
  /// binary header) only, fills `fields` with the
  /// message's name and exactly the fields `decode` returns, and says true.
  /// False (and `fields` unspecified) in every other case. Must not
  /// allocate; the fuzzer checks it against `decode` on every input.
  /// Summary lines and ndjson write such messages without a dissection tree.
  func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool

  /// Builds a typed message of kind `message` from craft values, validating
  /// ranges unless `values.force`.
  func message(_ message: String, from values: CraftValues) throws(EncodeError) -> Message

  /// Encodes as `craft` does: like `encode`, but honouring `force` (no range
  /// checks) and `badCheck` (a wrong check byte) for codecs that have them.
  func craftBytes(_ message: Message, values: CraftValues) throws(EncodeError) -> [UInt8]

  /// The schema name of a typed message's kind.
  func kind(of message: Message) -> String

  /// `decode` with the message type erased, for the CLI and the capture
  /// pipeline. A requirement (not only an extension method) so each codec's
  /// witness is specialised for its own types rather than running generic
  /// code per message.
  func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode

  /// Decode, re-encode, decode again, with the message type erased (see
  /// `SelfCheck`); a requirement for the same reason as `decodeFrame`.
  func selfCheck(_ bytes: UnsafeRawBufferPointer) -> SelfCheck

  /// Craft, decode, re-encode, with the message type erased (see
  /// `CraftCheck`); a requirement for the same reason as `decodeFrame`.
  func craftCheck(_ message: String, values: CraftValues) -> CraftCheck
}

extension FrameCodec {
  public var name: String { info.name }

  public func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { nil }

  public func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool { false }

  public func craftBytes(_ message: Message, values: CraftValues) throws(EncodeError) -> [UInt8] {
    try encode(message)
  }

  @inlinable
  public func decode(_ bytes: [UInt8]) throws(DecodeError) -> Decoded<Message> {
    // withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
    try bytes.withUnsafeBytes { buffer in
      Result { () throws(DecodeError) in try decode(buffer) }
    }.get()
  }

  @inlinable
  public func probe(_ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBytes { probe($0) }
  }

  @inlinable
  public func decodeFrame(_ bytes: UnsafeRawBufferPointer) -> FrameDecode {
    do {
      return .decoded(DecodedFrame(codec: name, try decode(bytes)))
    } catch {
      return .failed(codec: name, error: error)
    }
  }

  public func decodeFrame(_ bytes: [UInt8]) -> FrameDecode {
    bytes.withUnsafeBytes { decodeFrame($0) }
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
  /// The message kind's name in PROTOCOLS.md.
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
