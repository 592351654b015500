import PacketKit
import Testing

@testable import SpecCodecs

/// Every check algorithm against its published check value (the CRC of
/// the ASCII digits "123456789"), as a spec computes and verifies it.
@Suite struct SpecChecksumVectorTests {
  static let spec = """
    name: checks
    byte-order: little
    header:
      - {name: kind, type: u8}
    discriminator: kind
    messages:
      - {name: xor, when: 1, fields: [{name: data, type: bytes, size: 9}, {name: check, type: u8, check: {algorithm: xor, from: data}}]}
      - {name: sum, when: 2, fields: [{name: data, type: bytes, size: 9}, {name: check, type: u8, check: {algorithm: sum, from: data}}]}
      - {name: crc8, when: 3, fields: [{name: data, type: bytes, size: 9}, {name: check, type: u8, check: {algorithm: crc8, from: data}}]}
      - {name: modbus, when: 4, fields: [{name: data, type: bytes, size: 9}, {name: check, type: u16, check: {algorithm: crc16-modbus, from: data}}]}
      - {name: modbuslo, when: 5, fields: [{name: data, type: bytes, size: 9}, {name: check, type: u8, check: {algorithm: crc16-modbus-low, from: data}}]}
      - {name: crc32, when: 6, fields: [{name: data, type: bytes, size: 9}, {name: check, type: u32, byte-order: big, check: {algorithm: crc32, from: data}}]}
    """

  static let digits = Array("123456789".utf8)

  @Test(
    arguments: [
      ("xor", [0x31]), ("sum", [0xDD]), ("crc8", [0xF4]), ("modbus", [0x37, 0x4B]), ("modbuslo", [0x37]),
      ("crc32", [0xCB, 0xF4, 0x39, 0x26]),
    ] as [(String, [UInt8])])
  func checkOfTheDigits(message: String, check: [UInt8]) throws {
    let codec = try SpecSupport.codec(Self.spec)
    let bytes = try codec.craft(message, values: CraftValues(["data": .bytes(Self.digits)]))
    #expect(Array(bytes.dropFirst(10)) == check)
    let decoded = try codec.decode(bytes)
    #expect(decoded.messageName == message)
    // One bit wrong anywhere is a check error at the check's offset.
    var damaged = bytes
    damaged[5] ^= 0x04
    #expect(throws: DecodeError.self) { try codec.decode(damaged) }
    do {
      _ = try codec.decode(damaged)
    } catch {
      #expect(error.code == "bad-check")
      #expect(error.offset == 10)
    }
  }

  @Test func algorithmsDirectly() {
    #expect(SpecChecksum.crc32.compute(Self.digits) == 0xCBF4_3926)
    #expect(SpecChecksum.crc16Modbus.compute(Self.digits) == 0x4B37)
    #expect(SpecChecksum.crc8.compute(Self.digits) == 0xF4)
    #expect(SpecChecksum.crc16ModbusLow.compute(Self.digits) == 0x37)
    #expect(SpecChecksum.sum.compute(Self.digits) == 0xDD)
    #expect(SpecChecksum.xor.compute(Self.digits) == 0x31)
  }
}
