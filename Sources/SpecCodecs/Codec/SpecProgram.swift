import PacketKit

/// A loaded spec made ready to run: a `.ksy` format compiled (binary), or
/// a JSON protocol from its `-pktbench` section. Immutable, shared by
/// every copy of the codec.
public final class SpecProgram: Sendable {
  /// What the spec describes: a binary format, or a JSON protocol.
  enum Format: Sendable {
    case kaitai(KsProgram)
    case json(Spec)
  }

  let format: Format
  public let info: CodecInfo
  /// The codec's name (`meta/id`), read per message without touching the rest.
  public let name: String
  public let file: String
  /// Each kind's index in `info.messages` (-1: none), for `cleanKind`.
  let schemaIndex: [Int]
  /// How the device answers (`emulate`).
  let device: SpecDevice?
  /// Each message kind: its name, craft names, direction and rate.
  let kinds: [(name: String, craftNames: [String], direction: MessageSchema.Direction, rate: SpecRate?)]
  let udpPorts: [UInt16]
  /// What `cleanFields` may fill: the static names it needs were made.
  let flat: KsFlatNames?
  /// The clean path without the interpreter, when frames have a fixed layout.
  let fast: KsFastPlan?

  var kaitai: KsProgram? {
    if case .kaitai(let program) = format { return program }
    return nil
  }

  var json: Spec? {
    if case .json(let spec) = format { return spec }
    return nil
  }

  init(kaitai program: KsProgram) {
    format = .kaitai(program)
    let info = KsSchema(program: program).info()
    self.info = info
    name = program.name
    file = program.file
    schemaIndex = program.kinds.map { info.messageIndex(named: $0.name) ?? -1 }
    device = program.keys.device
    kinds = program.kinds.map { ($0.name, $0.keys.craftNames, $0.keys.direction, $0.keys.rate) }
    udpPorts = program.keys.udpPorts
    let flat = KsFlatNames(program)
    self.flat = flat
    fast = KsFastCompiler.make(program, names: flat)
  }

  init(json spec: Spec) {
    format = .json(spec)
    let info = SpecJSONSchema.info(spec)
    self.info = info
    name = spec.name
    file = spec.file
    schemaIndex = spec.messages.map { info.messageIndex(named: $0.name) ?? -1 }
    device = spec.device
    kinds = spec.messages.map { ($0.name, $0.craftNames, $0.direction, $0.rate) }
    udpPorts = spec.udpPorts
    flat = nil
    fast = nil
  }

  func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> SpecDecoded {
    switch format {
    case .kaitai(let program): try program.decode(bytes)
    case .json(let spec): try SpecJSONCodec(spec: spec).decode(bytes)
    }
  }

  func probe(_ bytes: UnsafeRawBufferPointer) -> Int {
    if let fast, let score = fast.probeScore(bytes) { return score }
    return switch format {
    case .kaitai(let program): program.probe(bytes)
    case .json(let spec): SpecJSONCodec(spec: spec).probe(bytes)
    }
  }

  func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? {
    if let fast, let kind = fast.kind(bytes) {
      return kind < schemaIndex.count && schemaIndex[kind] >= 0 ? schemaIndex[kind] : nil
    }
    return kaitai?.cleanKind(bytes, schemaIndex: schemaIndex)
  }

  func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
    guard let flat else { return false }
    if let fast, let done = fast.cleanFields(bytes, names: flat, into: &fields) { return done }
    return kaitai?.cleanFields(bytes, names: flat, into: &fields) ?? false
  }

  func encode(_ message: SpecMessage, validate: Bool) throws(EncodeError) -> [UInt8] {
    switch format {
    case .kaitai(let program): try KsEncoder(program: program).encode(message, validate: validate)
    case .json(let spec): try SpecJSONCodec(spec: spec).encode(message, validate: validate)
    }
  }

  func craft(_ name: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    switch format {
    case .kaitai(let program): try KsCraft(program: program).message(name, from: values)
    case .json(let spec): try SpecJSONCodec(spec: spec).craft(name, from: values)
    }
  }

  func kindName(_ message: SpecMessage) -> String {
    if let kaitai { return kaitai.kindName(message.kind) }
    return message.kind >= 0 && message.kind < kinds.count ? kinds[message.kind].name : "unknown"
  }

  /// The message kind called `name` (or one of its craft names).
  func kindIndex(named name: String) -> Int? {
    kinds.firstIndex { $0.name == name || $0.craftNames.contains(name) }
  }

  /// `craft --bad-check`: every check's bytes inverted.
  func spoilChecks(_ bytes: inout [UInt8]) {
    guard let kaitai else { return }
    KsEncoder(program: kaitai).spoilChecks(&bytes)
  }

  /// The check whose variant a device setting chooses: its variants' names and labels.
  func checkVariants(parameter: String) -> [(name: String, label: String)]? {
    guard let kaitai else { return nil }
    for type in kaitai.plan.types {
      for attribute in type.seq {
        if let check = attribute.check, check.check.craftParameter == parameter {
          return check.check.variants.map { ($0.name, $0.algorithm.label) }
        }
      }
    }
    return nil
  }

  /// The values of a decoded message's checks' variants, in field order.
  func checkVariant(_ message: SpecMessage) -> Int? {
    func find(_ tree: KsTree) -> Int? {
      switch tree {
      case .check(_, let variant): return variant
      case .object(_, let values):
        for value in values { if let found = find(value) { return found } }
        return nil
      case .array(let values):
        for value in values { if let found = find(value) { return found } }
        return nil
      default: return nil
      }
    }
    return find(message.tree)
  }
}
