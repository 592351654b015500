/// The value of a JSON number's text, without building a String for strtod.
///
/// Clinger's fast path: when the digits form an integer m ≤ 2^53 and the
/// decimal exponent e satisfies |e| ≤ 22, both m and 10^|e| are exact
/// doubles, so one IEEE multiplication or division gives the correctly
/// rounded result — the same Double strtod returns. Anything else (more
/// digits, larger exponents) returns nil and the caller asks strtod.
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
  /// the text is not a JSON number there, or only strtod reads it exactly;
  /// `index` is then unspecified.
  @inlinable
  public static func scan(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int) -> (Double, Bool)? {
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
      while index < end {
        let digit = base[index] &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        mantissa = mantissa &* 10 &+ UInt64(digit)
        index += 1
      }
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
      while index < end {
        let digit = base[index] &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        mantissa = mantissa &* 10 &+ UInt64(digit)
        index += 1
      }
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
    // 19 digits cannot have wrapped a UInt64; the fast path needs m ≤ 2^53.
    guard digits <= 19, mantissa <= 1 << 53 else { return nil }
    var value = Double(mantissa)
    if mantissa != 0, exponent != 0 {
      guard exponent >= -22, exponent <= 22 else { return nil }
      var power = 1.0
      for _ in 0..<exponent.magnitude { power *= 10 }  // exact: 10^k is a double for k ≤ 22
      value = exponent < 0 ? value / power : value * power
    }
    return (negative ? -value : value, isInteger)
  }
}
