import PacketKit

/// A message tree put back into an arena, so the interpreter's own
/// expressions (conditions, sizes, switches) can be evaluated while it is
/// written. Bytes and text go to the derived buffer; instances stay
/// unread (an instance a condition needs is computed from what is there).
extension KsRunner {
  mutating func materialize(_ tree: KsTree, parent: Int32) -> KsValue {
    switch tree {
    case .absent: return .absent
    case .integer(let value): return .integer(value)
    case .check(let value, _): return .integer(value)
    case .float(let bits): return .float(Double(bitPattern: bits))
    case .bool(let flag): return .bool(flag)
    case .bytes(let bytes), .string(let bytes):
      let start = Int32(arena.derived.count)
      arena.derived.append(contentsOf: bytes)
      let slice = KsSlice(buffer: 1, start: start, end: Int32(arena.derived.count))
      if case .string = tree { return .string(slice) }
      return .bytes(slice)
    case .array(let elements):
      var values: [KsValue] = []
      values.reserveCapacity(elements.count)
      for element in elements { values.append(materialize(element, parent: parent)) }
      let start = Int32(arena.elements.count)
      arena.elements.append(contentsOf: values)
      arena.elementRanges.append(contentsOf: Array(repeating: KsRange.empty, count: values.count))
      arena.arrays.append((start, Int32(values.count)))
      return .array(Int32(arena.arrays.count - 1))
    case .object(let type, let values):
      let typePlan = plan.types[type]
      let index = Int32(arena.objects.count)
      let root: Int32 = parent < 0 || typePlan.isFileRoot ? index : arena.objects[Int(parent)].root
      let base = Int32(arena.slots.count)
      arena.objects.append(
        KsObject(
          type: Int32(type), parent: parent, root: root, stream: 0, slotBase: base, range: .empty,
          little: false))
      for slot in 0..<typePlan.slotCount {
        arena.slots.append(.absent)
        arena.slotRanges.append(.empty)
        arena.slotStates.append(slot < typePlan.parameters.count + typePlan.seq.count ? 2 : 0)
      }
      for (slot, value) in values.enumerated() where slot < typePlan.parameters.count + typePlan.seq.count {
        let converted = materialize(value, parent: index)
        arena.slots[Int(base) + slot] = converted
        if case .check(_, let variant) = value { arena.checks.append((index, Int32(slot), Int32(variant))) }
      }
      return .object(index)
    }
  }

  /// The objects' byte orders, once their values are there (a calculated
  /// endian reads them).
  mutating func settleEndianness() throws(DecodeError) {
    for index in arena.objects.indices {
      let object = arena.objects[index]
      switch plan.types[Int(object.type)].endian {
      case .fixed(let little): arena.objects[index].little = little
      case .none: arena.objects[index].little = false
      case .inherited:
        arena.objects[index].little = object.parent >= 0 ? arena.objects[Int(object.parent)].little : false
      case .switched(let on, let cases, let fallback):
        let value = try eval(on, Int32(index), KsLocal())
        var little = fallback
        for item in cases where matches(value, item.match) {
          little = item.little
          break
        }
        guard let little else {
          throw DecodeError(code: "unknown-endian", offset: 0) {
            .init("no case of the calculated endianness matches")
          }
        }
        arena.objects[index].little = little
      }
    }
  }
}
