import Foundation
import PacketCapture
import Testing

@Suite struct PcapFileReaderTests {
  static let udpFrame = Packets.ethernet(
    type: 0x0800, Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "hi".bytes)))

  @Test func readsRecordsWithTimesAndLengths() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.udpFrame, seconds: 1_700_000_000, fraction: 250_000)
    file.add(Self.udpFrame, seconds: 1_700_000_001, fraction: 0, originalLength: 1000)
    let reader = try PcapFileReader(path: try file.write())
    #expect(reader.linkType == 1)
    var records: [(Int, Double, Int, Int, [UInt8])] = []
    let end = reader.read {
      records.append(($0.frame, $0.time, $0.capturedLength, $0.originalLength, Array($0.data)))
    }
    #expect(end == .endOfFile)
    #expect(records.count == 2)
    #expect(records.map(\.0) == [1, 2])
    #expect(records.first?.1 == 1_700_000_000.25)
    #expect(records.last?.2 == Self.udpFrame.count)
    #expect(records.last?.3 == 1000)
    #expect(records.first?.4 == Self.udpFrame)
  }

  @Test func readsNanosecondStamps() throws {
    var file = PcapBuilder(linkType: 1, nanoseconds: true)
    file.add(Self.udpFrame, seconds: 1_700_000_000, fraction: 123_456_789)
    let reader = try PcapFileReader(path: try file.write())
    var times: [Double] = []
    _ = reader.read { times.append($0.time) }
    #expect(times.count == 1)
    #expect(abs((times.first ?? 0) - 1_700_000_000.123_456_789) < 1e-6)
  }

  @Test func missingFileSaysSo() {
    #expect {
      _ = try PcapFileReader(path: "/nonexistent/capture.pcap")
    } throws: { error in
      "\(error)" == "cannot open /nonexistent/capture.pcap: no such file"
    }
  }

  @Test func textFileIsNotACapture() throws {
    let path = try TemporaryFile.write("Hello, world\n".bytes, suffix: ".txt")
    #expect {
      _ = try PcapFileReader(path: path)
    } throws: { error in
      // "Hell" as a big-endian word: 0x48656c6c.
      "\(error)" == "\(path) is not a pcap or pcapng file (magic 0x48656c6c)"
    }
  }

  @Test func emptyFileIsNotACapture() throws {
    let path = try TemporaryFile.write([], suffix: ".pcap")
    #expect(throws: CaptureError("\(path) is empty, not a pcap or pcapng file")) {
      _ = try PcapFileReader(path: path)
    }
  }

  @Test func directoryIsNotACapture() {
    let path = FileManager.default.temporaryDirectory.path
    #expect {
      _ = try PcapFileReader(path: path)
    } throws: { error in
      "\(error)".contains("is a directory")
    }
  }

  /// Root reads everything, so this only means something for other users.
  @Test(.enabled(if: getuid() != 0, "running as root: permissions are not enforced"))
  func unreadableFileSaysPermission() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.udpFrame)
    let path = try file.write()
    chmod(path, 0)
    #expect {
      _ = try PcapFileReader(path: path)
    } throws: { error in
      "\(error)" == "cannot open \(path): permission denied"
    }
  }

  @Test func truncatedRecordStopsWithDamageNamingTheRecord() throws {
    var file = PcapBuilder(linkType: 1)
    for _ in 0..<3 { file.add(Self.udpFrame) }
    var bytes = file.bytes
    bytes.removeLast(10)  // cut into the third record's data
    let path = try TemporaryFile.write(bytes, suffix: ".pcap")
    let reader = try PcapFileReader(path: path)
    var frames: [Int] = []
    let end = reader.read { frames.append($0.frame) }
    #expect(frames == [1, 2])
    guard case .damaged(let afterFrame, let offset, let reason) = end else {
      Issue.record("expected damage, got \(end)")
      return
    }
    #expect(afterFrame == 2)
    #expect(offset != nil)
    #expect(reason.contains("truncated"))
  }

  @Test func truncatedRecordHeaderIsDamage() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.udpFrame)
    let bytes = file.bytes + [1, 2, 3, 4, 5]  // five bytes of a 16-byte record header
    let reader = try PcapFileReader(path: try TemporaryFile.write(bytes, suffix: ".pcap"))
    var count = 0
    let end = reader.read { _ in count += 1 }
    #expect(count == 1)
    if case .damaged(1, _, _) = end {} else { Issue.record("expected damage after frame 1, got \(end)") }
  }

  @Test func bpfFilterKeepsMatchingRecordsAndFrameNumbers() throws {
    var file = PcapBuilder(linkType: 1)
    let other = Packets.ethernet(
      type: 0x0800,
      Packets.ipv4(protocol: 17, payload: Packets.udp(destinationPort: 53, payload: "dns".bytes)))
    file.add(other)
    file.add(Self.udpFrame)
    file.add(Packets.ethernet(type: 0x0806, [UInt8](repeating: 0, count: 28)))
    file.add(Self.udpFrame)
    let reader = try PcapFileReader(path: try file.write())
    try reader.setFilter("udp port 5005")
    var frames: [Int] = []
    let end = reader.read { frames.append($0.frame) }
    #expect(end == .endOfFile)
    #expect(frames == [2, 4])
  }

  @Test func badFilterReportsLibpcapsError() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.udpFrame)
    let reader = try PcapFileReader(path: try file.write())
    #expect {
      try reader.setFilter("udp port banana")
    } throws: { error in
      "\(error)".hasPrefix("invalid filter 'udp port banana': ")
    }
  }

  @Test func stopEndsReadingEarly() throws {
    var file = PcapBuilder(linkType: 1)
    for _ in 0..<5 { file.add(Self.udpFrame) }
    let reader = try PcapFileReader(path: try file.write())
    var count = 0
    _ = reader.read { _ in
      count += 1
      if count == 2 { reader.stop() }
    }
    #expect(count == 2)
    #expect(reader.wasStopped)
    _ = reader.read { _ in count += 1 }
    #expect(count == 5)
  }
}

@Suite struct PcapngReaderTests {
  @Test func readsPcapng() throws {
    var file = PcapngBuilder()
    file.interface(linkType: 1)
    file.packet(interface: 0, PcapFileReaderTests.udpFrame)
    file.packet(interface: 0, PcapFileReaderTests.udpFrame)
    let reader = try PcapFileReader(path: try TemporaryFile.write(file.bytes, suffix: ".pcapng"))
    var count = 0
    #expect(reader.read { _ in count += 1 } == .endOfFile)
    #expect(count == 2)
  }

  static let rawUDP = Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "raw".bytes))
  static let dns = Packets.ethernet(
    type: 0x0800, Packets.ipv4(protocol: 17, payload: Packets.udp(destinationPort: 53, payload: [1])))

  /// Ethernet, then raw IP on a second interface, then Ethernet again (the
  /// last in a simple packet block), with nanosecond stamps on the second interface.
  static func mixedFile() throws -> String {
    var file = PcapngBuilder()
    file.interface(linkType: 1)
    file.packet(interface: 0, PcapFileReaderTests.udpFrame, stamp: 1_700_000_000_000_000)
    file.nameResolution()
    file.interface(linkType: 101, nanoseconds: true)
    file.packet(interface: 1, rawUDP, stamp: 1_700_000_001_500_000_000)
    file.packet(interface: 0, dns)
    file.packet(interface: 0, PcapFileReaderTests.udpFrame)
    file.simplePacket(PcapFileReaderTests.udpFrame)
    return try TemporaryFile.write(file.bytes, suffix: ".pcapng")
  }

  @Test func mixedLinkTypesAreReadByTheFallback() throws {
    let reader = try PcapFileReader(path: try Self.mixedFile())
    let decoder = PacketDecoder()
    var records: [(frame: Int, link: Int32, time: Double)] = []
    var payloads: [[UInt8]] = []
    let end = reader.read { record in
      records.append((record.frame, record.linkType, record.time))
      decoder.decode(record) { event in
        if case .datagram(_, _, _, _, let payload, _) = event { payloads.append(Array(payload)) }
      }
    }
    #expect(end == .endOfFile)
    #expect(records.map(\.frame) == [1, 2, 3, 4, 5])
    // LINKTYPE_RAW is reported as DLT_RAW (12 on Linux), as libpcap reports it.
    #expect(records.map(\.link) == [1, 12, 1, 1, 1])
    #expect(records.first?.time == 1_700_000_000)
    #expect(records.dropFirst().first?.time == 1_700_000_001.5)
    #expect(payloads == ["hi".bytes, "raw".bytes, [1], "hi".bytes, "hi".bytes])
  }

  @Test func filterAppliesPerLinkTypeInTheFallback() throws {
    let reader = try PcapFileReader(path: try Self.mixedFile())
    try reader.setFilter("udp port 5005")
    var frames: [Int] = []
    #expect(reader.read { frames.append($0.frame) } == .endOfFile)
    #expect(frames == [1, 2, 4, 5])
  }

  @Test func simplePacketBlocks() throws {
    var file = PcapngBuilder()
    file.interface(linkType: 1)
    file.simplePacket(PcapFileReaderTests.udpFrame)
    let reader = try PcapFileReader(path: try TemporaryFile.write(file.bytes, suffix: ".pcapng"))
    var data: [[UInt8]] = []
    #expect(reader.read { data.append(Array($0.data)) } == .endOfFile)
    #expect(data == [PcapFileReaderTests.udpFrame])
  }

  @Test func damageInTheFallbackNamesTheRecord() throws {
    var file = PcapngBuilder()
    file.interface(linkType: 1)
    file.packet(interface: 0, PcapFileReaderTests.udpFrame)
    file.interface(linkType: 101)
    let lastBlock = file.bytes.count
    file.packet(interface: 1, Self.rawUDP)
    var bytes = file.bytes
    bytes.removeLast(6)
    let reader = try PcapFileReader(path: try TemporaryFile.write(bytes, suffix: ".pcapng"))
    var count = 0
    let end = reader.read { _ in count += 1 }
    #expect(count == 1)
    guard case .damaged(1, let offset, let reason) = end else {
      Issue.record("expected damage after record 1, got \(end)")
      return
    }
    // The block that is cut short, where it starts (pcapng: blocks follow each other).
    #expect(offset == lastBlock)
    #expect(reason.contains("truncated pcapng block"))
  }
}
