import PacketKit

/// JSON-aware mutations: dropped or duplicated keys, type swaps, huge,
/// negative and NaN-like numbers, deep nesting, invalid UTF-8 and base64
/// damage. Falls back to byte mutations when the input is not JSON.
public struct JSONMutator {
  public init() {}

  public func mutate(_ input: [UInt8], rng: inout SplitMix64) -> [UInt8]? {
    guard let first = input.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
      let root = try? JSONParser.parse(input)
    else { return nil }
    var value = root.fieldValue
    mutateValue(&value, rng: &rng, depth: 0)
    var writer = JSONWriter(capacity: input.count + 64)
    writer.value(value)
    var bytes = writer.bytes
    switch rng.below(10) {
    case 0 where !bytes.isEmpty:  // invalid UTF-8 inside the text
      bytes.insert([0xC0, 0xFF, 0xED][rng.below(3)], at: rng.below(bytes.count))
    case 1:  // deep nesting
      let depth = 30 + rng.below(100)
      bytes =
        Array(repeating: UInt8(ascii: "["), count: depth) + bytes
        + Array(repeating: UInt8(ascii: "]"), count: depth)
    default:
      break
    }
    return bytes
  }

  private static let replacements: [FieldValue] = [
    .null, .bool(true), .integer(0), .integer(-1), .number(1e308), .number(-1e308),
    .number(.leastNonzeroMagnitude),
    .integer(Int64.max), .integer(Int64.min), .string(""), .string("NaN"), .string("Infinity"),
    .array([]), .object([]), .string("not base64 !!"), .integer(101), .integer(-101),
  ]

  private func mutateValue(_ value: inout FieldValue, rng: inout SplitMix64, depth: Int) {
    switch value {
    case .object(var members) where !members.isEmpty && depth < 8:
      let index = rng.below(members.count)
      switch rng.below(6) {
      case 0: members.remove(at: index)
      case 1: members.append(members[index])  // duplicated key
      case 2: members[index].value = Self.replacements[rng.below(Self.replacements.count)]
      case 3: members.append(.init("unexpected_\(rng.below(100))", .integer(Int64(rng.below(1000)))))
      default: mutateValue(&members[index].value, rng: &rng, depth: depth + 1)
      }
      value = .object(members)
    case .array(var elements) where !elements.isEmpty && depth < 8:
      let index = rng.below(elements.count)
      switch rng.below(4) {
      case 0: elements.remove(at: index)
      case 1: elements.append(elements[index])
      default: mutateValue(&elements[index], rng: &rng, depth: depth + 1)
      }
      value = .array(elements)
    case .string(let text) where !text.isEmpty:
      // base64 damage / string damage: cut, pad, or insert a bad character.
      // On scalars, not Characters: grapheme breaking a camera frame's
      // base64 took longer than decoding the message.
      var scalars = text.unicodeScalars
      switch rng.below(4) {
      case 0: scalars.removeLast(1 + rng.below(scalars.count))
      case 1:
        scalars.insert("!", at: scalars.index(scalars.startIndex, offsetBy: rng.below(scalars.count + 1)))
      case 2: scalars.append("=")
      default: scalars.append(contentsOf: text.unicodeScalars)
      }
      value = .string(String(scalars))
    case .integer, .number:
      value = Self.replacements[rng.below(Self.replacements.count)]
    default:
      value = Self.replacements[rng.below(Self.replacements.count)]
    }
  }
}
