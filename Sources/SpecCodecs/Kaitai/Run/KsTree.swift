/// A binary message's values as a tree: what a decode read and `craft`
/// builds, enough to write the same bytes again. Instances are not kept:
/// they are computed, or read from bytes the tree already holds.
indirect enum KsTree: Sendable, Equatable {
  case absent
  case integer(Int64)
  /// A float's bits: a NaN read re-encodes as itself and compares equal.
  case float(UInt64)
  case bool(Bool)
  case bytes([UInt8])
  case string([UInt8])
  /// An object: its type, its seq's values (parameters first).
  case object(type: Int, [KsTree])
  case array([KsTree])
  /// A check field: its value and the variant it was (or is to be) computed with.
  case check(Int64, variant: Int)
}

extension KsRunner {
  /// The tree of `object`'s parameters and seq.
  func tree(of object: Int32) -> KsTree {
    let record = arena.objects[Int(object)]
    let type = plan.types[Int(record.type)]
    var values: [KsTree] = []
    let count = type.parameters.count + type.seq.count
    values.reserveCapacity(count)
    for slot in 0..<count {
      let index = Int(record.slotBase) + slot
      let value = arena.slots[index]
      if slot >= type.parameters.count, let check = type.attribute(slot: slot)?.check,
        case .integer(let raw) = value
      {
        let found = arena.checks.first { $0.object == object && Int($0.slot) == slot }
        values.append(.check(raw, variant: Int(max(0, found?.variant ?? 0))))
        _ = check
        continue
      }
      values.append(tree(value))
    }
    return .object(type: Int(record.type), values)
  }

  func tree(_ value: KsValue) -> KsTree {
    switch value {
    case .absent, .stream: return .absent
    case .integer(let integer): return .integer(integer)
    case .float(let number): return .float(number.bitPattern)
    case .bool(let flag): return .bool(flag)
    case .bytes(let slice): return .bytes(bytes(slice))
    case .string(let slice): return .string(bytes(slice))
    case .object(let child): return tree(of: child)
    case .array(let array):
      let record = arena.arrays[Int(array)]
      return .array((0..<Int(record.count)).map { tree(arena.elements[Int(record.start) + $0]) })
    }
  }
}
