/// Check functions used by the protocols.
public enum Checksums {
  /// XOR of all bytes (Rallie v0.3).
  public static func xor<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
    var check: UInt8 = 0
    for byte in bytes { check ^= byte }
    return check
  }

  /// CRC-16/MODBUS: init FFFF, reflected polynomial A001, no final XOR.
  public static func crc16Modbus<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
    var crc: UInt16 = 0xFFFF
    for byte in bytes {
      crc ^= UInt16(byte)
      for _ in 0..<8 {
        crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1
      }
    }
    return crc
  }
}
