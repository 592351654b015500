import PacketKit

extension KsRunner {
  /// An element just read, judged: `valid` (damage), then pktbench's
  /// expected value, known enum value and documented range (warnings).
  mutating func judge(_ attribute: KsAttributePlan, _ value: KsValue, _ range: KsRange, object: Int32)
    throws(DecodeError)
  {
    if let valid = attribute.valid { try self.valid(valid, attribute, value, range, object: object) }
    if let expected = attribute.keys.expect, !Self.equals(value, expected, attribute: attribute, runner: self)
    {
      let (id, shown) = (attribute.id, describe(value, hex: true))
      try warn(attribute.keys.expectWarning, range) {
        "\(id) at offset \(range.start) is \(shown); expected \(expected.described)"
      }
    }
    if let enumeration = attribute.enumeration, case .integer(let raw) = value,
      program.enumIsKnown[enumeration].contains(raw) == false,
      !(program.discriminator?.type == Int(arena.objects[Int(object)].type)
        && program.discriminator?.slot == attribute.slot)
    {
      let id = attribute.id
      let known = plan.enums[enumeration].values.map { "\($0.shown) (\($0.value))" }.joined(separator: ", ")
      try warn("unknown-enum", range) {
        "\(id) \(raw) at offset \(range.start) is unknown; known are \(known)"
      }
    }
    if let allowed = attribute.keys.range, let number = shown(value, attribute.keys) {
      guard !allowed.contains(number) else { return }
      let (id, unit) = (attribute.id, attribute.unit.map { " \($0)" } ?? "")
      try warn("out-of-range", range) {
        "\(id) \(JSONWriter.formatNumber(number))\(unit) at offset \(range.start) is outside "
          + "\(JSONWriter.formatNumber(allowed.lowerBound))…\(JSONWriter.formatNumber(allowed.upperBound))\(unit)"
      }
    }
  }

  /// The number people see: scaled and offset as the spec says.
  func shown(_ value: KsValue, _ keys: KsyFieldKeys) -> Double? {
    let raw: Double
    switch value {
    case .integer(let integer): raw = Double(integer)
    case .float(let number): raw = number
    default: return nil
    }
    return raw * (keys.scale ?? 1) + (keys.offset ?? 0)
  }

  mutating func valid(
    _ valid: KsValidPlan, _ attribute: KsAttributePlan, _ value: KsValue, _ range: KsRange, object: Int32
  ) throws(DecodeError) {
    let local = KsLocal(underscore: value)
    var failed: String?
    if let equal = valid.equal {
      let expected = try eval(equal, object, local)
      if !same(value, expected) { failed = "is not \(describe(expected, hex: attribute.keys.hex))" }
    }
    if failed == nil, let min = valid.min {
      let bound = try eval(min, object, local)
      if order(value, bound) < 0 { failed = "is below \(describe(bound, hex: false))" }
    }
    if failed == nil, let max = valid.max {
      let bound = try eval(max, object, local)
      if order(value, bound) > 0 { failed = "is above \(describe(bound, hex: false))" }
    }
    if failed == nil, !valid.anyOf.isEmpty {
      var any = false
      for option in valid.anyOf {
        let allowed = try eval(option, object, local)
        if same(value, allowed) {
          any = true
          break
        }
      }
      if !any { failed = "is none of the values allowed" }
    }
    if failed == nil, let expr = valid.expr, !(try evalBool(expr, object, local)) {
      failed = "fails its validity condition"
    }
    if failed == nil, let enumeration = valid.inEnum, case .integer(let raw) = value,
      !program.enumIsKnown[enumeration].contains(raw)
    {
      failed = "is no value of its enum"
    }
    guard let failed else { return }
    var offset = Int(range.start)
    if let at = attribute.errorAt, let found = try? pathRange(at, object: object, local: local) {
      offset = Int(found.start)
    }
    let (id, shown) = (attribute.id, describe(value, hex: attribute.keys.hex))
    throw DecodeError(code: attribute.keys.error ?? "not-valid", offset: offset) {
      .init("\(id) at offset \(range.start) is \(shown) and \(failed)", found: shown)
    }
  }

  /// Where the attribute a path expression names lies.
  mutating func pathRange(_ code: KsCode, object: Int32, local: KsLocal) throws(DecodeError) -> KsRange {
    switch code {
    case .slot(let slot):
      _ = try slotValue(object, slot)
      return arena.slotRanges[Int(arena.objects[Int(object)].slotBase) + slot]
    case .member(let base, let slot):
      guard case .object(let owner) = try eval(base, object, local) else { return .empty }
      _ = try slotValue(owner, slot)
      return arena.slotRanges[Int(arena.objects[Int(owner)].slotBase) + slot]
    case .dynamicMember(let base, _, let slots):
      guard case .object(let owner) = try eval(base, object, local),
        let slot = slots[Int(arena.objects[Int(owner)].type)]
      else { return .empty }
      _ = try slotValue(owner, slot)
      return arena.slotRanges[Int(arena.objects[Int(owner)].slotBase) + slot]
    default: return .empty
    }
  }

  static func equals(_ value: KsValue, _ literal: SpecLiteral, attribute: KsAttributePlan, runner: KsRunner)
    -> Bool
  {
    switch (value, literal) {
    case (.integer(let a), .integer(let b)): return a == b
    case (.integer(let a), .number(let b)): return Double(a) == b
    case (.float(let a), .number(let b)): return a == b
    case (.float(let a), .integer(let b)): return a == Double(b)
    case (.bool(let a), .bool(let b)): return a == b
    case (.bool(let a), .integer(let b)): return (a ? 1 : 0) == b
    case (.bytes(let slice), .bytes(let bytes)):
      return runner.matches(.bytes(slice), .bytes(bytes))
    default: return false
    }
  }

  /// A value as texts show it.
  func describe(_ value: KsValue, hex: Bool) -> String {
    switch value {
    case .absent: return "absent"
    case .integer(let integer):
      return hex && integer >= 0 ? "0x" + String(integer, radix: 16, uppercase: true) : String(integer)
    case .float(let number): return JSONWriter.formatNumber(number)
    case .bool(let flag): return flag ? "true" : "false"
    case .bytes(let slice):
      var bytes: [UInt8] = []
      for index in slice.start..<min(slice.end, slice.start + 16) { bytes.append(byte(slice.buffer, index)) }
      return Hex.spaced(bytes) + (slice.count > 16 ? " …" : "")
    case .string(let slice):
      var bytes: [UInt8] = []
      for index in slice.start..<slice.end { bytes.append(byte(slice.buffer, index)) }
      return JSONWriter.quoted(String(decoding: bytes, as: UTF8.self))
    case .object: return "an object"
    case .array: return "an array"
    case .stream: return "a stream"
    }
  }
}
