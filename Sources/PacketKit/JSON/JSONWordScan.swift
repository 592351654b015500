import CSIMD

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

  /// The high bit of each byte of `word` (little-endian) that a JSON string
  /// cannot hold as it is (a quote, a backslash, below 0x20; and above 0x7F,
  /// which a reader must validate as UTF-8, when `asciiOnly`), and maybe of
  /// some bytes after the first such: a borrow
  /// only runs upward from a byte that is itself below the bound, so the
  /// lowest bit set is exactly the first such byte.
  @inline(__always)
  static func specialBytes(_ word: UInt64, asciiOnly: Bool) -> UInt64 {
    let quote = bytesBelow(1, in: word ^ (ones &* 0x22))
    let backslash = bytesBelow(1, in: word ^ (ones &* 0x5C))
    return bytesBelow(0x20, in: word) | quote | backslash | (asciiOnly ? word & high : 0)
  }

  /// The length of the leading run of `count` bytes at `base` that a JSON
  /// string holds as they are: no quote, no backslash, no byte below 0x20
  /// (nor, when `asciiOnly`, above 0x7F). The first 32 bytes are read eight
  /// at a time here (keys and names end in them), and the word holding the
  /// end says where in it (`specialBytes`); past 32 plain bytes the rest is
  /// scanned by the C kernel with SSE vectors (a camera frame's base64 is
  /// hundreds of KB of plain text).
  @inline(__always)
  public static func plainPrefix(_ base: UnsafeRawPointer, count: Int, asciiOnly: Bool) -> Int {
    var scan = 0
    let words = min(count, 32)
    while scan + 8 <= words {
      let special = specialBytes(
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: scan, as: UInt64.self)), asciiOnly: asciiOnly)
      if special != 0 { return scan + special.trailingZeroBitCount >> 3 }
      scan += 8
    }
    if scan == 32 {
      return 32
        + csimd_json_plain_prefix(
          base.assumingMemoryBound(to: UInt8.self) + 32, count - 32, asciiOnly ? 1 : 0)
    }
    while scan < count {
      let byte = base.load(fromByteOffset: scan, as: UInt8.self)
      if byte == 0x22 || byte == 0x5C || byte < 0x20 || (asciiOnly && byte > 0x7F) { break }
      scan += 1
    }
    return scan
  }

  /// Whether all `count` bytes at `base` are plain (`plainPrefix`).
  public static func isPlain(_ base: UnsafeRawPointer, count: Int, asciiOnly: Bool) -> Bool {
    plainPrefix(base, count: count, asciiOnly: asciiOnly) == count
  }
}
