import PacketKit

extension SpecChecksum {
  /// The check value of `bytes` under this algorithm.
  func compute(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    switch self {
    case .xor: return UInt64(Checksums.xor(bytes))
    case .sum:
      var sum: UInt8 = 0
      for byte in bytes { sum &+= byte }
      return UInt64(sum)
    case .crc8:
      var crc: UInt8 = 0
      SpecChecksumTables.crc8.withUnsafeBufferPointer { table in
        for byte in bytes { crc = table[Int(crc ^ byte)] }
      }
      return UInt64(crc)
    case .crc16Modbus: return UInt64(Checksums.crc16Modbus(bytes))
    case .crc16ModbusLow: return UInt64(Checksums.crc16Modbus(bytes) & 0xFF)
    case .crc32:
      var crc: UInt32 = 0xFFFF_FFFF
      SpecChecksumTables.crc32.withUnsafeBufferPointer { table in
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
      }
      return UInt64(crc ^ 0xFFFF_FFFF)
    }
  }

  func compute(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBytes { compute($0) }
  }

  /// How error texts name it.
  var label: String {
    switch self {
    case .xor: "XOR"
    case .sum: "sum"
    case .crc8: "CRC-8"
    case .crc16Modbus: "CRC-16/MODBUS"
    case .crc16ModbusLow: "MODBUS-low"
    case .crc32: "CRC-32"
    }
  }
}

/// Byte-at-a-time tables of the CRCs PacketKit does not have.
enum SpecChecksumTables {
  /// CRC-8, polynomial 07, MSB first.
  static let crc8: [UInt8] = (0..<256).map { value in
    var crc = UInt8(value)
    for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
    return crc
  }

  /// CRC-32, reflected polynomial EDB88320.
  static let crc32: [UInt32] = (0..<256).map { value in
    var crc = UInt32(value)
    for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    return crc
  }
}
