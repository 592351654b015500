/// Writes JSON text (and the rest of pktbench's output) into a byte buffer:
/// canonical encodings of the JSON protocols and pktbench's own output.
///
/// The buffer is owned outright (the type cannot be copied), so an append
/// is a capacity check and a copy: no uniqueness check, no generic sequence
/// machinery. Output code appends a few bytes at a time, millions of times.
///
/// The per-byte methods are inlinable: the renderers live in another
/// module, and a call per appended byte cost more than the append.
public struct JSONWriter: ~Copyable {
  @usableFromInline var base: UnsafeMutablePointer<UInt8>
  @usableFromInline var capacity: Int
  @usableFromInline var used = 0
  /// Bytes written so far.
  @inlinable public var count: Int { used }

  public init(capacity: Int = 256) {
    self.capacity = max(capacity, 16)
    base = PlainMemory.allocate(UInt8.self, capacity: self.capacity)
  }

  deinit { PlainMemory.free(base) }

  /// The text written, copied out.
  public var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

  public var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

  public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
    try body(UnsafeRawBufferPointer(start: base, count: count))
  }

  /// Appends `length` bytes made in place: `body` fills all of the buffer
  /// it is given (text made straight into the output, such as base64).
  public mutating func append(count length: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) {
    reserve(length)
    body(UnsafeMutableRawBufferPointer(start: base + used, count: length))
    used += length
  }

  /// Forgets what was written, keeping the memory.
  public mutating func removeAll() { used = 0 }

  @inlinable @inline(__always)
  mutating func reserve(_ needed: Int) {
    if capacity - count < needed { grow(needed) }
  }

  @usableFromInline @inline(never)
  mutating func grow(_ needed: Int) {
    var newCapacity = capacity * 2
    while newCapacity - count < needed { newCapacity *= 2 }
    base = PlainMemory.resize(base, capacity: newCapacity)
    capacity = newCapacity
  }

  @inlinable @inline(__always)
  public mutating func append(_ byte: UInt8) {
    reserve(1)
    base[used] = byte
    used += 1
  }

  @inlinable
  public mutating func append(bytes: UnsafeRawBufferPointer) {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    copy(from: source, count: bytes.count)
  }

  /// Most pieces of output are a few bytes (a key, an address, a unit):
  /// those are copied as two overlapping words instead of through a call
  /// to memmove.
  @inlinable @inline(__always)
  mutating func copy(from source: UnsafeRawPointer, count length: Int) {
    reserve(length)
    let target = UnsafeMutableRawPointer(base + count)
    if length >= 8, length <= 16 {
      let head = source.loadUnaligned(as: UInt64.self)
      let tail = source.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
      target.storeBytes(of: head, as: UInt64.self)
      target.storeBytes(of: tail, toByteOffset: length - 8, as: UInt64.self)
    } else if length >= 4, length < 8 {
      let head = source.loadUnaligned(as: UInt32.self)
      let tail = source.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
      target.storeBytes(of: head, as: UInt32.self)
      target.storeBytes(of: tail, toByteOffset: length - 4, as: UInt32.self)
    } else if length < 4 {
      for offset in 0..<length {
        target.storeBytes(
          of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
      }
    } else {
      target.copyMemory(from: source, byteCount: length)
    }
    used += length
  }

  public mutating func append(contentsOf bytes: [UInt8]) {
    bytes.withUnsafeBytes { append(bytes: $0) }
  }

  /// A String's UTF-8 bytes, in one copy.
  @inlinable
  public mutating func append(utf8 text: String) {
    let done: Void? = text.utf8.withContiguousStorageIfAvailable { append(bytes: UnsafeRawBufferPointer($0)) }
    guard done == nil else { return }
    var text = text  // bridged or otherwise not contiguous: made native
    text.withUTF8 { append(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// `count` copies of `byte` inserted at `index` (right-aligning a column).
  public mutating func insert(_ byte: UInt8, count padding: Int, at index: Int) {
    guard padding > 0, index >= 0, index <= count else { return }
    reserve(padding)
    (base + index + padding).update(from: base + index, count: count - index)
    (base + index).update(repeating: byte, count: padding)
    used += padding
  }

  @inlinable @inline(__always)
  public mutating func raw(_ text: StaticString) {
    copy(from: text.utf8Start, count: text.utf8CodeUnitCount)
  }

  /// Drops the last `n` bytes written.
  public mutating func removeLast(_ n: Int) {
    used -= min(max(n, 0), used)
  }

  /// `n` copies of `byte`.
  public mutating func append(_ byte: UInt8, count n: Int) {
    guard n > 0 else { return }
    reserve(n)
    for offset in 0..<n { base[used + offset] = byte }
    used += n
  }

  /// Text written as it is. (Named apart from `raw(_: StaticString)` so a
  /// literal never takes the String path.)
  public mutating func raw(text: String) {
    append(utf8: text)
  }

  /// `"text"` with JSON escapes.
  public mutating func string(_ text: String) {
    append(UInt8(ascii: "\""))
    let done: Void? = text.utf8.withContiguousStorageIfAvailable { escaped($0) }
    if done == nil {
      var text = text  // bridged or otherwise not contiguous: made native
      text.withUTF8 { escaped($0) }
    }
    append(UInt8(ascii: "\""))
  }

  /// UTF-8 text with JSON escapes; most text has none and is copied whole.
  private mutating func escaped(_ utf8: UnsafeBufferPointer<UInt8>) {
    // The plain prefix (all of most texts) is found eight bytes at a time,
    // or by the C kernel past 32 bytes (base64), and copied whole.
    guard let base = utf8.baseAddress else { return }
    let scan = JSONWordScan.plainPrefix(UnsafeRawPointer(base), count: utf8.count, asciiOnly: false)
    if scan == utf8.count {
      append(bytes: UnsafeRawBufferPointer(utf8))
      return
    }
    var plainStart = 0
    for index in scan..<utf8.count {
      let byte = utf8[index]
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
      append(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[plainStart..<index])))
      plainStart = index + 1
      append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
      case 0x0A: append(UInt8(ascii: "n"))
      case 0x0D: append(UInt8(ascii: "r"))
      case 0x09: append(UInt8(ascii: "t"))
      default:
        raw("u00")
        append(Hex.lowerDigit(byte >> 4))
        append(Hex.lowerDigit(byte & 0x0F))
      }
    }
    append(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[plainStart...])))
  }

  /// `formatNumber(value)`'s text, without a String for whole numbers and
  /// short decimals (timestamps, percentages).
  public mutating func number(_ value: Double) {
    // Whole numbers by conversion, not by rounded() (a libm call).
    if value.magnitude < 1e15, Double(Int64(value)) == value {
      decimal(Int64(value))
    } else if !shortDecimal(value) {
      append(utf8: JSONWriter.formatNumber(value))
    }
  }

  /// Writes `value` as Swift's `description` would when that is a plain
  /// decimal with few digits, and says whether it did.
  ///
  /// The shortest decimal that reads back as `value` is what `description`
  /// prints. For k = 1, 2, … fraction digits, the candidates are the
  /// integers m next to value·10^k; m/10^k reads back as `value` when
  /// Double(m) / 10^k == value (exact operands, one rounding: Clinger). The
  /// first k with exactly one candidate gives `description`'s digits; two
  /// candidates (where description picks the closer) or anything outside
  /// 0.001 ≤ |value| < 2^53 is left to `description`.
  mutating func shortDecimal(_ value: Double) -> Bool {
    let magnitude = value.magnitude
    guard magnitude >= 0.001, magnitude < 9.0e15 else { return false }
    var power = 1.0
    var scale: UInt64 = 1
    for digits in 1...17 {
      power *= 10
      scale &*= 10
      let scaled = magnitude * power
      guard scaled < 9.0e15 else { return false }
      let nearest = scaled.rounded()
      var found: UInt64 = 0
      // m/10^k reads back as `value` only within half an ulp of it, which
      // is power·ulp/2 in scaled units; the neighbours of `nearest` are at
      // least 1/2 - ulp(scaled)/2 away from the exact product. When that
      // gap is wider, only `nearest` can be a candidate: one division, not three.
      if power * magnitude.ulp + scaled.ulp < 0.5 {
        guard nearest / power == magnitude else { continue }
        found = UInt64(nearest)
      } else {
        var candidates = 0
        var m = max(0, nearest - 1)
        while m <= nearest + 1 {
          if m / power == magnitude {
            found = UInt64(m)
            candidates += 1
          }
          m += 1
        }
        if candidates > 1 { return false }
        guard candidates == 1 else { continue }
      }
      if value < 0 { append(UInt8(ascii: "-")) }
      decimal(Int64(found / scale))
      append(UInt8(ascii: "."))
      let begin = count
      decimal(Int64(found % scale), width: digits, fill: UInt8(ascii: "0"))
      while count > begin + 1, base[count - 1] == UInt8(ascii: "0") { used -= 1 }  // (k was the least)
      return true
    }
    return false
  }

  /// How many decimal digits `magnitude` has, by comparisons in a
  /// balanced tree (a table lookup compiled to an indirect jump here).
  @inlinable
  public static func decimalDigits(_ m: UInt64) -> Int {
    if m < 10_000_000_000 {
      if m < 100_000 {
        if m < 100 { return m < 10 ? 1 : 2 }
        return m < 1000 ? 3 : (m < 10_000 ? 4 : 5)
      }
      if m < 10_000_000 { return m < 1_000_000 ? 6 : 7 }
      return m < 100_000_000 ? 8 : (m < 1_000_000_000 ? 9 : 10)
    }
    if m < 1_000_000_000_000_000 {
      if m < 1_000_000_000_000 { return m < 100_000_000_000 ? 11 : 12 }
      return m < 10_000_000_000_000 ? 13 : (m < 100_000_000_000_000 ? 14 : 15)
    }
    if m < 100_000_000_000_000_000 { return m < 10_000_000_000_000_000 ? 16 : 17 }
    return m < 1_000_000_000_000_000_000 ? 18 : (m < 10_000_000_000_000_000_000 ? 19 : 20)
  }

  /// `value` right-aligned in `width` columns: `fill` before it until the
  /// sign and digits fill them (spaces for a column, "0" for the fraction
  /// digits of a non-negative value).
  public mutating func decimal(_ value: Int64, width: Int, fill: UInt8) {
    let length = Self.decimalDigits(value.magnitude) + (value < 0 ? 1 : 0)
    append(fill, count: width - length)
    decimal(value)
  }

  /// "00", "01" … "99", one after another.
  private static let digitPairs: StaticString =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

  /// An integer's decimal digits, without a String.
  public mutating func decimal(_ value: Int64) {
    if value < 0 { append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    let digits = Self.decimalDigits(magnitude)
    reserve(digits)
    // Two digits per step, copied from a table: the chain of divisions is
    // half as long, and each pair is one load and one store.
    let pairs = UnsafeRawPointer(Self.digitPairs.utf8Start)
    let out = UnsafeMutableRawPointer(base)
    var index = count + digits
    while magnitude >= 100 {
      let pair = Int(truncatingIfNeeded: magnitude % 100)
      magnitude /= 100
      index -= 2
      out.storeBytes(
        of: pairs.loadUnaligned(fromByteOffset: 2 * pair, as: UInt16.self), toByteOffset: index,
        as: UInt16.self)
    }
    if magnitude >= 10 {
      let pair = Int(truncatingIfNeeded: magnitude)
      out.storeBytes(
        of: pairs.loadUnaligned(fromByteOffset: 2 * pair, as: UInt16.self), toByteOffset: index - 2,
        as: UInt16.self)
    } else {
      base[index - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
    }
    used += digits
  }

  /// Any integer; inlinable, so it is specialised where it is called (an
  /// unsigned field value is not written through generic code).
  @inlinable
  public mutating func integer<T: BinaryInteger>(_ value: T) {
    if let small = Int64(exactly: value) {
      decimal(small)
    } else {
      raw(text: String(value))
    }
  }

  public mutating func integer(_ value: Int) {
    decimal(Int64(value))
  }

  public mutating func integer(_ value: Int64) {
    decimal(value)
  }

  public mutating func bool(_ value: Bool) {
    value ? raw("true") : raw("false")
  }

  public mutating func null() { raw("null") }

  /// Writes any FieldValue; enumerations as their names, bytes as hex.
  public mutating func value(_ value: FieldValue) {
    switch value {
    case .integer(let v): integer(v)
    case .unsigned(let v): integer(v)
    case .number(let v): v.isFinite ? number(v) : null()
    case .bool(let b): bool(b)
    case .string(let s): string(s)
    case .enumeration(let name, _): string(name)
    case .bytes(let b): string(Hex.compact(b))
    case .array(let items):
      append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        if index > 0 { append(UInt8(ascii: ",")) }
        self.value(item)
      }
      append(UInt8(ascii: "]"))
    case .object(let members):
      append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { append(UInt8(ascii: ",")) }
        string(member.key)
        append(UInt8(ascii: ":"))
        self.value(member.value)
      }
      append(UInt8(ascii: "}"))
    case .null: null()
    }
  }

  /// Shortest text that reads back as the same Double; whole numbers
  /// without a fraction (`50`, not `50.0`), as JSONEncoder writes them.
  public static func formatNumber(_ value: Double) -> String {
    guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity") }
    if value == value.rounded(), value.magnitude < 1e15 {
      if value == 0 { return "0" }
      return String(Int64(value))
    }
    return value.description
  }

  /// `"text"` with JSON escapes.
  public static func quoted(_ text: String) -> String {
    var writer = JSONWriter(capacity: text.utf8.count + 2)
    writer.string(text)
    return writer.text
  }
}
