import PacketKit

/// A frame's objects as pktbench shows them: one node per attribute that
/// is there (seq attributes, then instances), with its byte range and the
/// display-filter name it has (`dns.flags.qr`); user types as groups,
/// repeats as arrays. The message switch's case is shown in the root's
/// place (its fields are the message's); the unknown message's bytes
/// under the spec's name for them.
extension KsRunner {
  func nodes(of object: Int32) -> [DissectionNode] {
    let record = arena.objects[Int(object)]
    let type = plan.types[Int(record.type)]
    var nodes: [DissectionNode] = []
    nodes.reserveCapacity(type.seq.count + type.instances.count)
    let isRoot = record.parent < 0 && object == 0
    for attribute in type.seq {
      let index = Int(record.slotBase) + attribute.slot
      let value = arena.slots[index]
      let range = arena.slotRanges[index]
      if isRoot, attribute.slot == program.messageSlot {
        switch value {
        case .object(let child): nodes += self.nodes(of: child)
        case .bytes(let slice) where slice.count > 0:
          nodes.append(DissectionNode(program.unknown.bodyField, .bytes(bytes(slice)), range: range.range))
        default: break
        }
        if let extra {
          let name: String
          if kind >= 0, case .keep(let field, _, _)? = program.kinds[kind].keys.sizeMismatch {
            name = field
          } else {
            name = "extra"
          }
          nodes.append(DissectionNode(name, .bytes(bytes(extra)), range: extraRange.range))
        }
        continue
      }
      guard let node = node(attribute, value, range) else { continue }
      nodes.append(node)
      if let check = attribute.check, let report = check.check.reportField,
        let found = arena.checks.first(where: { $0.object == object && Int($0.slot) == attribute.slot }),
        found.variant >= 0
      {
        let variant = check.check.variants[Int(found.variant)]
        nodes.append(
          DissectionNode(
            report, .enumeration(name: variant.name, raw: Int64(found.variant)), range: range.range))
      }
    }
    for attribute in type.instances {
      let index = Int(record.slotBase) + attribute.slot
      guard arena.slotStates[index] == 2,
        let node = node(attribute, arena.slots[index], arena.slotRanges[index])
      else {
        continue
      }
      nodes.append(node)
    }
    return nodes
  }

  private func node(_ attribute: KsAttributePlan, _ value: KsValue, _ range: KsRange) -> DissectionNode? {
    elementNode(attribute.id, attribute, value, range)
  }

  private func elementNode(_ name: String, _ attribute: KsAttributePlan, _ value: KsValue, _ range: KsRange)
    -> DissectionNode?
  {
    switch value {
    case .absent, .stream: return nil
    case .object(let child):
      return DissectionNode(
        group: name, range: arena.objects[Int(child)].range.range, children: nodes(of: child))
    case .array(let array):
      let record = arena.arrays[Int(array)]
      var children: [DissectionNode] = []
      children.reserveCapacity(Int(record.count))
      for position in 0..<Int(record.count) {
        let element = Int(record.start) + position
        if let child = elementNode(
          DissectionNode.elementName(position), attribute, arena.elements[element],
          arena.elementRanges[element])
        {
          children.append(child)
        }
      }
      return DissectionNode(group: name, shape: .array, range: range.range, children: children)
    default:
      return DissectionNode(name, fieldValue(attribute, value), unit: unit(attribute), range: range.range)
    }
  }

  /// A plain integer shown in hex carries the tree's "hex" unit.
  func unit(_ attribute: KsAttributePlan) -> FieldUnit? {
    if let unit = attribute.unit { return unit }
    if attribute.keys.hex, attribute.enumeration == nil, attribute.type == .integer { return "hex" }
    return nil
  }

  func fieldValue(_ attribute: KsAttributePlan, _ value: KsValue) -> FieldValue {
    switch value {
    case .integer(let integer):
      if let enumeration = attribute.enumeration {
        return .enumeration(
          name: enumName(enumeration, integer, hex: attribute.keys.hex, attribute), raw: integer)
      }
      if attribute.keys.scale != nil || attribute.keys.offset != nil {
        return .number(Double(integer) * (attribute.keys.scale ?? 1) + (attribute.keys.offset ?? 0))
      }
      if attribute.isUnsignedRead { return .unsigned(UInt64(bitPattern: integer)) }
      return .integer(integer)
    case .float(let number):
      return .number(number * (attribute.keys.scale ?? 1) + (attribute.keys.offset ?? 0))
    case .bool(let flag): return .bool(flag)
    case .bytes(let slice): return .bytes(bytes(slice))
    case .string(let slice): return .string(String(decoding: bytes(slice), as: UTF8.self))
    default: return .null
    }
  }

  func enumName(_ enumeration: Int, _ raw: Int64, hex: Bool, _ attribute: KsAttributePlan) -> String {
    if let shown = plan.enums[enumeration].shown(raw) { return shown }
    guard hex, raw >= 0 else { return "unknown(\(raw))" }
    let digits = String(raw, radix: 16)
    let width = 2 * attribute.readBytes
    return "unknown(0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits + ")"
  }

  func bytes(_ slice: KsSlice) -> [UInt8] {
    if slice.buffer == 0 { return Array(input[Int(slice.start)..<Int(slice.end)]) }
    return Array(arena.derived[Int(slice.start)..<Int(slice.end)])
  }
}

extension KsAttributePlan {
  /// Whether its integers are read unsigned (shown as such).
  var isUnsignedRead: Bool {
    switch read {
    case .integer(_, let signed, _): return !signed
    case .bits: return true
    case .switched(_, _, let cases, _, _):
      return cases.allSatisfy {
        if case .integer(_, true, _) = $0.read { return false }; return true
      }
    default: return false
    }
  }

  /// Bytes of its integer read (for `unknown(0x…)`'s digits).
  var readBytes: Int {
    switch read {
    case .integer(let bytes, _, _): return bytes
    case .bits(let count, _): return (count + 7) / 8
    default: return 1
    }
  }
}
