#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Eight bytes of JSON text tested at once (the classic has-zero-byte bit
/// tricks, exact for "is there such a byte"), so that long plain strings
/// (base64 camera frames run to hundreds of KB) are read and written a
/// word at a time.
public enum JSONWordScan {
  static let ones: UInt64 = 0x0101_0101_0101_0101
  static let high: UInt64 = 0x8080_8080_8080_8080

  /// Not zero exactly when some byte of `word` is below `bound` (for
  /// bounds up to 0x80; which bits are set says no more than that).
  @inlinable @inline(__always)
  public static func bytesBelow(_ bound: UInt8, in word: UInt64) -> UInt64 {
    (word &- 0x0101_0101_0101_0101 &* UInt64(bound)) & ~word & 0x8080_8080_8080_8080
  }

  /// Whether any of `bytes` is below `bound` (up to 0x80), eight at a time.
  @inlinable @inline(__always)
  public static func hasByte(below bound: UInt8, in bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    var offset = 0
    while bytes.count - offset >= 8 {
      if bytesBelow(bound, in: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) != 0 {
        return true
      }
      offset += 8
    }
    while offset < bytes.count {
      if base.load(fromByteOffset: offset, as: UInt8.self) < bound { return true }
      offset += 1
    }
    return false
  }

  /// Whether any byte of `word` is a quote, a backslash or below 0x20: the
  /// bytes a JSON string must escape.
  @inline(__always)
  static func needsEscape(_ word: UInt64) -> Bool {
    // A quote or backslash is a zero byte (below 1) once xored away.
    let quote = bytesBelow(1, in: word ^ (ones &* 0x22))
    let backslash = bytesBelow(1, in: word ^ (ones &* 0x5C))
    return (bytesBelow(0x20, in: word) | quote | backslash) != 0
  }

  /// `needsEscape`, or a byte above 0x7F (which a reader must validate as
  /// UTF-8).
  @inline(__always)
  static func needsAttention(_ word: UInt64) -> Bool {
    needsEscape(word) || word & high != 0
  }

  /// Whether `count` bytes at `base` hold no quote, no backslash and no byte
  /// below 0x20 (nor, when `asciiOnly`, above 0x7F): a long string's text
  /// that is written or read as it is. memchr finds quotes and backslashes
  /// many bytes a step; one pass then ORs the byte test over every word and
  /// checks once (a camera frame's base64 is hundreds of KB of plain text).
  public static func isPlain(_ base: UnsafeRawPointer, count: Int, asciiOnly: Bool) -> Bool {
    guard count > 0 else { return true }
    if memchr(base, 0x22, count) != nil || memchr(base, 0x5C, count) != nil { return false }
    let low = ones &* 0x20
    var seen: UInt64 = 0
    var offset = 0
    if asciiOnly {
      // A byte below 0x20 borrows into its top bit; one above 0x7F has it.
      while offset + 16 <= count {
        let a = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let b = base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
        seen |= (a &- low) | a | (b &- low) | b
        offset += 16
      }
    } else {
      while offset + 16 <= count {
        let a = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        let b = base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
        seen |= ((a &- low) & ~a) | ((b &- low) & ~b)
        offset += 16
      }
    }
    guard seen & high == 0 else { return false }
    while offset < count {
      let byte = base.load(fromByteOffset: offset, as: UInt8.self)
      if byte < 0x20 || (asciiOnly && byte > 0x7F) { return false }
      offset += 1
    }
    return true
  }
}
