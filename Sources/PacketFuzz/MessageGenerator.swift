import Foundation
import PacketKit

/// Random valid craft values for a message kind, from its field schema:
/// edges (minimum, maximum, zero), random values inside the range, empty,
/// long and non-ASCII strings, every enum case.
public struct MessageGenerator {
  public init() {}

  /// Values for a message kind's `fields` (a fuzz target keeps each kind's
  /// list: taking one out of its `MessageSchema` copied the whole schema).
  public func values(for fields: [FieldSchema], rng: inout SplitMix64) -> CraftValues {
    var values = CraftValues(capacity: fields.count)
    // Read in place: `for field in` retains and releases each field's schema.
    fields.withUnsafeBufferPointer { fields in
      for index in fields.indices {
        if let value = value(for: fields[index], rng: &rng) { values[fields[index].name] = value }
      }
    }
    return values
  }

  private static let strings: [String] = [
    "", "a", "D", "EF2843FF-74CF-F6A6-B6DC-0914FAA30751", "héllo wörld", "日本語テキスト", "emoji 🤖🎾",
    "quote \" backslash \\ newline \n tab \t", String(repeating: "x", count: 300),
  ]

  /// The characters of random strings as UTF-8, split once, not per string.
  private static let alphabet: [[UInt8]] = "abcdefghijklmnopqrstuvwxyzABCDEF0123456789-_:é".map {
    Array($0.utf8)
  }

  // Inlined into `values`: it runs for every field of every generated message.
  @inline(__always)
  func value(for field: FieldSchema, rng: inout SplitMix64) -> FieldValue? {
    // Craft parameters are inputs to crafting, not message content: only
    // enumerations (e.g. the check variant) vary; the rest keep defaults.
    if field.role == .craftParameter {
      if case .enumeration(let cases) = field.kind, !cases.isEmpty {
        let pick = cases[rng.below(cases.count)]
        return .enumeration(name: pick.name, raw: pick.raw)
      }
      // A free-form text input with a plain default (a secret) varies too;
      // computed ones (a nonce, a whole inner JSON) keep the codec's choice.
      if case .string = field.kind, field.defaultValue != nil {
        return .string("secret-\(rng.below(1_000_000))")
      }
      return field.defaultValue
    }
    // Sometimes leave a field with a default to its default.
    if field.defaultValue != nil, rng.chance(1, in: 8) { return field.defaultValue }
    switch field.kind {
    case .integer:
      let low = Int64(field.range?.lowerBound ?? -1_000_000)
      let high = Int64(field.range?.upperBound ?? 1_000_000)
      return .integer(edgeOrRandom(low, high, rng: &rng))
    case .number:
      let low = field.range?.lowerBound ?? -1e6
      let high = field.range?.upperBound ?? 1e6
      switch rng.below(6) {
      case 0: return .number(low)
      case 1: return .number(high)
      case 2 where low <= 0 && high >= 0: return .number(0)
      case 3:
        let whole = Double(edgeOrRandom(Int64(low.rounded(.up)), Int64(high.rounded(.down)), rng: &rng))
        return .number(whole)
      default:
        let unit = Double(rng.next() >> 11) / Double(1 << 53)
        return .number(low + (high - low) * unit)
      }
    case .bool:
      return .bool(rng.chance(1, in: 2))
    case .string:
      // Text the receiver only takes in one shape (a token) follows it:
      // random text would be refused by craft, and its round trip never run.
      if let rule = field.textRule { return .string(text(following: rule, rng: &rng)) }
      if rng.chance(1, in: 3) {
        return .string(Self.strings[rng.below(Self.strings.count)])
      }
      // Up to 23 characters of the alphabet, made as UTF-8 bytes rather
      // than as a String of Characters.
      let length = rng.below(24)
      var utf8: [UInt8] = []
      utf8.reserveCapacity(2 * length)
      for _ in 0..<length { utf8.append(contentsOf: Self.alphabet[rng.below(Self.alphabet.count)]) }
      return .string(String(decoding: utf8, as: UTF8.self))
    case .enumeration(let cases):
      guard !cases.isEmpty else { return field.defaultValue }
      let pick = cases[rng.below(cases.count)]
      return .enumeration(name: pick.name, raw: pick.raw)
    case .bytes:
      return .bytes((0..<rng.below(32)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    case .file:
      // Files in these protocols are JPEGs: start FF D8, end FF D9.
      let size = rng.chance(1, in: 16) ? 64 * 1024 + rng.below(64 * 1024) : rng.below(256)
      // Eight random bytes per draw: a large image is up to 128 KiB.
      let bytes = [UInt8](unsafeUninitializedCapacity: size + 4) { buffer, initialized in
        buffer[0] = 0xFF
        buffer[1] = 0xD8
        var index = 2
        // Whole draws stored as they are (a draw's bytes, lowest first),
        // then the last one a byte at a time.
        if let base = buffer.baseAddress {
          while size + 2 - index >= 8 {
            UnsafeMutableRawPointer(base).storeBytes(
              of: rng.next().littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
          }
        }
        if index < size + 2 {
          var word = rng.next()
          while index < size + 2 {
            buffer[index] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            index += 1
          }
        }
        buffer[index] = 0xFF
        buffer[index + 1] = 0xD9
        initialized = size + 4
      }
      return .bytes(bytes)
    }
  }

  /// Text that follows `rule`. For base64: the encoding (by Foundation) of
  /// random bytes, as long as the rule allows at either edge or between,
  /// ending in zero, one or two `=`.
  func text(following rule: TextRule, rng: inout SplitMix64) -> String {
    switch rule.alphabet {
    case .base64:
      // Whole groups of four characters, inside the rule.
      let fewest = (rule.characters.lowerBound + 3) / 4
      let most = rule.characters.upperBound / 4
      guard fewest <= most else { return "" }
      let groups = Int(edgeOrRandom(Int64(fewest), Int64(most), rng: &rng))
      let count = groups == 0 ? 0 : groups * 3 - rng.below(3)
      let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      return Data(bytes).base64EncodedString()
    }
  }

  private func edgeOrRandom(_ low: Int64, _ high: Int64, rng: inout SplitMix64) -> Int64 {
    guard low < high else { return low }
    switch rng.below(5) {
    case 0: return low
    case 1: return high
    case 2 where low <= 0 && high >= 0: return 0
    default:
      let span = UInt64(bitPattern: high &- low) &+ 1
      return low &+ Int64(bitPattern: span == 0 ? rng.next() : rng.next() % span)
    }
  }
}
