import PacketKit

/// The spec's names as static strings, made once at load, for
/// `cleanFields` (flat fields hold only static strings): attribute names
/// by type and slot, enum value names, message names, check variants.
struct KsFlatNames: Sendable {
  let attributes: [[StaticString?]]
  /// Per enum, its names for 0…255 (nil: none, or not plain enough to write unescaped).
  let enums: [[StaticString?]]
  let kinds: [StaticString]
  let variants: [[[StaticString]]]
  /// Per type and slot, the name of the field reporting which check variant matched.
  let reports: [[StaticString?]]

  init?(_ program: KsProgram) {
    let plan = program.plan
    var attributes: [[StaticString?]] = []
    var variants: [[[StaticString]]] = []
    var reports: [[StaticString?]] = []
    for type in plan.types {
      var names = [StaticString?](repeating: nil, count: type.slotCount)
      var checks = [[StaticString]](repeating: [], count: type.slotCount)
      var reported = [StaticString?](repeating: nil, count: type.slotCount)
      for attribute in type.seq + type.instances {
        names[attribute.slot] = SpecStaticText.intern(attribute.id)
        if let check = attribute.check {
          if let report = check.check.reportField { reported[attribute.slot] = SpecStaticText.intern(report) }
          checks[attribute.slot] = check.check.variants.compactMap { Self.plain($0.name) }
        }
      }
      attributes.append(names)
      variants.append(checks)
      reports.append(reported)
    }
    self.attributes = attributes
    self.variants = variants
    self.reports = reports
    enums = plan.enums.map { enumeration in
      enumeration.small.map { name in name.flatMap(Self.plain) }
    }
    var kinds: [StaticString] = []
    for kind in program.kinds {
      guard let name = Self.plain(kind.name) else { return nil }
      kinds.append(name)
    }
    self.kinds = kinds
  }

  /// Text a writer may copy unescaped: printable ASCII without quotes or backslashes.
  static func plain(_ text: String) -> StaticString? {
    guard text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) else { return nil }
    return SpecStaticText.intern(text)
  }
}

extension KsProgram {
  /// `FastFrameCodec.cleanFields`: a clean frame's fields as flat fields,
  /// when they are scalars and groups of scalars (at most 12).
  func cleanFields(_ bytes: UnsafeRawBufferPointer, names: KsFlatNames, into fields: inout FlatFields) -> Bool
  {
    let done: Bool? = try? withRunner(bytes, mode: .clean) { (runner) throws(DecodeError) -> Bool in
      let root = try runner.readFrame()
      try runner.resolveEnumKind(root)
      guard runner.kind >= 0, runner.extra == nil else { return false }
      fields.removeAll()
      fields.message = names.kinds[runner.kind]
      return runner.flat(root, names: names, nested: false, into: &fields)
    }
    return done ?? false
  }
}

extension KsRunner {
  func flat(_ object: Int32, names: KsFlatNames, nested: Bool, into fields: inout FlatFields) -> Bool {
    let record = arena.objects[Int(object)]
    let typeIndex = Int(record.type)
    let type = plan.types[typeIndex]
    let isRoot = record.parent < 0 && object == 0
    for attribute in type.seq
    where !flat(attribute, object, record, typeIndex, names, nested, isRoot, &fields) {
      return false
    }
    for attribute in type.instances
    where arena.slotStates[Int(record.slotBase) + attribute.slot] == 2
      && !flat(attribute, object, record, typeIndex, names, nested, isRoot, &fields)
    {
      return false
    }
    return true
  }

  /// One attribute into flat fields; false when it cannot be one.
  private func flat(
    _ attribute: KsAttributePlan, _ object: Int32, _ record: KsObject, _ typeIndex: Int, _ names: KsFlatNames,
    _ nested: Bool, _ isRoot: Bool, _ fields: inout FlatFields
  ) -> Bool {
    let index = Int(record.slotBase) + attribute.slot
    let value = arena.slots[index]
    let range = arena.slotRanges[index]
    if isRoot, attribute.slot == program.messageSlot {
      guard case .object(let child) = value, flat(child, names: names, nested: nested, into: &fields) else {
        return false
      }
      return true
    }
    guard let name = names.attributes[typeIndex][attribute.slot] else { return false }
    switch value {
    case .absent: return true
    case .object(let child):
      guard !nested, !attribute.isRepeated else { return false }
      var members = FlatFields()
      guard flat(child, names: names, nested: true, into: &members),
        fields.append(
          FlatFields.Field(name, .group(count: members.count), range: arena.objects[Int(child)].range.range)
        )
      else { return false }
      for member in 0..<members.count where !fields.append(members[member]) { return false }
    case .integer(let integer):
      guard !attribute.isRepeated else { return false }
      let flatValue: FlatFields.Value
      if let enumeration = attribute.enumeration {
        guard integer >= 0, integer < 256, let shown = names.enums[enumeration][Int(integer)] else {
          return false
        }
        flatValue = .enumeration(shown, raw: integer)
      } else if attribute.keys.scale != nil || attribute.keys.offset != nil {
        flatValue = .number(Double(integer) * (attribute.keys.scale ?? 1) + (attribute.keys.offset ?? 0))
      } else if attribute.isUnsignedRead {
        flatValue = .unsigned(UInt64(bitPattern: integer))
      } else {
        flatValue = .integer(integer)
      }
      guard
        fields.append(
          FlatFields.Field(name, flatValue, unit: unit(attribute)?.text ?? "", range: range.range))
      else { return false }
      if let check = attribute.check, let report = check.check.reportField {
        guard
          let variant = arena.checks.first(where: { $0.object == object && Int($0.slot) == attribute.slot }
          )?.variant,
          variant >= 0, Int(variant) < names.variants[typeIndex][attribute.slot].count,
          let reportName = SpecStaticText.intern(report)
        else { return false }
        let shown = names.variants[typeIndex][attribute.slot][Int(variant)]
        guard
          fields.append(
            FlatFields.Field(reportName, .enumeration(shown, raw: Int64(variant)), range: range.range))
        else { return false }
      }
    case .float(let number):
      guard !attribute.isRepeated else { return false }
      let shown = number * (attribute.keys.scale ?? 1) + (attribute.keys.offset ?? 0)
      guard
        fields.append(
          FlatFields.Field(name, .number(shown), unit: unit(attribute)?.text ?? "", range: range.range))
      else { return false }
    default:
      return false
    }
    return true
  }
}
