import Foundation
import PacketCapture
import Testing

/// The pcapng writer against the format's definition (block bytes worked
/// out by hand from draft-ietf-opsawg-pcapng), against libpcap reading the
/// file back, and against tshark reading it with nanosecond timestamps.
@Suite struct PcapngWriterTests {
  /// SHB without options: type, total length 28, byte-order magic, version
  /// 1.0, section length -1, total length again (spec §4.1).
  @Test func sectionHeaderBytes() {
    let expected: [UInt8] =
      [0x0A, 0x0D, 0x0D, 0x0A, 0x1C, 0, 0, 0, 0x4D, 0x3C, 0x2B, 0x1A, 0x01, 0x00, 0x00, 0x00]
      + [UInt8](repeating: 0xFF, count: 8) + [0x1C, 0, 0, 0]
    #expect(PcapngBlocks.sectionHeader(application: nil) == expected)
  }

  /// IDB for Ethernet, snaplen 65535, if_tsresol 9: option 9 of length 1,
  /// value 9, 3 bytes of padding, opt_endofopt; 32 bytes in all (spec §4.2).
  @Test func interfaceDescriptionBytes() {
    let expected: [UInt8] = [
      0x01, 0, 0, 0, 0x20, 0, 0, 0,  // type 1, total length 32
      0x01, 0x00, 0x00, 0x00,  // LINKTYPE_ETHERNET, reserved
      0xFF, 0xFF, 0x00, 0x00,  // snaplen 65535
      0x09, 0x00, 0x01, 0x00, 0x09, 0x00, 0x00, 0x00,  // if_tsresol = 9, padded
      0x00, 0x00, 0x00, 0x00,  // opt_endofopt
      0x20, 0, 0, 0,
    ]
    #expect(
      PcapngBlocks.interfaceDescription(linkType: 1, snapshotLength: 65_535, name: nil) == expected)
  }

  /// EPB of 5 bytes: padded to 8, total length 12 + 20 + 8 = 40; the
  /// timestamp 0x0000_0001_0000_0002 split high then low (spec §4.3).
  @Test func enhancedPacketBytesArePadded() {
    let data: [UInt8] = [1, 2, 3, 4, 5]
    let block = data.withUnsafeBytes {
      PcapngBlocks.enhancedPacket(interface: 0, timeNanoseconds: 0x1_0000_0002, data: $0, originalLength: 9)
    }
    let expected: [UInt8] = [
      0x06, 0, 0, 0, 0x28, 0, 0, 0,  // type 6, total length 40
      0, 0, 0, 0,  // interface 0
      0x01, 0, 0, 0, 0x02, 0, 0, 0,  // timestamp high, low
      0x05, 0, 0, 0, 0x09, 0, 0, 0,  // captured 5, original 9
      1, 2, 3, 4, 5, 0, 0, 0,  // data, padded
      0x28, 0, 0, 0,
    ]
    #expect(block == expected)
  }

  static let packets: [(nanoseconds: UInt64, data: [UInt8], original: Int)] = [
    (1_700_000_000_123_456_789, Array(0..<61), 61),
    (1_700_000_000_223_456_790, Array(repeating: 0xAB, count: 64), 64),
    (1_700_000_001_000_000_001, Array(repeating: 0x5A, count: 7), 1500),
  ]

  static func writeSample() throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-pcapng-\(UUID().uuidString).pcapng").path
    let writer = try PcapngWriter(path: path, linkType: 1, snapshotLength: 65_535, interfaceName: "test0")
    for packet in packets {
      try packet.data.withUnsafeBytes {
        try writer.write(timeNanoseconds: packet.nanoseconds, data: $0, originalLength: packet.original)
      }
    }
    try writer.close()
    #expect(writer.packetsWritten == 3)
    return path
  }

  /// Every block's leading and trailing lengths agree, are multiples of 4,
  /// and the blocks tile the file exactly.
  @Test func blocksTileTheFile() throws {
    let path = try Self.writeSample()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    func le32(_ at: Int) -> Int {
      Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }
    var offset = 0
    var types: [Int] = []
    while offset + 12 <= bytes.count {
      let length = le32(offset + 4)
      #expect(length % 4 == 0)
      #expect(offset + length <= bytes.count)
      guard offset + length <= bytes.count, length >= 12 else { break }
      #expect(le32(offset + length - 4) == length)
      types.append(le32(offset))
      offset += length
    }
    #expect(offset == bytes.count)
    #expect(types == [0x0A0D_0D0A, 1, 6, 6, 6])
  }

  @Test func libpcapReadsItBack() throws {
    let path = try Self.writeSample()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let reader = try PcapFileReader(path: path)
    #expect(reader.linkType == 1)
    var seen: [(Double, [UInt8], Int)] = []
    let end = reader.read { record in
      seen.append((record.time, [UInt8](record.data), record.originalLength))
    }
    #expect(end == .endOfFile)
    #expect(seen.count == 3)
    for (record, packet) in zip(seen, Self.packets) {
      #expect(record.1 == packet.data)
      #expect(record.2 == packet.original)
      #expect(abs(record.0 - Double(packet.nanoseconds) / 1e9) < 1e-6)
    }
  }

  static var tsharkPresent: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark") }

  @Test(.enabled(if: tsharkPresent, "needs tshark"))
  func tsharkReadsNanosecondTimestamps() throws {
    let path = try Self.writeSample()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/tshark")
    process.arguments = [
      "-r", path, "-T", "fields", "-e", "frame.time_epoch", "-e", "frame.cap_len", "-e", "frame.len",
      "-e", "frame.interface_name",
    ]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = Pipe()
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let rows = String(decoding: data, as: UTF8.self).split(separator: "\n").map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
    #expect(
      rows == [
        ["1700000000.123456789", "61", "61", "test0"],
        ["1700000000.223456790", "64", "64", "test0"],
        ["1700000001.000000001", "7", "1500", "test0"],
      ])
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/capinfos"), "needs capinfos"))
  func capinfosSeesNanosecondsEthernetAndThreePackets() throws {
    let path = try Self.writeSample()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/capinfos")
    process.arguments = ["-M", path]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = Pipe()
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(text.contains("pcapng"))
    #expect(text.contains("nanoseconds (9)"))
    #expect(text.contains("Ethernet"))
    #expect(text.range(of: #"Number of packets:\s+3\b"#, options: .regularExpression) != nil)
  }

  /// ISB for interface 0, timestamps in ns: isb_starttime (2) and
  /// isb_endtime (3), 8 bytes each, high then low 32 bits; isb_ifrecv (4)
  /// and isb_ifdrop (5), 8 bytes; opt_endofopt; 12 + 12 + 4·12 + 4 = 76 (spec §4.6).
  @Test func interfaceStatisticsBytes() {
    let end: UInt64 = 0x0000_0003_0000_0004
    let expected: [UInt8] =
      [0x05, 0, 0, 0, 0x4C, 0, 0, 0, 0, 0, 0, 0]  // type 5, length 76, interface 0
      + [0x03, 0, 0, 0, 0x04, 0, 0, 0]  // timestamp: high 3, low 4
      + [0x02, 0, 0x08, 0, 0x01, 0, 0, 0, 0x02, 0, 0, 0]  // isb_starttime 1:2
      + [0x03, 0, 0x08, 0, 0x03, 0, 0, 0, 0x04, 0, 0, 0]  // isb_endtime 3:4
      + [0x04, 0, 0x08, 0, 10, 0, 0, 0, 0, 0, 0, 0]  // isb_ifrecv 10
      + [0x05, 0, 0x08, 0, 2, 0, 0, 0, 0, 0, 0, 0]  // isb_ifdrop 2
      + [0, 0, 0, 0, 0x4C, 0, 0, 0]
    #expect(
      PcapngBlocks.interfaceStatistics(
        startNanoseconds: 0x1_0000_0002, endNanoseconds: end, received: 10, dropped: 2)
        == expected)
  }

  /// A closed capture records its end; a file without the block says nothing.
  @Test func theEndTimeIsReadBack() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-isb-\(UUID().uuidString).pcapng").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let writer = try PcapngWriter(path: path, linkType: 1, snapshotLength: 65_535)
    try Self.packets[0].data.withUnsafeBytes {
      try writer.write(timeNanoseconds: Self.packets[0].nanoseconds, data: $0, originalLength: 61)
    }
    try writer.close(startNanoseconds: 1_700_000_000_000_000_000, endNanoseconds: 1_700_000_005_500_000_000)
    let end = try #require(PcapngEndTime.read(path: path))
    #expect(abs(end - 1_700_000_005.5) < 1e-6)
    // libpcap still reads the packet.
    var count = 0
    _ = try PcapFileReader(path: path).read { _ in count += 1 }
    #expect(count == 1)

    let sample = try Self.writeSample()
    defer { try? FileManager.default.removeItem(atPath: sample) }
    #expect(PcapngEndTime.read(path: sample) == nil)
    #expect(PcapngEndTime.read(path: "-") == nil)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/capinfos"), "needs capinfos"))
  func capinfosReadsTheStatisticsBlock() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-isb-\(UUID().uuidString).pcapng").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let writer = try PcapngWriter(path: path, linkType: 1, snapshotLength: 65_535)
    try Self.packets[0].data.withUnsafeBytes {
      try writer.write(timeNanoseconds: Self.packets[0].nanoseconds, data: $0, originalLength: 61)
    }
    try writer.close(endNanoseconds: 1_700_000_005_500_000_000, received: 7, dropped: 3)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/capinfos")
    process.arguments = [path]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = Pipe()
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.range(of: #"Number of packets:\s+1\b"#, options: .regularExpression) != nil, "\(text)")
    #expect(text.contains("Number of stat entries = 1"), "\(text)")
  }

  @Test func anUnwritablePathIsOneLine() {
    #expect(throws: CaptureError.self) {
      _ = try PcapngWriter(path: "/nonexistent-dir/x.pcapng", linkType: 1, snapshotLength: 65_535)
    }
  }
}
