import Foundation
import PacketCapture
import PacketKit
import Testing

/// The btsnoop reader: header checks, record fields, time, damage.
@Suite struct BluetoothBtsnoopFileTests {
  static let header: [UInt8] = [
    0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00,  // "btsnoop\0"
    0x00, 0x00, 0x00, 0x01,  // version 1
    0x00, 0x00, 0x03, 0xEA,  // datalink 1002 (HCI UART, H4)
  ]

  /// Three records. Timestamps are microseconds since 0 AD:
  /// python3 -c "print(hex(0x00DCDDB30F2F8000 + 1700000000500000))" → 0xe2e7d727556120
  /// (and + 1700000000750000 → 0xe2e7d7275931b0, + 1700000001000000 → 0xe2e7d7275d0240).
  static let records: [UInt8] = [
    // Record 1: the LE Connection Complete event, received.
    0x00, 0x00, 0x00, 0x16,  // original length 22
    0x00, 0x00, 0x00, 0x16,  // included length 22
    0x00, 0x00, 0x00, 0x03,  // flags: received, command/event
    0x00, 0x00, 0x00, 0x00,  // cumulative drops
    0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x55, 0x61, 0x20,  // timestamp
    0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0,
    0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00,
    // Record 2: the Write Command, sent.
    0x00, 0x00, 0x00, 0x12,  // original length 18
    0x00, 0x00, 0x00, 0x12,  // included length 18
    0x00, 0x00, 0x00, 0x00,  // flags: sent, data
    0x00, 0x00, 0x00, 0x00,  // cumulative drops
    0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x59, 0x31, 0xB0,  // timestamp
    0x02, 0x40, 0x00, 0x0D, 0x00, 0x09, 0x00, 0x04, 0x00, 0x52, 0x0C, 0x00,
    0x01, 0x03, 0x02, 0x00, 0xDC, 0x05,
    // Record 3: a Number Of Completed Packets event, snapped to 4 of its 8 bytes.
    0x00, 0x00, 0x00, 0x08,  // original length 8
    0x00, 0x00, 0x00, 0x04,  // included length 4
    0x00, 0x00, 0x00, 0x03,  // flags: received, command/event
    0x00, 0x00, 0x00, 0x02,  // cumulative drops 2
    0x00, 0xE2, 0xE7, 0xD7, 0x27, 0x5D, 0x02, 0x40,  // timestamp
    0x04, 0x13, 0x05, 0x01,
  ]

  static func write(_ bytes: [UInt8], name: String = #function) throws -> String {
    let path = NSTemporaryDirectory() + "pktbench-btsnoop-\(name.filter(\.isLetter))-\(getpid()).btsnoop"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// Everything a read gives: each record's fields and bytes, then how it ended.
  static func transcript(_ file: BtsnoopFile) -> [String] {
    var lines = ["datalink \(file.datalink) version \(file.version)"]
    let end = file.read { record in
      lines.append(
        "\(record.frame) \(record.time) \(record.flags) \(record.originalLength) \(record.cumulativeDrops) "
          + "\(record.fileOffset) \(Hex.compact([UInt8](record.data)))")
    }
    lines.append("\(end)")
    return lines
  }

  /// The fuzzer reads btsnoop inputs from memory: that reader gives what
  /// the file reader gives, record for record, on the shipped logs (the
  /// damaged one too), on every cut of a log, and in its refusals.
  @Test func memoryReaderReadsAsTheFileReader() throws {
    let logs = ["legctrl-session.btsnoop", "rallie-session.btsnoop", "damaged/legctrl-truncated.btsnoop"]
    var inputs: [[UInt8]] = [
      Self.header + Self.records, [], Array("btsnoop\0".utf8), Self.header.prefix(12) + [0, 0, 0, 7],
    ]
    for log in logs {
      let bytes = try [UInt8](
        Data(contentsOf: CorpusTests.packageRoot.appendingPathComponent("Captures/ble/\(log)")))
      inputs.append(bytes)
    }
    let cuts = Self.header + Self.records
    for length in 0..<cuts.count { inputs.append(Array(cuts.prefix(length))) }
    for (index, bytes) in inputs.enumerated() {
      let path = try Self.write(bytes, name: "memoryReader\(index)")
      defer { try? FileManager.default.removeItem(atPath: path) }
      let fromFile: Result<[String], BluetoothError> = Result { () throws(BluetoothError) in
        Self.transcript(try BtsnoopFile(path: path))
      }
      let fromMemory: Result<[String], BluetoothError> = Result { () throws(BluetoothError) in
        Self.transcript(try BtsnoopFile(bytes: bytes))
      }
      switch (fromFile, fromMemory) {
      case (.success(let file), .success(let memory)):
        #expect(file == memory, "input \(index), \(bytes.count) bytes")
      case (.failure(let file), .failure(let memory)):
        // The same words, naming the file or "(memory)".
        #expect(file.text.replacingOccurrences(of: path, with: "(memory)") == memory.text)
      default:
        Issue.record(
          "input \(index), \(bytes.count) bytes: \(fromFile) from the file, \(fromMemory) from memory")
      }
    }
    #expect(inputs.count > 100)
  }

  @Test func readsRecordsBack() throws {
    let path = try Self.write(Self.header + Self.records)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let file = try BtsnoopFile(path: path)
    #expect(file.datalink == 1002)
    #expect(file.version == 1)
    var seen:
      [(frame: Int, time: Double, flags: UInt32, original: Int, drops: UInt32, offset: Int, data: [UInt8])] =
        []
    let end = file.read { record in
      seen.append(
        (
          record.frame, record.time, record.flags, record.originalLength, record.cumulativeDrops,
          record.fileOffset, Array(record.data)
        ))
    }
    #expect(end == .endOfFile)
    #expect(seen.map(\.frame) == [1, 2, 3])
    #expect(seen.map(\.time) == [1_700_000_000.5, 1_700_000_000.75, 1_700_000_001.0])
    #expect(seen.map(\.flags) == [3, 0, 3])
    #expect(seen.map(\.original) == [22, 18, 8])
    #expect(seen.map(\.drops) == [0, 0, 2])
    #expect(seen.map(\.offset) == [16, 16 + 24 + 22, 16 + 24 + 22 + 24 + 18])
    #expect(seen[1].data == LegCtrlSession.servoWriteCommand.framed(for: .hciH4).data)
    #expect(seen[2].data == [0x04, 0x13, 0x05, 0x01])

    // Reading again starts over; the records decode.
    let decoder = BluetoothDecoder()
    var events: [BluetoothEvent] = []
    let again = file.read { record in
      decoder.decode(.hciH4, frame: record.frame, time: record.time, flags: record.flags, data: record.data) {
        events.append($0)
      }
    }
    #expect(again == .endOfFile)
    #expect(events.values.map(\.direction) == [.centralToPeripheral])
    #expect(events.values.first?.time == 1_700_000_000.75)
    #expect(events.damages.map(\.frame) == [3])  // the snapped event
  }

  @Test func recordCutOffMidFileIsDamagedWithItsNumber() throws {
    // Cut record 3 inside its data, then inside its header.
    let whole = Self.header + Self.records
    for cut in [2, 20] {
      let path = try Self.write(Array(whole.dropLast(cut + (cut == 20 ? 4 : 0))), name: "cut\(cut)")
      defer { try? FileManager.default.removeItem(atPath: path) }
      var frames: [Int] = []
      let end = try BtsnoopFile(path: path).read { frames.append($0.frame) }
      #expect(frames == [1, 2])
      guard case .damaged(let afterFrame, let byteOffset, let reason) = end else {
        Issue.record("expected damage, got \(end)")
        continue
      }
      #expect(afterFrame == 2)
      #expect(byteOffset == 16 + 24 + 22 + 24 + 18)
      #expect(reason.contains("record 3"))
    }
  }

  /// Records of every size up to the largest one allowed, several windows'
  /// worth, so that records cross the reader's window at every kind of
  /// boundary: each comes back with its own bytes, frame and file offset,
  /// and a file cut inside the last one says so.
  @Test func recordsAcrossTheReadWindowComeBackWhole() throws {
    var random = SplitMix64(seed: 0xB75)
    var file = Self.header
    var written: [(offset: Int, data: [UInt8])] = []
    var lengths = [BtsnoopFile.maxRecordLength, 0, 1, 23, 24, 25]
    while file.count < 3 * BtsnoopFile.windowLength {
      lengths.append(
        random.chance(1, in: 20) ? BtsnoopFile.maxRecordLength - random.below(64) : random.below(3000))
      let length = lengths.removeFirst()
      let data = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      written.append((file.count, data))
      for field in [UInt32(length), UInt32(length), 0, 0, 0, 0] {
        file += [
          UInt8(field >> 24), UInt8(field >> 16 & 0xFF), UInt8(field >> 8 & 0xFF), UInt8(field & 0xFF),
        ]
      }
      file += data
    }
    for cut in [0, 1] {
      let path = try Self.write(Array(file.dropLast(cut)), name: "window\(cut)")
      defer { try? FileManager.default.removeItem(atPath: path) }
      var read = 0
      let end = try BtsnoopFile(path: path).read { record in
        guard read < written.count else { return }
        #expect(record.frame == read + 1)
        #expect(record.fileOffset == written[read].offset)
        #expect(Array(record.data) == written[read].data, "record \(read + 1)")
        read += 1
      }
      if cut == 0 {
        #expect(end == .endOfFile)
        #expect(read == written.count)
      } else {
        #expect(read == written.count - 1)
        #expect(end == .damaged(afterFrame: read, byteOffset: written[read].offset, reason: end.reason))
        #expect(end.reason.contains("cut off"))
      }
    }
  }

  @Test func impossibleRecordLengthIsDamaged() throws {
    var bytes = Self.header + Self.records
    bytes[16 + 4] = 0x7F  // record 1 included length 0x7F000016
    let path = try Self.write(bytes)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let end = try BtsnoopFile(path: path).read { _ in Issue.record("no record should be delivered") }
    #expect(end == .damaged(afterFrame: 0, byteOffset: 16, reason: end.reason))
    #expect(end.reason.contains("record 1"))
  }

  @Test func notABtsnoopFileSaysWhatItStartsWith() throws {
    let pcap: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
    let path = try Self.write(pcap)
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect {
      _ = try BtsnoopFile(path: path)
    } throws: { error in
      guard let error = error as? BluetoothError else { return false }
      return error.text.contains("not a btsnoop file") && error.text.contains("D4 C3 B2 A1")
        && error.text.contains("pcap") && !error.text.contains("\n")
    }
  }

  @Test func missingFileAndUnsupportedHeaders() throws {
    #expect {
      _ = try BtsnoopFile(path: "/nonexistent/pktbench.btsnoop")
    } throws: { error in
      (error as? BluetoothError)?.text.contains("cannot open /nonexistent/pktbench.btsnoop") == true
    }
    var version2 = Self.header
    version2[11] = 0x02
    let versionPath = try Self.write(version2, name: "version")
    defer { try? FileManager.default.removeItem(atPath: versionPath) }
    #expect {
      _ = try BtsnoopFile(path: versionPath)
    } throws: { error in
      (error as? BluetoothError)?.text.contains("unsupported btsnoop version 2") == true
    }
    var simulator = Self.header
    simulator[14] = 0x07
    simulator[15] = 0xD2  // datalink 2002 (simulator)
    let datalinkPath = try Self.write(simulator, name: "datalink")
    defer { try? FileManager.default.removeItem(atPath: datalinkPath) }
    #expect {
      _ = try BtsnoopFile(path: datalinkPath)
    } throws: { error in
      (error as? BluetoothError)?.text.contains("unsupported btsnoop datalink 2002") == true
    }
  }
}

extension BtsnoopEnd {
  var reason: String {
    if case .damaged(_, _, let reason) = self { return reason }
    return ""
  }
}
