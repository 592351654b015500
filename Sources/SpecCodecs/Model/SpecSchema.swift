import PacketKit

/// The schema pktbench's commands read (`craft` flags, `pktbench codecs`,
/// the fuzzer's generator), made from a spec: each message's crafted
/// fields, its flag bits, and its checks' variant parameters.
public enum SpecSchema {
  /// One field `craft` takes, with the spec line that defines it.
  struct CraftField {
    var schema: FieldSchema
    var line: Int
    var name: String { schema.name }
    var flag: String { schema.flag }
    var isCraftParameter: Bool { schema.role == .craftParameter }
  }

  public static func info(_ spec: Spec) -> CodecInfo {
    let hasCheck = spec.messages.contains { message in
      SpecLayout.flatten(spec.header + message.fields + spec.trailer).contains {
        if case .check = $0.role { return true }
        return false
      }
    }
    var wellKnown: [WellKnownEndpoint] = spec.udpPorts.map { .udp($0) }
    wellKnown += spec.webSocketPaths.map {
      .webSocket(pathPrefix: $0.prefix, lastSegmentField: $0.lastSegmentField)
    }
    return CodecInfo(
      name: spec.name, title: spec.title,
      transport: spec.transport.isEmpty ? "described by \(spec.file)" : spec.transport,
      messages: spec.messages.map { message in
        MessageSchema(
          named: message.name, craftNames: message.craftNames, summary: message.summary,
          direction: message.direction,
          fields: craftFields(of: message, in: spec).map(\.schema))
      },
      notes: spec.notes + ["from the spec file \(spec.file)"],
      gattCharacteristics: spec.ble?.characteristics.map(\.uuid) ?? [],
      encoding: spec.encoding, hasCheckByte: hasCheck, wellKnown: wellKnown, examples: spec.examples,
      framingFields: framingFields(spec))
  }

  /// Fields that frame rather than mean (fixed bytes, expected values,
  /// lengths, counts, the discriminator, checks): summary lines leave them out.
  static func framingFields(_ spec: Spec) -> Set<String> {
    var names: Set<String> = []
    for message in spec.messages {
      for field in SpecLayout.flatten(spec.header + message.fields + spec.trailer) {
        if case .value = field.role { continue }
        names.insert(field.name)
      }
    }
    return names
  }

  static func craftFields(of message: SpecMessageKind, in spec: Spec) -> [CraftField] {
    var fields: [CraftField] = []
    collect(spec.header + message.fields + spec.trailer, into: &fields)
    return fields
  }

  private static func collect(_ layout: [SpecField], into fields: inout [CraftField]) {
    for field in layout {
      switch field.role {
      case .value:
        switch field.type {
        case .group(let children):
          collect(children, into: &fields)
        case .integer where !field.flags.isEmpty:
          for flag in field.flags {
            fields.append(
              CraftField(
                schema: FieldSchema(
                  named: flag.name, kind: .bool, default: .bool(flagDefault(field, flag)),
                  help: flag.help ?? "bit 0x\(String(flag.mask, radix: 16)) of \(field.name)"),
                line: field.line))
          }
        default:
          fields.append(CraftField(schema: schema(field), line: field.line))
        }
      case .check(let check):
        guard let parameter = check.craftParameter, !fields.contains(where: { $0.name == parameter }) else {
          continue
        }
        let cases = check.variants.enumerated().map {
          FieldSchema.EnumCase($0.element.name, Int64($0.offset))
        }
        fields.append(
          CraftField(
            schema: FieldSchema(
              named: parameter, kind: .enumeration(cases), default: .enumeration(name: cases[0].name, raw: 0),
              help: "check: "
                + check.variants.map { "\($0.name) (\($0.algorithm.rawValue))" }.joined(separator: " or "),
              role: .craftParameter),
            line: field.line))
      default:
        continue
      }
    }
  }

  private static func flagDefault(_ field: SpecField, _ flag: SpecFlag) -> Bool {
    if case .integer(let raw) = field.defaultValue { return UInt64(bitPattern: raw) & flag.mask != 0 }
    return false
  }

  static func schema(_ field: SpecField) -> FieldSchema {
    let kind: FieldSchema.Kind
    switch field.type {
    case .integer, .json(.integer):
      kind = field.enumeration.map { .enumeration(cases($0)) } ?? .integer
    case .float, .json(.number): kind = .number
    case .json(.bool): kind = .bool
    case .json(.string): kind = field.enumeration.map { .enumeration(cases($0)) } ?? .string
    case .text: kind = .string
    case .bytes, .repeated, .group: kind = .bytes
    }
    var help = field.help
    if case .repeated(_, let element) = field.type {
      let size = element.compactMap(\.staticSize).reduce(0, +)
      help += (help.isEmpty ? "" : "; ") + "elements as hex, \(size) bytes each"
    }
    return FieldSchema(
      named: field.name, flag: field.craftFlag, kind: kind, unit: field.unit,
      range: field.range,
      default: field.defaultValue.map { value(of: $0, for: field) } ?? (field.optional ? .null : nil),
      defaultDescription: field.optional && field.defaultValue == nil ? "absent" : nil,
      help: help.isEmpty ? field.name : help, casesAreFlags: field.casesAreFlags)
  }

  static func cases(_ enumeration: SpecEnum) -> [FieldSchema.EnumCase] {
    enumeration.cases.map { FieldSchema.EnumCase($0.name, $0.value) }
  }

  /// A spec literal as the value `craft` and output use.
  static func value(of literal: SpecLiteral, for field: SpecField) -> FieldValue {
    switch literal {
    case .integer(let number):
      if let known = field.enumeration?.value(number) { return .enumeration(name: known.name, raw: number) }
      return .integer(number)
    case .number(let number): return .number(number)
    case .text(let text):
      if let known = field.enumeration?.named(text) {
        return .enumeration(name: known.name, raw: known.value)
      }
      return .string(text)
    case .bytes(let bytes): return .bytes(bytes)
    case .bool(let flag): return .bool(flag)
    }
  }
}
