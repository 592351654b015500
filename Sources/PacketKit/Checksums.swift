/// Check functions used by the protocols.
public enum Checksums {
  /// XOR of all bytes (Rallie v0.3).
  @inlinable
  public static func xor<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
    var check: UInt8 = 0
    for byte in bytes { check ^= byte }
    return check
  }

  /// CRC-16/MODBUS: init FFFF, reflected polynomial A001, no final XOR. A
  /// byte at a time from a table of the 256 eight-step remainders.
  @inlinable
  public static func crc16Modbus<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    var crc: UInt16 = 0xFFFF
    crc16Table.withUnsafeBufferPointer { table in
      for byte in bytes {
        crc = (crc >> 8) ^ table[Int(truncatingIfNeeded: (crc ^ UInt16(byte)) & 0xFF)]
      }
    }
    return crc
  }

  /// The remainder of each byte value after eight shifts with the reflected
  /// polynomial A001.
  @usableFromInline
  static let crc16Table: [UInt16] = (0..<256).map { value in
    var crc = UInt16(value)
    for _ in 0..<8 {
      crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1
    }
    return crc
  }
}
