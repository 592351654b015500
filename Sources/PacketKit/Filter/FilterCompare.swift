#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a field's value compares with a literal or another field's value.
///
/// - Numbers (integers, decimals, an enumeration's number, a boolean as
///   0 or 1) compare by value; integers exactly.
/// - Text compares byte by byte (UTF-8, so by code point), case-sensitively.
/// - An enumeration compares with text by its case name, ignoring ASCII
///   case (`"fault"` is `FAULT`), and with a number by its number.
/// - Bytes compare with text as their hex (either case), as JSON shows them.
/// - Anything else (text with a number, a group with anything) does not
///   compare: no operator holds, `!=` included.
public enum FilterCompare {
  public static func order(_ left: FilterValue, _ right: FilterValue) -> FilterOrder? {
    switch (left, right) {
    case (.present, _), (_, .present): return nil
    case (.text(let a), .text(let b)): return bytes(a, b)
    case (.enumeration(let name, _), .text(let text)): return caseless(name, text)
    case (.text(let text), .enumeration(let name, _)): return caseless(text, name)
    case (.bytes(let a), .bytes(let b)): return bytes(a, b)
    case (.bytes(let a), .text(let text)): return hex(a, text)
    case (.text(let text), .bytes(let b)): return reversed(hex(b, text))
    case (.boolean(let a), .boolean(let b)): return a == b ? .equal : (a ? .greater : .less)
    default:
      guard let a = Number(left), let b = Number(right) else { return nil }
      return Number.order(a, b)
    }
  }

  /// Whether `haystack`'s text form (text, an enumeration's name ignoring
  /// case, bytes as hex) contains `needle`'s. Numbers contain nothing.
  public static func contains(_ haystack: FilterValue, _ needle: FilterValue) -> Bool {
    switch (haystack, needle) {
    case (.text(let a), .text(let b)): return find(b, in: a, caseless: false)
    case (.enumeration(let a, _), .text(let b)), (.text(let a), .enumeration(let b, _)):
      return find(b, in: a, caseless: true)
    case (.enumeration(let a, _), .enumeration(let b, _)): return find(b, in: a, caseless: true)
    case (.bytes(let a), .bytes(let b)): return find(b, in: a, caseless: false)
    case (.bytes(let a), .text(let b)): return withHex(a) { find(b, in: $0, caseless: true) }
    default: return false
    }
  }

  /// Calls `body` with the text `matches` reads of `value` (text, an
  /// enumeration's name, bytes as hex); nil for numbers and groups.
  public static func withText<R>(_ value: FilterValue, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
    switch value {
    case .text(let text), .enumeration(let text, _): return body(text)
    case .bytes(let bytes): return withHex(bytes, body)
    default: return nil
    }
  }

  // MARK: Text

  static func bytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> FilterOrder {
    let shared = min(a.count, b.count)
    if shared > 0, let left = a.baseAddress, let right = b.baseAddress {
      let result = memcmp(left, right, shared)
      if result != 0 { return result < 0 ? .less : .greater }
    }
    return a.count == b.count ? .equal : (a.count < b.count ? .less : .greater)
  }

  @inline(__always)
  static func folded(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
  }

  static func caseless(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> FilterOrder {
    for index in 0..<min(a.count, b.count) {
      let (x, y) = (folded(a[index]), folded(b[index]))
      if x != y { return x < y ? .less : .greater }
    }
    return a.count == b.count ? .equal : (a.count < b.count ? .less : .greater)
  }

  static func find(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, caseless: Bool)
    -> Bool
  {
    guard needle.count <= haystack.count else { return false }
    if needle.isEmpty { return true }
    outer: for start in 0...(haystack.count - needle.count) {
      for offset in 0..<needle.count {
        let (x, y) = (haystack[start + offset], needle[offset])
        if caseless ? folded(x) != folded(y) : x != y { continue outer }
      }
      return true
    }
    return false
  }

  /// Bytes compared with text as their hex: in order, a byte's two digits against two characters.
  static func hex(_ bytes: UnsafeRawBufferPointer, _ text: UnsafeRawBufferPointer) -> FilterOrder {
    withHex(bytes) { caseless($0, text) }
  }

  private static func reversed(_ order: FilterOrder) -> FilterOrder {
    switch order {
    case .less: .greater
    case .greater: .less
    case .equal: .equal
    }
  }

  /// `bytes` as lower-case hex, on the stack when short.
  static func withHex<R>(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
    return withUnsafeTemporaryAllocation(byteCount: bytes.count * 2, alignment: 1) { buffer in
      for (index, byte) in bytes.enumerated() {
        buffer[index * 2] = digit(byte >> 4)
        buffer[index * 2 + 1] = digit(byte & 0x0F)
      }
      return body(UnsafeRawBufferPointer(buffer))
    }
  }

  // MARK: Numbers

  /// A numeric value, integers kept exact.
  enum Number {
    case signed(Int64)
    case unsigned(UInt64)
    case double(Double)

    init?(_ value: FilterValue) {
      switch value {
      case .integer(let v): self = .signed(v)
      case .unsigned(let v): self = .unsigned(v)
      case .number(let v): self = .double(v)
      case .enumeration(_, let raw): self = .signed(raw)
      case .boolean(let v): self = .signed(v ? 1 : 0)
      default: return nil
      }
    }

    static func order(_ a: Number, _ b: Number) -> FilterOrder? {
      switch (a, b) {
      case (.signed(let x), .signed(let y)): return ordered(x, y)
      case (.unsigned(let x), .unsigned(let y)): return ordered(x, y)
      case (.signed(let x), .unsigned(let y)): return x < 0 ? .less : ordered(UInt64(x), y)
      case (.unsigned(let x), .signed(let y)): return y < 0 ? .greater : ordered(x, UInt64(y))
      default:
        let (x, y) = (a.double, b.double)
        guard !x.isNaN, !y.isNaN else { return nil }
        return ordered(x, y)
      }
    }

    var double: Double {
      switch self {
      case .signed(let v): Double(v)
      case .unsigned(let v): Double(v)
      case .double(let v): v
      }
    }

    @inline(__always)
    static func ordered<T: Comparable>(_ x: T, _ y: T) -> FilterOrder {
      x < y ? .less : (x == y ? .equal : .greater)
    }
  }
}
