/// Speed on the hot paths, opt-in: a codec that adopts it lets `decode
/// --stats` count its common messages without decoding them, and summary
/// lines and ndjson write them without a dissection tree. The four built-in
/// codecs adopt it; a codec of one's own needs none of it. Nothing here may
/// change what the codec means: the fuzzer holds every answer to `decode`'s
/// on every input.
public protocol FastFrameCodec: FrameCodec {
  /// The index in `info.messages` of the message these bytes decode to
  /// when `decode` would succeed with no diagnostics at all; nil when only
  /// a full `decode` can tell (damage, warnings, notes, unusual but valid
  /// forms). Must not allocate. Take indices from the schema
  /// (`info.messageIndex(named:)`), not by position.
  func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int?

  /// For the same clean payloads whose fields are scalars (and groups of
  /// scalars, such as a binary header): fills `fields` with the message's
  /// name and exactly the fields `decode` returns, and says true; false
  /// (and `fields` unspecified) otherwise. Must not allocate: names and
  /// units are `StaticString`s, taken from the schema's own
  /// (`FieldSchema.staticName`, `MessageSchema.staticName`).
  func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool

  // The three below have defaults that are the only right answers: do not
  // implement them. They are requirements so that the codec's own module
  // compiles them for its own types; reached through generic code instead
  // (the codec set, the fuzzer), they look up type metadata per message.

  /// Do not implement: `decodeFrame(_:)`, compiled for this codec.
  func _decodeFrame(_ bytes: ByteView) -> FrameDecode
  /// Do not implement: `selfCheck(_:)`, compiled for this codec.
  func _selfCheck(_ bytes: ByteView) -> SelfCheck
  /// Do not implement: `craftCheck(_:values:)`, compiled for this codec.
  func _craftCheck(_ message: String, values: CraftValues) -> CraftCheck
}

extension FastFrameCodec {
  @inlinable
  public func _decodeFrame(_ bytes: ByteView) -> FrameDecode { decodeFrame(bytes) }
  @inlinable
  public func _selfCheck(_ bytes: ByteView) -> SelfCheck { selfCheck(bytes) }
  @inlinable
  public func _craftCheck(_ message: String, values: CraftValues) -> CraftCheck {
    craftCheck(message, values: values)
  }
}
