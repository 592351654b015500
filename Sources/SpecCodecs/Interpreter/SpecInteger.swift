/// Integers of the widths a spec allows (8 … 64 bits, either byte order).
enum SpecInteger {
  /// Whether `value` fits a field of `width` bits.
  static func fits(_ value: Int64, width: Int, signed: Bool) -> Bool {
    if width == 64 { return signed || value >= 0 }
    if signed {
      let limit = Int64(1) << (width - 1)
      return value >= -limit && value < limit
    }
    return value >= 0 && value < Int64(1) << width
  }

  static func fits(_ value: UInt64, width: Int) -> Bool {
    width == 64 || value < UInt64(1) << width
  }

  /// The unsigned bits at `offset`, which the caller checked are there.
  @inline(__always)
  static func read(_ bytes: SpecBytes, at offset: Int, width: Int, order: SpecByteOrder) -> UInt64 {
    let count = width / 8
    var value: UInt64 = 0
    if order == .big {
      for index in 0..<count { value = value << 8 | UInt64(bytes[offset + index]) }
    } else {
      for index in stride(from: count - 1, through: 0, by: -1) {
        value = value << 8 | UInt64(bytes[offset + index])
      }
    }
    return value
  }

  /// Sign-extends the low `width` bits.
  @inline(__always)
  static func signed(_ bits: UInt64, width: Int) -> Int64 {
    guard width < 64 else { return Int64(bitPattern: bits) }
    let shift = UInt64(64 - width)
    return Int64(bitPattern: bits << shift) >> Int64(shift)
  }

  static func append(_ bits: UInt64, width: Int, order: SpecByteOrder, to bytes: inout [UInt8]) {
    let count = width / 8
    if order == .big {
      for index in stride(from: count - 1, through: 0, by: -1) {
        bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * index)))
      }
    } else {
      for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * index))) }
    }
  }

  static func write(
    _ bits: UInt64, width: Int, order: SpecByteOrder, into bytes: inout [UInt8], at offset: Int
  ) {
    var encoded: [UInt8] = []
    append(bits, width: width, order: order, to: &encoded)
    for (index, byte) in encoded.enumerated() where offset + index < bytes.count {
      bytes[offset + index] = byte
    }
  }
}
