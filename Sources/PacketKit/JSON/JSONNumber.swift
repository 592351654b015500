/// The value of a JSON number's text, without building a String for strtod.
///
/// Clinger's fast path: when the digits form an integer m ≤ 2^53 and the
/// decimal exponent e satisfies |e| ≤ 22, both m and 10^|e| are exact
/// doubles, so one IEEE multiplication or division gives the correctly
/// rounded result — the same Double strtod returns. `scanExact` also reads
/// up to 19 digits with |e| ≤ 22 exactly, in integer arithmetic
/// (`wideValue`). Anything else (more digits, larger exponents) returns nil
/// and the caller asks strtod.
public enum JSONNumber {
  /// `bytes[start..<end]` must already match the JSON number grammar.
  public static func fastValue(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Double? {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
    var index = start
    guard let (value, _) = scan(base, &index, end), index == end else { return nil }
    return value
  }

  /// Reads a number of RFC 8259 grammar at `index` (advanced past it) and
  /// its value with whether its text had no fraction or exponent. Nil when
  /// the text is not a JSON number there, or its mantissa is not an exact
  /// double (more than 2^53), or its exponent is beyond ±22; `index` is then
  /// unspecified.
  @inlinable
  public static func scan(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int) -> (Double, Bool)? {
    read(base, &index, end, wide: false)
  }

  /// `scan`, and mantissas up to 19 digits (below 2^64) read exactly too
  /// (`wideValue`): for a parser, whose only other way is strtod. (`scan`
  /// stays as small as it was for the codecs that inline it: their numbers
  /// are short.)
  @inlinable
  public static func scanExact(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int)
    -> (Double, Bool)?
  {
    read(base, &index, end, wide: true)
  }

  @inlinable @inline(__always)
  static func read(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int, wide: Bool)
    -> (Double, Bool)?
  {
    var negative = false
    if index < end, base[index] == UInt8(ascii: "-") {
      negative = true
      index += 1
    }
    guard index < end else { return nil }
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
    var isInteger = true
    let first = base[index] &- UInt8(ascii: "0")
    guard first < 10 else { return nil }
    if first == 0 {
      index += 1
      if index < end, base[index] &- UInt8(ascii: "0") < 10 { return nil }  // leading zero
    } else {
      let wholeStart = index
      mantissa = digitRun(base, &index, end, mantissa, wordTail: wide)
      digits = index - wholeStart
    }
    if index < end, base[index] == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      let fractionStart = index
      // Zeros before the first significant digit (of 0.000123) are not digits of the mantissa.
      if mantissa == 0 {
        while index < end, base[index] == UInt8(ascii: "0") { index += 1 }
      }
      let significantStart = index
      mantissa = digitRun(base, &index, end, mantissa, wordTail: wide)
      guard index > fractionStart else { return nil }
      digits += index - significantStart
      exponent = fractionStart - index
    }
    if index < end, base[index] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      index += 1
      var exponentNegative = false
      if index < end, base[index] == UInt8(ascii: "-") || base[index] == UInt8(ascii: "+") {
        exponentNegative = base[index] == UInt8(ascii: "-")
        index += 1
      }
      let exponentStart = index
      var written = 0
      while index < end {
        let digit = base[index] &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        if written < 100_000 { written = written * 10 + Int(digit) }
        index += 1
      }
      guard index > exponentStart else { return nil }
      exponent += exponentNegative ? -written : written
    }
    // 19 digits cannot have wrapped a UInt64; Clinger's path needs m ≤ 2^53.
    guard digits <= 19 else { return nil }
    guard mantissa <= 1 << 53 else {
      guard wide, exponent >= -22, exponent <= 22 else { return nil }
      let value = exponent == 0 ? Double(mantissa) : wideValue(mantissa, exponent)
      return (negative ? -value : value, isInteger)
    }
    var value = Double(mantissa)
    if mantissa != 0, exponent != 0 {
      guard exponent >= -22, exponent <= 22 else { return nil }
      let power = exactPowerOfTen(Int(exponent.magnitude))
      value = exponent < 0 ? value / power : value * power
    }
    return (negative ? -value : value, isInteger)
  }

  /// m × 10^e, correctly rounded, for 2^53 < m < 2^64 and 1 ≤ |e| ≤ 22:
  /// the 17-digit timestamps a Swift app writes (1795625457.4498959), which
  /// Clinger's path cannot take because m is not an exact double.
  ///
  /// 10^e = 5^e × 2^e and 5^22 < 2^52, so m × 5^e is exact in 128 bits, and
  /// m / 5^|e| is an exact 64-bit quotient and remainder once m is shifted
  /// left far enough. Either way the top 64 bits, with a sticky bit for
  /// whatever lies below them, round to the double strtod gives: the
  /// conversion of a 64-bit integer rounds to nearest, ties to even, and
  /// the sticky bit (below the rounding bit, since the integer has at least
  /// 55 significant bits) turns a false tie into "above half". The power
  /// of two is applied exactly at the end.
  @usableFromInline
  static func wideValue(_ mantissa: UInt64, _ exponent: Int) -> Double {
    let five = powersOfFive[Int(exponent.magnitude)]
    let top: UInt64
    let sticky: Bool
    let scale: Int
    if exponent > 0 {
      let (high, low) = mantissa.multipliedFullWidth(by: five)
      if high == 0 { return Double(sign: .plus, exponent: exponent, significand: Double(low)) }
      let shift = 64 - high.leadingZeroBitCount
      top = high << (64 - shift) | low >> shift
      sticky = low << (64 - shift) != 0
      scale = shift + exponent
    } else {
      // m × 2^s has 63 + bits(5^|e|) bits, so the quotient has 63 or 64,
      // and the high word is below the divisor. With m of 54…64 bits and
      // 5^|e| of 3…52, s is 2…61.
      let shift = 63 + (64 - five.leadingZeroBitCount) - (64 - mantissa.leadingZeroBitCount)
      let high = mantissa >> (64 - shift)
      let low = mantissa << shift
      let (quotient, remainder) = five.dividingFullWidth((high, low))
      top = quotient
      sticky = remainder != 0
      scale = -shift + exponent
    }
    return Double(sign: .plus, exponent: scale, significand: Double(top | (sticky ? 1 : 0)))
  }

  /// Whether the number text at `start..<end`, which `scan` read as
  /// `value` (`isInteger`: no fraction or exponent), is exactly what
  /// `JSONWriter` writes for that value, so an output may copy the text.
  ///
  /// An integer with at most 15 digits is exact and written as its digits
  /// (grammar forbids leading zeros; "-0" is written "0"). A fraction
  /// without exponent, with at most 15 digits and its last not 0, is the
  /// shortest decimal that reads back as its value (a double holds 15
  /// digits; two such texts read as one double would be equal) — what the
  /// writer prints from 0.001 up; below that it may use an exponent.
  @inlinable
  public static func isWritersForm(
    _ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int, value: Double, isInteger: Bool
  ) -> Bool {
    guard end > start else { return false }
    let sign = base[start] == UInt8(ascii: "-") ? 1 : 0
    if isInteger { return end - start - sign <= 15 && (sign == 0 || value != 0) }
    guard end - start - sign <= 16, value.magnitude >= 0.001, base[end - 1] != UInt8(ascii: "0") else {
      return false
    }
    // The fraction's digits, back to its point (an exponent's sign or
    // letter stops the walk elsewhere).
    var index = end - 1
    while index > start, base[index] &- UInt8(ascii: "0") < 10 { index -= 1 }
    return base[index] == UInt8(ascii: ".")
  }

  /// How many digits a JSON number without an exponent at `index` has
  /// before and after its point (`index` advanced past it), by the same
  /// grammar as `scan` but without reading its value: nil when it has an
  /// exponent or is not a number there (`index` is then unspecified). A
  /// caller that only needs to know a value is in range can often tell
  /// from the counts.
  @inlinable
  public static func digitCounts(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int)
    -> (whole: Int, fraction: Int)?
  {
    if index < end, base[index] == UInt8(ascii: "-") { index += 1 }
    let wholeStart = index
    skipDigits(base, &index, end)
    let whole = index - wholeStart
    // JSON's integer part: "0", or digits without a leading zero.
    guard whole > 0, whole == 1 || base[wholeStart] != UInt8(ascii: "0") else { return nil }
    var fraction = 0
    if index < end, base[index] == UInt8(ascii: ".") {
      index += 1
      let fractionStart = index
      skipDigits(base, &index, end)
      fraction = index - fractionStart
      guard fraction > 0 else { return nil }
    }
    if index < end, base[index] | 0x20 == UInt8(ascii: "e") { return nil }
    return (whole, fraction)
  }

  /// Bits set in exactly the bytes of `word` that are not ASCII digits: a
  /// byte is a digit when its high nibble is 3 and its low nibble plus 6
  /// does not carry into bit 4 (no byte's sum reaches the next byte).
  @inlinable @inline(__always)
  static func nonDigits(_ word: UInt64) -> UInt64 {
    let highNibbles = (word & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030
    let carries = ((word & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010
    return highNibbles | carries
  }

  /// Advances `index` past a run of ASCII digits, eight bytes at a time
  /// while eight remain: the first non-digit is the lowest byte with a bit
  /// in `nonDigits`. (A byte loop ends each number on a mispredicted
  /// branch; this ends it on a count of trailing zero bits.)
  @inlinable @inline(__always)
  static func skipDigits(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int) {
    while end - index >= 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let notDigit = nonDigits(word)
      if notDigit != 0 {
        index += notDigit.trailingZeroBitCount >> 3
        return
      }
      index += 8
    }
    while index < end, base[index] &- UInt8(ascii: "0") < 10 { index += 1 }
  }

  /// 5^k for 0 ≤ k ≤ 22 (5^22 < 2^52).
  @usableFromInline
  static let powersOfFive: [UInt64] = (0...22).map { k in (0..<k).reduce(1) { power, _ in power * 5 } }

  /// 10^k for 0 ≤ k ≤ 22, each exact as a Double (a table, not a loop of
  /// multiplications on the per-number path).
  @inlinable
  static func exactPowerOfTen(_ k: Int) -> Double {
    switch k {
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 7: 1e7
    case 8: 1e8
    case 9: 1e9
    case 10: 1e10
    case 11: 1e11
    case 12: 1e12
    case 13: 1e13
    case 14: 1e14
    case 15: 1e15
    case 16: 1e16
    case 17: 1e17
    case 18: 1e18
    case 19: 1e19
    case 20: 1e20
    case 21: 1e21
    case 22: 1e22
    default: 1
    }
  }

  /// The value of eight digit values (0…9, one a byte, the first in the
  /// lowest byte) in a few multiplications (the SWAR method of Lemire's
  /// fast_float).
  @inlinable @inline(__always)
  static func eightDigitValue(_ digits: UInt64) -> UInt64 {
    let value = (digits &* 10) &+ (digits >> 8)
    let mask: UInt64 = 0x0000_00FF_0000_00FF
    return ((value & mask) &* (100 &+ (1_000_000 << 32)) &+ ((value >> 16) & mask) &* (1 &+ (10_000 << 32)))
      >> 32
  }

  /// 10^k for 0 ≤ k ≤ 7.
  @inlinable @inline(__always)
  static func smallPowerOfTen(_ k: Int) -> UInt64 {
    switch k {
    case 1: 10
    case 2: 100
    case 3: 1000
    case 4: 10_000
    case 5: 100_000
    case 6: 1_000_000
    case 7: 10_000_000
    default: 1
    }
  }

  /// The digits at `index` (advanced past them) appended to `mantissa`
  /// (wrapping: the caller counts digits): eight at a time, then one by one.
  /// With `wordTail` (the parser's `scanExact`), the last fewer than eight
  /// are read as one word too when eight bytes remain: a pose broadcast's
  /// hundred numbers of six or seven digits each ended in a byte loop.
  /// (`scan` keeps the byte loop: the codecs that inline it read short
  /// numbers, and its size is theirs.)
  @inlinable
  @inline(__always)
  static func digitRun(
    _ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int, _ mantissa: UInt64, wordTail: Bool = false
  ) -> UInt64 {
    var mantissa = eightDigits(base, &index, end, mantissa)
    if wordTail, end - index >= 8 {
      let chunk = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      let digits = nonDigits(chunk).trailingZeroBitCount >> 3  // eightDigits left fewer than 8
      guard digits > 0 else { return mantissa }
      // The digits moved to the top bytes, zeros (leading zero digits)
      // below: a borrow from a byte that is not a digit only runs upward,
      // into bytes the shift drops.
      let value = eightDigitValue((chunk &- 0x3030_3030_3030_3030) << (64 - 8 * digits))
      index += digits
      return mantissa &* smallPowerOfTen(digits) &+ value
    }
    while index < end {
      let digit = base[index] &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      mantissa = mantissa &* 10 &+ UInt64(digit)
      index += 1
    }
    return mantissa
  }

  /// While eight digits follow `index`, adds them to `mantissa` (wrapping:
  /// the caller counts digits) in a few multiplications rather than eight
  /// dependent steps (the SWAR method of Lemire's fast_float).
  @inlinable
  @inline(__always)
  static func eightDigits(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int, _ mantissa: UInt64)
    -> UInt64
  {
    var mantissa = mantissa
    while end - index >= 8 {
      let chunk = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
      guard nonDigits(chunk) == 0 else { break }  // every byte 0x30...0x39
      mantissa = mantissa &* 100_000_000 &+ eightDigitValue(chunk &- 0x3030_3030_3030_3030)
      index += 8
    }
    return mantissa
  }
}
