import PacketKit

/// The schema pktbench's commands read for a JSON protocol: each
/// message's keys as `craft` takes them.
enum SpecJSONSchema {
  static func info(_ spec: Spec) -> CodecInfo {
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
          fields: message.fields.filter {
            if case .value = $0.role { return true }; return false
          }.map(schema))
      },
      notes: spec.notes + ["from the spec file \(spec.file)"],
      gattCharacteristics: spec.ble?.characteristics.map(\.uuid) ?? [], encoding: .json, hasCheckByte: false,
      wellKnown: wellKnown, examples: spec.examples,
      framingFields: Set(
        spec.messages.flatMap { message in
          message.fields.filter {
            if case .value = $0.role { return false }; return true
          }.map(\.name)
        }))
  }

  static func schema(_ field: SpecField) -> FieldSchema {
    let kind: FieldSchema.Kind
    switch field.type {
    case .integer: kind = field.enumeration.map { .enumeration(cases($0)) } ?? .integer
    case .number: kind = .number
    case .bool: kind = .bool
    case .string: kind = field.enumeration.map { .enumeration(cases($0)) } ?? .string
    }
    return FieldSchema(
      named: field.name, flag: field.craftFlag, kind: kind, unit: field.unit, range: field.range,
      default: field.defaultValue.map { value(of: $0, for: field) } ?? (field.optional ? .null : nil),
      defaultDescription: field.optional && field.defaultValue == nil ? "absent" : nil,
      help: field.help.isEmpty ? field.name : field.help, casesAreFlags: field.casesAreFlags)
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
