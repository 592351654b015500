/// Eight bytes of JSON text tested at once (the classic has-zero-byte bit
/// tricks, exact for "is there such a byte"), so that long plain strings
/// (base64 camera frames run to hundreds of KB) are read and written a
/// word at a time.
enum JSONWordScan {
  static let ones: UInt64 = 0x0101_0101_0101_0101
  static let high: UInt64 = 0x8080_8080_8080_8080

  /// Whether any byte of `word` is a quote, a backslash or below 0x20: the
  /// bytes a JSON string must escape.
  @inline(__always)
  static func needsEscape(_ word: UInt64) -> Bool {
    let below20 = (word &- ones &* 0x20) & ~word & high
    let quote = word ^ (ones &* 0x22)
    let backslash = word ^ (ones &* 0x5C)
    let hasQuote = (quote &- ones) & ~quote & high
    let hasBackslash = (backslash &- ones) & ~backslash & high
    return (below20 | hasQuote | hasBackslash) != 0
  }

  /// `needsEscape`, or a byte above 0x7F (which a reader must validate as
  /// UTF-8).
  @inline(__always)
  static func needsAttention(_ word: UInt64) -> Bool {
    needsEscape(word) || word & high != 0
  }
}
