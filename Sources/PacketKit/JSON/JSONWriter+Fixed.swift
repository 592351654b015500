extension JSONWriter {
  /// `value` with exactly `digits` decimals, as a string.
  public static func fixed(_ value: Double, digits: Int) -> String {
    var text = JSONWriter(capacity: 32)
    text.fixed(value, digits: digits)
    return text.text
  }

  /// Appends `value` with exactly `digits` (at most 15) decimals, right-aligned in
  /// `width` columns (the lengths are counted first: nothing is moved
  /// after). The value is rounded to a whole number of units of the last
  /// decimal, which integer division then splits: dividing the Double
  /// instead rounded a whole part past 2^53 units up, and printed a
  /// negative fraction ("8999999999796.00-256" for 8999999999795.999744).
  @inlinable
  public mutating func fixed(_ value: Double, digits: Int, width: Int = 0) {
    let negative = value < 0
    let magnitude = abs(value)
    var scale: UInt64 = 1
    for _ in 0..<digits { scale &*= 10 }
    let scaled = (magnitude * Double(scale)).rounded()
    guard scaled < 9.0e18 else {
      // Beyond what fits in 64 bits with its decimals (or not a number).
      let text = JSONWriter.formatNumber(value)
      self.append(UInt8(ascii: " "), count: width - text.utf8.count)
      self.append(utf8: text)
      return
    }
    let units = UInt64(scaled)
    let (whole, fraction) = units.quotientAndRemainder(dividingBy: scale)
    let length = (negative ? 1 : 0) + JSONWriter.decimalDigits(whole) + 1 + digits
    self.append(UInt8(ascii: " "), count: width - length)
    if negative { self.append(UInt8(ascii: "-")) }
    self.decimal(Int64(whole))
    self.append(UInt8(ascii: "."))
    self.decimal(Int64(fraction), width: digits, fill: UInt8(ascii: "0"))
  }
}
