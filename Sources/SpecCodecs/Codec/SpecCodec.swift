import PacketKit

/// A codec described by a spec file, adopting `FrameCodec`: this file is
/// the whole adapter between the interpreter (`SpecProgram`) and the codec
/// contract. A spec that describes replies makes a `SpecDeviceCodec`,
/// which is also a `DeviceBehaviour` (`emulate` lists codecs by that
/// conformance, so a spec without replies must not have it).
public struct SpecCodec: FastFrameCodec, AnalysisRules {
  public typealias Message = SpecMessage

  public let program: SpecProgram

  public init(_ program: SpecProgram) {
    self.program = program
  }

  public var info: CodecInfo { program.info }

  public var name: String { program.name }

  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<SpecMessage> {
    let decoded = try bytes.withUnsafeBytes { raw throws(DecodeError) in try program.decode(raw) }
    return Decoded(
      message: decoded.message, messageName: decoded.name, fields: decoded.fields,
      diagnostics: decoded.diagnostics)
  }

  public func encode(_ message: SpecMessage) throws(EncodeError) -> [UInt8] {
    try program.encode(message, validate: true)
  }

  public func probe(_ bytes: ByteView) -> Int {
    bytes.withUnsafeBytes { program.probe($0) }
  }

  public func message(_ message: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    try program.craft(message, from: values)
  }

  /// `craft`: the message written, then read back unless forced — a
  /// spec can tie fields together in ways craft does not compute (RTP's
  /// padding count is the frame's last byte), and a frame its own decode
  /// refuses is not crafted without `--force`.
  public func craftBytes(_ message: SpecMessage, values: CraftValues) throws(EncodeError) -> [UInt8] {
    var bytes = try program.encode(message, validate: !values.force)
    if !values.force, program.kaitai != nil {
      let name = program.kindName(message)
      let readBack: Result<SpecDecoded, DecodeError> = bytes.withUnsafeBytes { raw in
        Result { () throws(DecodeError) in try program.decode(raw) }
      }
      switch readBack {
      case .success(let decoded) where decoded.name == name: break
      case .success(let decoded):
        throw EncodeError(
          code: "does-not-read-back",
          text: "\(name) as given decodes as \(decoded.name); --force crafts it anyway",
          forceCrafts: true)
      case .failure(let error):
        throw EncodeError(
          code: "does-not-read-back",
          text: "\(name) as given does not decode [\(error.code)]: \(error.text); --force crafts it anyway",
          forceCrafts: true)
      }
    }
    if values.badCheck { program.spoilChecks(&bytes) }
    return bytes
  }

  public func kind(of message: SpecMessage) -> String {
    program.kindName(message)
  }

  public func makeRules(options: AnalysisOptions) -> [any FlowRules] {
    program.makeRules()
  }

  /// `decode --stats` counts a clean frame's kind without decoding it.
  public func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? {
    program.cleanKind(bytes)
  }

  /// Summary lines and ndjson write a clean frame without a dissection
  /// tree: the spec's names were made static strings at load.
  public func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
    program.cleanFields(bytes, into: &fields)
  }
}

/// A spec codec whose spec describes how its device answers.
public struct SpecDeviceCodec: FastFrameCodec, AnalysisRules {
  public typealias Message = SpecMessage

  public let codec: SpecCodec
  public var program: SpecProgram { codec.program }

  public init(_ codec: SpecCodec) {
    self.codec = codec
  }

  public var info: CodecInfo { codec.info }
  public var name: String { codec.name }

  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<SpecMessage> {
    try codec.decode(bytes)
  }

  public func encode(_ message: SpecMessage) throws(EncodeError) -> [UInt8] { try codec.encode(message) }
  public func probe(_ bytes: ByteView) -> Int { codec.probe(bytes) }

  public func message(_ message: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    try codec.message(message, from: values)
  }

  public func craftBytes(_ message: SpecMessage, values: CraftValues) throws(EncodeError) -> [UInt8] {
    try codec.craftBytes(message, values: values)
  }

  public func kind(of message: SpecMessage) -> String { codec.kind(of: message) }

  public func makeRules(options: AnalysisOptions) -> [any FlowRules] { codec.makeRules(options: options) }

  public func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? { codec.cleanKind(bytes) }

  public func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
    codec.cleanFields(bytes, into: &fields)
  }
}

extension SpecProgram {
  /// The codec this spec makes: with a device model when it describes replies.
  public func codec() -> any FastFrameCodec {
    device == nil ? SpecCodec(self) : SpecDeviceCodec(SpecCodec(self))
  }
}

extension SpecProgram {
  /// The program behind a codec, when a spec file made it.
  public static func of(_ codec: any FrameCodec) -> SpecProgram? {
    (codec as? SpecCodec)?.program ?? (codec as? SpecDeviceCodec)?.program
  }
}
