import PacketKit

/// What `craft` takes for each message kind of a `.ksy` codec, and the
/// codec's `CodecInfo`. A field is crafted unless the spec gives its value:
/// `contents`, a `valid` constant, an expected value, a length or count
/// (the content gives it), the message's discriminator (the kind gives
/// it), a check (computed). Fields of nested types are named by their
/// path (`header.flags`); a repeat, a switch or bytes are given as hex.
struct KsSchema {
  let program: KsProgram
  var plan: KsPlan { program.plan }

  /// What the craft walk meets in a type's seq.
  enum Role {
    case skip
    case nested(Int)
    case leaf
    case checkParameter(KsCheckPlan)
  }

  /// `path`: the types the walk is inside; a type met again (a recursive
  /// one) is crafted from its bytes.
  func role(_ attribute: KsAttributePlan, in type: Int, path: [Int] = []) -> Role {
    if case .contents = attribute.read { return .skip }
    if program.computed.contains([type, attribute.slot]) { return .skip }
    if let check = attribute.check { return .checkParameter(check) }
    if attribute.keys.expect != nil { return .skip }
    if let valid = attribute.valid, case .constant? = valid.equal { return .skip }
    if !attribute.isRepeated, case .user(let inner, _, _) = attribute.read, !path.contains(inner),
      path.count < 8
    {
      return .nested(inner)
    }
    return .leaf
  }

  /// The type a kind's fields are in: the root, and the case inlined.
  func fields(of kind: Int) -> [FieldSchema] {
    var fields: [FieldSchema] = []
    walk(type: 0, prefix: "", kind: kind, path: [0], into: &fields)
    return fields
  }

  private func walk(type: Int, prefix: String, kind: Int, path: [Int], into fields: inout [FieldSchema]) {
    for attribute in plan.types[type].seq {
      if type == 0, attribute.slot == program.messageSlot {
        if kind >= 0, let caseType = program.kinds[kind].type {
          walk(type: caseType, prefix: prefix, kind: kind, path: path + [caseType], into: &fields)
        }
        continue
      }
      switch role(attribute, in: type, path: path) {
      case .skip: continue
      case .nested(let inner):
        walk(
          type: inner, prefix: prefix + attribute.id + ".", kind: kind, path: path + [inner], into: &fields)
      case .leaf: fields.append(schema(attribute, name: prefix + attribute.id))
      case .checkParameter(let check):
        guard let parameter = check.check.craftParameter, !fields.contains(where: { $0.name == parameter })
        else {
          continue
        }
        let cases = check.check.variants.enumerated().map {
          FieldSchema.EnumCase($0.element.name, Int64($0.offset))
        }
        fields.append(
          FieldSchema(
            named: parameter, kind: .enumeration(cases), default: .enumeration(name: cases[0].name, raw: 0),
            help: "check: "
              + check.check.variants.map { "\($0.name) (\($0.algorithm.label))" }.joined(separator: " or "),
            role: .craftParameter))
      }
    }
  }

  func schema(_ attribute: KsAttributePlan, name: String) -> FieldSchema {
    let keys = attribute.keys
    var kind: FieldSchema.Kind
    var help = attribute.doc
    switch attribute.type {
    case .enumeration(let enumeration) where !attribute.isRepeated:
      kind = .enumeration(plan.enums[enumeration].values.map { FieldSchema.EnumCase($0.shown, $0.value) })
    case .bool where !attribute.isRepeated: kind = .bool
    case .integer where !attribute.isRepeated:
      kind = keys.scale != nil || keys.offset != nil ? .number : .integer
    case .float where !attribute.isRepeated: kind = .number
    case .string where !attribute.isRepeated: kind = .string
    default:
      kind = .bytes
      help += (help.isEmpty ? "" : "; ") + "given as its bytes in hex"
    }
    let flag = keys.flag ?? String(name.map { $0 == "_" || $0 == "." ? "-" : $0 })
    return FieldSchema(
      named: name, flag: flag, kind: kind, unit: attribute.unit, range: keys.range,
      default: keys.defaultValue.map { Self.value(of: $0, attribute, plan) },
      help: help.isEmpty ? name : help, casesAreFlags: keys.casesAreFlags)
  }

  /// A literal from a spec as the value `craft` and output use.
  static func value(of literal: SpecLiteral, _ attribute: KsAttributePlan, _ plan: KsPlan) -> FieldValue {
    switch literal {
    case .integer(let number):
      if let enumeration = attribute.enumeration, let shown = plan.enums[enumeration].shown(number) {
        return .enumeration(name: shown, raw: number)
      }
      return .integer(number)
    case .number(let number): return .number(number)
    case .text(let text):
      if let enumeration = attribute.enumeration,
        let entry = plan.enums[enumeration].values.first(where: {
          $0.shown.lowercased() == text.lowercased() || $0.id == text.lowercased()
        })
      {
        return .enumeration(name: entry.shown, raw: entry.value)
      }
      return .string(text)
    case .bytes(let bytes): return .bytes(bytes)
    case .bool(let flag): return .bool(flag)
    }
  }

  func info() -> CodecInfo {
    let keys = program.keys
    var wellKnown: [WellKnownEndpoint] = keys.udpPorts.map { .udp($0) }
    wellKnown += keys.webSocketPaths.map {
      .webSocket(pathPrefix: $0.prefix, lastSegmentField: $0.lastSegmentField)
    }
    return CodecInfo(
      name: program.name, title: program.title,
      transport: keys.transport.isEmpty ? "described by \(program.file)" : keys.transport,
      messages: program.kinds.indices.map { index in
        let kind = program.kinds[index]
        return MessageSchema(
          named: kind.name, craftNames: kind.keys.craftNames, summary: kind.summary,
          direction: kind.keys.direction,
          fields: fields(of: index))
      },
      notes: keys.notes + ["from the spec file \(program.file)"],
      gattCharacteristics: keys.ble?.characteristics.map(\.uuid) ?? [], encoding: .binary,
      hasCheckByte: program.hasCheck, wellKnown: wellKnown, examples: keys.examples,
      framingFields: framingFields())
  }

  /// Fields that frame rather than mean, which summary lines leave out:
  /// fixed bytes and values, reserved values, lengths and counts the
  /// content gives, the message kind's discriminator, checks; and a group
  /// all of whose members frame (LegCtrl's header).
  func framingFields() -> Set<String> {
    let plan = program.plan
    var names: Set<String> = []
    func frames(_ attribute: KsAttributePlan, in type: Int, depth: Int) -> Bool {
      if program.computed.contains([type, attribute.slot]) || attribute.check != nil
        || attribute.keys.expect != nil
      {
        return true
      }
      switch attribute.read {
      case .contents: return true
      case .user(let child, _, _) where depth < 8 && !attribute.isRepeated:
        let members = plan.types[child].seq
        return !members.isEmpty && members.allSatisfy { frames($0, in: child, depth: depth + 1) }
      default:
        if case .constant? = attribute.valid?.equal { return true }
        return false
      }
    }
    for (index, type) in plan.types.enumerated() {
      for attribute in type.seq where frames(attribute, in: index, depth: 0) { names.insert(attribute.id) }
    }
    return names
  }
}
