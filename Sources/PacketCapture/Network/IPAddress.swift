/// An IPv4 or IPv6 address, held as integers in network order of significance
/// so hashing and comparing are cheap on the per-packet path.
public enum IPAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
  case v4(UInt32)
  /// High and low 64 bits.
  case v6(UInt64, UInt64)

  /// Reads `count` (4 or 16) bytes at `offset`; the caller has checked the length.
  static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int, v6: Bool) -> IPAddress {
    if v6 {
      let high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      let low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
      return .v6(high, low)
    }
    return .v4(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
  }

  /// The address bytes as they appear on the wire.
  public var bytes: [UInt8] {
    switch self {
    case .v4(let value):
      return (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    case .v6(let high, let low):
      return (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
        + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }
  }

  public var isV6: Bool {
    if case .v6 = self { true } else { false }
  }

  /// Dotted quad for IPv4; RFC 5952 text for IPv6 (lower case, the longest
  /// run of two or more zero groups shortened to "::").
  public var description: String {
    switch self {
    case .v4:
      return endpointDescription(port: nil)
    case .v6(let high, let low):
      let groups =
        (0..<4).map { UInt16(truncatingIfNeeded: high >> (48 - 16 * $0)) }
        + (0..<4).map { UInt16(truncatingIfNeeded: low >> (48 - 16 * $0)) }
      return Self.format(groups)
    }
  }

  /// "a.b.c.d:port" (or the IPv6 form "[…]:port"), built in one stack
  /// buffer: it runs once or twice per packet when output names endpoints.
  public func endpointDescription(port: UInt16?) -> String {
    guard case .v4(let value) = self else {
      return port.map { "[\(description)]:\($0)" } ?? description
    }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
      var count = 0
      func append(_ number: Int) {
        var digits = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        var n = number
        var length = 0
        repeat {
          let digit = UInt8(n % 10) + UInt8(ascii: "0")
          switch length {
          case 0: digits.0 = digit
          case 1: digits.1 = digit
          case 2: digits.2 = digit
          case 3: digits.3 = digit
          default: digits.4 = digit
          }
          length += 1
          n /= 10
        } while n > 0 && length < 5
        for position in stride(from: length - 1, through: 0, by: -1) {
          let digit: UInt8
          switch position {
          case 0: digit = digits.0
          case 1: digit = digits.1
          case 2: digit = digits.2
          case 3: digit = digits.3
          default: digit = digits.4
          }
          buffer[count] = digit
          count += 1
        }
      }
      for octet in 0..<4 {
        if octet > 0 {
          buffer[count] = UInt8(ascii: ".")
          count += 1
        }
        append(Int((value >> (24 - 8 * UInt32(octet))) & 0xFF))
      }
      if let port {
        buffer[count] = UInt8(ascii: ":")
        count += 1
        append(Int(port))
      }
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<count]), as: UTF8.self)
    }
  }

  private static func format(_ groups: [UInt16]) -> String {
    var bestStart = -1
    var bestLength = 0
    var index = 0
    while index < groups.count {
      guard groups[index] == 0 else {
        index += 1
        continue
      }
      let start = index
      while index < groups.count, groups[index] == 0 { index += 1 }
      if index - start > bestLength {
        bestStart = start
        bestLength = index - start
      }
    }
    let text = groups.map { String($0, radix: 16) }
    guard bestLength >= 2 else { return text.joined(separator: ":") }
    let head = text[..<bestStart].joined(separator: ":")
    let tail = text[(bestStart + bestLength)...].joined(separator: ":")
    return head + "::" + tail
  }

  public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
    switch (lhs, rhs) {
    case (.v4(let a), .v4(let b)): a < b
    case (.v4, .v6): true
    case (.v6, .v4): false
    case (.v6(let ah, let al), .v6(let bh, let bl)): (ah, al) < (bh, bl)
    }
  }
}
