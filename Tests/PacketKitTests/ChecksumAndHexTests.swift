import Foundation
import PacketKit
import Testing

@Suite struct ChecksumTests {
  @Test func crc16ModbusCheckValue() {
    // The catalogue check value of CRC-16/MODBUS over "123456789" is 0x4B37.
    #expect(Checksums.crc16Modbus(Array("123456789".utf8)) == 0x4B37)
  }

  /// The table-driven CRC against the catalogue's bit-at-a-time definition
  /// on random inputs of every length up to 64, as arrays and as slices.
  @Test func crc16ModbusMatchesBitwiseDefinition() {
    func bitwise(_ bytes: [UInt8]) -> UInt16 {
      var crc: UInt16 = 0xFFFF
      for byte in bytes {
        crc ^= UInt16(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
      }
      return crc
    }
    var rng = SplitMix64(seed: 7)
    for length in 0...64 {
      for _ in 0..<20 {
        let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        #expect(Checksums.crc16Modbus(bytes) == bitwise(bytes))
        #expect(Checksums.crc16Modbus(bytes.dropFirst()) == bitwise(Array(bytes.dropFirst())))
      }
    }
  }

  @Test func rallieVectorsFromProtocols() {
    let command: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00]
    #expect(Checksums.xor(command) == 0x4E)
    #expect(UInt8(Checksums.crc16Modbus(command) & 0xFF) == 0x41)
  }
}

@Suite struct HexTests {
  @Test(arguments: [
    "01 03 02 00 DC 05", "010302 00dc05", "0x01,0x03,0x02,0x00,0xdc,0x05", "01:03:02:00:DC:05",
  ])
  func parsesCommonSpellings(text: String) throws {
    #expect(try Hex.parse(text) == [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05])
  }

  /// Spaced upper case and compact lower case, against printf's %02X and
  /// %02x, for every byte value, empty input, slices and non-contiguous
  /// collections; and parse reads back what spaced wrote.
  @Test func writesEveryByteAsPrintfDoes() throws {
    let all = (0...255).map { UInt8($0) }
    let upper = all.map { String(format: "%02X", $0) }
    let lower = all.map { String(format: "%02x", $0) }
    #expect(Hex.spaced(all) == upper.joined(separator: " "))
    #expect(Hex.compact(all) == lower.joined())
    #expect(Hex.spaced(all[16..<19]) == "10 11 12")
    #expect(Hex.compact(all.lazy.map { $0 ^ 0xFF }.prefix(2)) == "fffe")
    #expect(Hex.spaced([UInt8]()) == "" && Hex.compact([UInt8]()) == "")
    #expect(try Hex.parse(Hex.spaced(all)) == all)
  }

  @Test func oddDigitCountIsRefused() {
    #expect(throws: Hex.ParseError.self) { try Hex.parse("123") }
  }

  @Test func badCharacterIsNamed() {
    do {
      _ = try Hex.parse("01 0G")
      Issue.record("should fail")
    } catch {
      #expect(error.description.contains("'G'"))
    }
  }
}

@Suite struct ByteReaderTests {
  @Test func readsLittleAndBigEndian() throws {
    let bytes: [UInt8] = [0xDC, 0x05, 0x12, 0x34, 0x56, 0x78]
    let (first, second, atEnd) = try bytes.withUnsafeBytes { buffer in
      var reader = ByteReader(buffer)
      return (try reader.readUInt16LE("a"), try reader.readUInt32BE("b"), reader.isAtEnd)
    }
    #expect(first == 1500)
    #expect(second == 0x1234_5678)
    #expect(atEnd)
  }

  @Test func shortReadNamesOffsetAndField() {
    [UInt8]([1, 2, 3]).withUnsafeBytes { buffer in
      var reader = ByteReader(buffer)
      do {
        _ = try reader.readUInt16LE("first")
        _ = try reader.readUInt16LE("battery_mv")
        Issue.record("should fail")
      } catch let error as DecodeError {
        #expect(error.code == "truncated")
        #expect(error.offset == 2)
        #expect(error.text.contains("battery_mv"))
      } catch {
        Issue.record("unexpected \(error)")
      }
    }
  }
}
