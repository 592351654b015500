/// The ones'-complement sum of RFC 1071 that IPv4 headers, UDP and TCP use.
///
/// Sums are kept unfolded in a UInt64 so pieces (pseudo-header, header,
/// payload) can be added before folding once.
enum InternetChecksum {
  /// Adds the bytes as big-endian 16-bit words; an odd last byte is the high
  /// half of a word padded with zero.
  static func sum(_ bytes: UnsafeRawBufferPointer, initial: UInt64 = 0) -> UInt64 {
    var total = initial
    var index = 0
    // Eight bytes at a time as two big-endian 32-bit words: 2^16 ≡ 1 modulo
    // 0xFFFF, so once folded they sum to what the 16-bit words do.
    let octets = bytes.count & ~7
    while index < octets {
      let word = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      total &+= (word >> 32) &+ (word & 0xFFFF_FFFF)
      index += 8
    }
    let pairs = bytes.count & ~1
    while index < pairs {
      total &+= UInt64(bytes[index]) << 8 | UInt64(bytes[index + 1])
      index += 2
    }
    if index < bytes.count {
      total &+= UInt64(bytes[index]) << 8
    }
    return total
  }

  /// Folds carries back in and complements: the value a sender writes in the
  /// checksum field, or 0 when the sum already includes a right checksum.
  static func finish(_ sum: UInt64) -> UInt16 {
    var folded = sum
    while folded > 0xFFFF {
      folded = (folded & 0xFFFF) + (folded >> 16)
    }
    return ~UInt16(truncatingIfNeeded: folded)
  }

  /// The pseudo-header UDP and TCP checksums cover (RFC 768, RFC 8200 §8.1).
  static func pseudoHeaderSum(
    source: IPAddress, destination: IPAddress, protocol number: UInt8, length: Int
  ) -> UInt64 {
    UInt64(number) + UInt64(UInt32(truncatingIfNeeded: length) >> 16) + UInt64(length & 0xFFFF)
      + addressSum(source) + addressSum(destination)
  }

  private static func addressSum(_ address: IPAddress) -> UInt64 {
    switch address {
    case .v4(let value):
      UInt64(value >> 16) + UInt64(value & 0xFFFF)
    case .v6(let high, let low):
      (high >> 48) + (high >> 32 & 0xFFFF) + (high >> 16 & 0xFFFF) + (high & 0xFFFF)
        + (low >> 48) + (low >> 32 & 0xFFFF) + (low >> 16 & 0xFFFF) + (low & 0xFFFF)
    }
  }
}
