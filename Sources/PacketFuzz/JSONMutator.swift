import PacketKit

/// JSON-aware mutations: dropped or duplicated keys, type swaps, huge,
/// negative and NaN-like numbers, deep nesting, invalid UTF-8 and base64
/// damage. Falls back to byte mutations when the input is not JSON.
///
/// Each mutation is one splice of the input's bytes, found through the
/// ranges of its parse: everything outside the splice is kept byte for
/// byte, rather than the whole input rebuilt as a value tree and written out.
public struct JSONMutator {
  public init() {}

  public func mutate(_ input: [UInt8], rng: inout SplitMix64) -> [UInt8]? {
    guard let first = input.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
      return nil
    }
    let found = input.withUnsafeBytes { bytes in
      try? JSONTape.read(bytes) { root in Self.splice(root, in: input, rng: &rng, depth: 0) }
    }
    guard let splice = found else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(input.count - splice.range.count + splice.bytes.count + 1)
    bytes.append(contentsOf: input[..<splice.range.lowerBound])
    bytes.append(contentsOf: splice.bytes)
    bytes.append(contentsOf: input[splice.range.upperBound...])
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

  /// The bytes in `range` of the input replaced by `bytes`.
  struct Splice {
    var range: Range<Int>
    var bytes: [UInt8]
  }

  /// Values of other types and edges, as JSON text.
  static let replacements: [[UInt8]] = [
    "null", "true", "0", "-1", "1e308", "-1e308", "5e-324", "9223372036854775807",
    "-9223372036854775808", #""""#, #""NaN""#, #""Infinity""#, "[]", "{}", #""not base64 !!""#, "101", "-101",
  ].map { Array($0.utf8) }

  private static func replacement(for range: Range<Int>, rng: inout SplitMix64) -> Splice {
    Splice(range: range, bytes: replacements[rng.below(replacements.count)])
  }

  /// One mutation somewhere in `value`: of a member or element of a
  /// container (or deeper, up to depth 8), of a string's text, or the whole
  /// value swapped for a replacement.
  static func splice(_ value: JSONNode, in input: [UInt8], rng: inout SplitMix64, depth: Int) -> Splice {
    switch value.kind {
    case .object where !value.members.isEmpty && depth < 8:
      let members = value.members
      let index = rng.below(members.count)
      // Before the closing brace: where a member is added.
      let end = value.range.upperBound - 1
      switch rng.below(6) {
      case 0:
        return Splice(range: removal(of: index, count: members.count) { members[$0].range }, bytes: [])
      case 1:  // duplicated key
        return Splice(range: end..<end, bytes: [UInt8(ascii: ",")] + input[members[index].range])
      case 2:
        return replacement(for: members[index].value.range, rng: &rng)
      case 3:
        let text = #","unexpected_\#(rng.below(100))":\#(rng.below(1000))"#
        return Splice(range: end..<end, bytes: Array(text.utf8))
      default:
        return splice(members[index].value, in: input, rng: &rng, depth: depth + 1)
      }
    case .array where !value.elements.isEmpty && depth < 8:
      let elements = value.elements
      let index = rng.below(elements.count)
      let end = value.range.upperBound - 1
      switch rng.below(4) {
      case 0:
        return Splice(range: removal(of: index, count: elements.count) { elements[$0].range }, bytes: [])
      case 1:
        return Splice(range: end..<end, bytes: [UInt8(ascii: ",")] + input[elements[index].range])
      default:
        return splice(elements[index], in: input, rng: &rng, depth: depth + 1)
      }
    case .string where value.range.count > 2:
      return damage(text: value.range.lowerBound + 1..<value.range.upperBound - 1, in: input, rng: &rng)
    default:
      return replacement(for: value.range, rng: &rng)
    }
  }

  /// The bytes that remove item `index` of a list and one comma beside it:
  /// up to the next item, or from the previous one when it is the last.
  static func removal(of index: Int, count: Int, range: (Int) -> Range<Int>) -> Range<Int> {
    if index + 1 < count { return range(index).lowerBound..<range(index + 1).lowerBound }
    if index > 0 { return range(index - 1).upperBound..<range(index).upperBound }
    return range(index)
  }

  /// String and base64 damage to a string's text (between its quotes): cut
  /// short, a bad character inserted, padding appended, or the text doubled.
  /// Cuts and insertions fall between characters, not inside one.
  static func damage(text: Range<Int>, in input: [UInt8], rng: inout SplitMix64) -> Splice {
    func boundary(_ offset: Int) -> Int {
      var offset = offset
      while offset > text.lowerBound, offset < text.upperBound, input[offset] & 0xC0 == 0x80 { offset -= 1 }
      return offset
    }
    switch rng.below(4) {
    case 0:
      let cut = boundary(text.upperBound - 1 - rng.below(text.count))
      return Splice(range: cut..<text.upperBound, bytes: [])
    case 1:
      let at = boundary(text.lowerBound + rng.below(text.count + 1))
      return Splice(range: at..<at, bytes: [UInt8(ascii: "!")])
    case 2:
      return Splice(range: text.upperBound..<text.upperBound, bytes: [UInt8(ascii: "=")])
    default:
      return Splice(range: text.upperBound..<text.upperBound, bytes: Array(input[text]))
    }
  }
}
