import Foundation
import PacketCapture
import PacketKit
import Testing

/// The PacketLogger reader: telling the format and its byte order by the
/// first record, record fields and times, damage; and the decoder's
/// reading of the record types.
@Suite struct PacketLoggerFileTests {
  /// Three records, big-endian as PacketLogger on a Mac writes them: the
  /// length counts the timestamp, type byte and data that follow it.
  /// 1795320000 s is 0x6B02_68C0; 500000 µs is 0x0007_A120.
  static let bigEndian: [UInt8] = [
    // A note, "Hi\0": length 8 + 1 + 3 = 12.
    0x00, 0x00, 0x00, 0x0C, 0x6B, 0x02, 0x68, 0xC0, 0x00, 0x07, 0xA1, 0x20, 0xFC, 0x48, 0x69, 0x00,
    // HCI Reset command (opcode 0x0C03, no parameters), 1 µs later: length 12.
    0x00, 0x00, 0x00, 0x0C, 0x6B, 0x02, 0x68, 0xC0, 0x00, 0x07, 0xA1, 0x21, 0x00, 0x03, 0x0C, 0x00,
    // Command Complete for it, 999999 µs (0x000F_423F): length 15.
    0x00, 0x00, 0x00, 0x0F, 0x6B, 0x02, 0x68, 0xC0, 0x00, 0x0F, 0x42, 0x3F, 0x01, 0x0E, 0x04, 0x01, 0x03,
    0x0C, 0x00,
  ]

  /// The same records little-endian, as iOS writes them.
  static let littleEndian: [UInt8] = [
    0x0C, 0x00, 0x00, 0x00, 0xC0, 0x68, 0x02, 0x6B, 0x20, 0xA1, 0x07, 0x00, 0xFC, 0x48, 0x69, 0x00,
    0x0C, 0x00, 0x00, 0x00, 0xC0, 0x68, 0x02, 0x6B, 0x21, 0xA1, 0x07, 0x00, 0x00, 0x03, 0x0C, 0x00,
    0x0F, 0x00, 0x00, 0x00, 0xC0, 0x68, 0x02, 0x6B, 0x3F, 0x42, 0x0F, 0x00, 0x01, 0x0E, 0x04, 0x01, 0x03,
    0x0C, 0x00,
  ]

  static let expected = [
    "1 1795320000.5 0 fc486900",
    "2 1795320000.500001 16 00030c00",
    "3 1795320000.999999 32 010e0401030c00",
    "endOfFile",
  ]

  static func write(_ bytes: [UInt8], name: String = #function) throws -> String {
    try TemporaryFile.write(bytes, suffix: "-\(name.filter(\.isLetter)).pklg")
  }

  static func transcript(_ file: PacketLoggerFile) -> [String] {
    var lines: [String] = []
    let end = file.read { record in
      lines.append("\(record.frame) \(record.time) \(record.fileOffset) \(Hex.compact([UInt8](record.data)))")
    }
    lines.append("\(end)")
    return lines
  }

  @Test func tellsTheFormatAndByteOrderByTheFirstRecord() {
    #expect(PacketLoggerFile.byteOrder(ofFirstBytes: Self.bigEndian) == .bigEndian)
    #expect(PacketLoggerFile.byteOrder(ofFirstBytes: Self.littleEndian) == .littleEndian)
    // 13 bytes are needed: the header and the type byte.
    #expect(PacketLoggerFile.byteOrder(ofFirstBytes: Self.bigEndian.prefix(12)) == nil)
    // Not PacketLogger: the capture formats' magic numbers, and headers
    // Wireshark refuses (length under 8 or over 65535, a microsecond count
    // of a whole second, an unknown type).
    let refused: [[UInt8]] = [
      [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0],
      [0x0A, 0x0D, 0x0D, 0x0A, 0x1C, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A, 1],
      Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0],
      [0, 0, 0, 7, 0x6B, 0x02, 0x68, 0xC0, 0, 0, 0, 0, 0xFC],
      [0x0C, 0, 1, 0, 0xC0, 0x68, 0x02, 0x6B, 0, 0, 0, 0, 0xFC],
      [0, 0, 0, 0x0C, 0x6B, 0x02, 0x68, 0xC0, 0x00, 0x0F, 0x42, 0x40, 0xFC],
      [0, 0, 0, 0x0C, 0x6B, 0x02, 0x68, 0xC0, 0, 0, 0, 0, 0x42],
      "{\"left\":50,\"right\":50}".bytes,
    ]
    for bytes in refused {
      #expect(PacketLoggerFile.byteOrder(ofFirstBytes: bytes) == nil, "\(Hex.spaced(bytes))")
    }
  }

  @Test func readsBothByteOrders() throws {
    for (bytes, order) in [
      (Self.bigEndian, PacketLoggerFile.ByteOrder.bigEndian), (Self.littleEndian, .littleEndian),
    ] {
      let file = try PacketLoggerFile(path: try Self.write(bytes, name: "\(order)"))
      #expect(file.byteOrder == order)
      #expect(Self.transcript(file) == Self.expected)
      // A second read starts again at the first record.
      #expect(Self.transcript(file) == Self.expected)
    }
  }

  @Test func damageEndsTheReadWhereItIs() throws {
    let cases: [([UInt8], String)] = [
      (
        Array(Self.bigEndian.prefix(16 + 5)),
        "damaged(afterFrame: 1, byteOffset: Optional(16), reason: \"record 2 at byte 16 is cut off "
          + "inside its header: 5 of 12 bytes\")"
      ),
      (
        Array(Self.bigEndian.prefix(32 + 14)),
        "damaged(afterFrame: 2, byteOffset: Optional(32), reason: \"record 3 at byte 32 is cut off: "
          + "its header says 7 bytes after the timestamp but only 2 remain\")"
      ),
      (
        Array(Self.bigEndian.prefix(16)) + [0, 0, 0, 5] + Array(Self.bigEndian[20...]),
        "damaged(afterFrame: 1, byteOffset: Optional(16), reason: \"record 2 at byte 16 has length 5, "
          + "less than the 8 bytes of its own timestamp: the record header is damaged\")"
      ),
      (
        Array(Self.bigEndian.prefix(16)) + [0, 0x10, 0, 0] + Array(Self.bigEndian[20...]),
        "damaged(afterFrame: 1, byteOffset: Optional(16), reason: \"record 2 at byte 16 claims 1048568 "
          + "bytes, more than the 262144 a PacketLogger record holds: the record header is damaged\")"
      ),
    ]
    for (bytes, end) in cases {
      let lines = Self.transcript(try PacketLoggerFile(path: try Self.write(bytes)))
      #expect(lines.last == end)
      #expect(Array(lines.dropLast()) == Array(Self.expected.prefix(lines.count - 1)))
    }
  }

  @Test func refusesWhatIsNotPacketLogger() throws {
    let pcap = try Self.write([0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    #expect(throws: BluetoothError.self) { try PacketLoggerFile(path: pcap) }
    let empty = try Self.write([])
    #expect(throws: BluetoothError("\(empty) is not a PacketLogger file: it is empty")) {
      try PacketLoggerFile(path: empty)
    }
  }

  /// The fuzzer reads from memory: the same records and endings as from a
  /// file, on every cut of the file.
  @Test func memoryReaderReadsAsTheFileReader() throws {
    for length in 0...Self.littleEndian.count {
      let bytes = Array(Self.littleEndian.prefix(length))
      let path = try Self.write(bytes, name: "cut\(length)")
      let fromFile = Result { () throws(BluetoothError) in Self.transcript(try PacketLoggerFile(path: path)) }
      let fromMemory = Result { () throws(BluetoothError) in
        Self.transcript(try PacketLoggerFile(bytes: bytes, name: path))
      }
      #expect(fromFile == fromMemory, "\(length) bytes")
    }
  }

  // MARK: Record types

  static func decode(_ records: [[UInt8]]) -> [BluetoothEvent] {
    decodeBluetooth(BluetoothDecoder(), .packetLogger, records.map { (0, $0) })
  }

  @Test func textRecordsAreLogEntries() {
    let kinds: [(UInt8, String)] = [
      (0xF8, "kernel"), (0xF9, "kernel-debug"), (0xFA, "error"), (0xFB, "power"), (0xFC, "note"),
      (0xFD, "config"), (0xFE, "new-controller"),
    ]
    let events = Self.decode(kinds.map { [$0.0] + "Controller \($0.1)\n\0\0\0".bytes })
    #expect(
      events
        == kinds.enumerated().map { index, kind in
          .log(
            BluetoothLogEntry(
              frame: index + 1, time: Double(index + 1) / 10, kind: kind.1, message: "Controller \(kind.1)"))
        })
  }

  @Test func syslogRecordsCarryTheirFields() {
    // Process ID 412 little-endian, message type 16 (error), five strings.
    let record: [UInt8] =
      [0xF7, 0x9C, 0x01, 0x00, 0x00, 0x10]
      + "bluetoothd\0CoreBluetooth\0com.apple.bluetooth\0LE\0Lost link\0".bytes
    let syslog = BluetoothLogEntry.Syslog(
      processID: 412, messageType: 16, process: "bluetoothd", sender: "CoreBluetooth",
      subsystem: "com.apple.bluetooth", category: "LE")
    #expect(
      Self.decode([record, Array(record.prefix(20))]) == [
        .log(BluetoothLogEntry(frame: 1, time: 0.1, kind: "syslog", message: "Lost link", syslog: syslog)),
        // Cut short: the strings it has, the rest empty.
        .log(
          BluetoothLogEntry(
            frame: 2, time: 0.2, kind: "syslog", message: "",
            syslog: .init(
              processID: 412, messageType: 16, process: "bluetoothd", sender: "Cor", subsystem: "",
              category: ""))),
      ])
    #expect(
      Self.decode([[0xF7, 0x9C, 0x01]]) == [
        .damaged(
          frame: 1, time: 0.1, layer: "packetlogger", offset: 1,
          text: "syslog record needs 5 bytes (process ID, message type) after its type byte, has 2")
      ])
  }

  @Test func scoLMPAndUnknownTypesAreCountedNotDamaged() {
    let decoder = BluetoothDecoder()
    let events = decodeBluetooth(
      decoder, .packetLogger,
      [(0, [0x08, 1, 0, 1, 9]), (0, [0x09, 1, 0, 0]), (0, [0x0A, 1]), (0, [0x0B]), (0, [0x42])])
    #expect(
      events == [
        .undecoded(frame: 1, time: 0.1, reason: "SCO data sent"),
        .undecoded(frame: 2, time: 0.2, reason: "SCO data received"),
        .undecoded(frame: 3, time: 0.3, reason: "LMP sent"),
        .undecoded(frame: 4, time: 0.4, reason: "LMP received"),
        .undecoded(frame: 5, time: 0.5, reason: "PacketLogger record type 0x42"),
      ])
    #expect(decoder.statistics.scoPackets == 2)
    #expect(
      Self.decode([[]]) == [
        .damaged(
          frame: 1, time: 0.1, layer: "packetlogger", offset: 0,
          text: "record has no PacketLogger type byte (its length is 8)")
      ])
  }

  /// Commands and events are named as H4's are; ACL direction comes from
  /// the type (02 sent, 03 received).
  @Test func hciRecordsDecodeAsH4Does() {
    let packets: [BluetoothTestPacket] = [
      .command([0x03, 0x0C, 0x00]), .event([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
    ]
    #expect(
      decodeBluetooth(BluetoothDecoder(), .packetLogger, packets: packets)
        == decodeBluetooth(BluetoothDecoder(), .hciH4, packets: packets))
  }
}
