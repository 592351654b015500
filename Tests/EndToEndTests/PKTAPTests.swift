import Foundation
import Testing

/// pcap files of Apple's PKTAP link type (258, and 149 as macOS tcpdump
/// writes it), written here with Ethernet, raw IPv4 and IPv6, and BSD
/// loopback inside, against tshark: the same records, times, UDP payloads
/// and processes.
@Suite struct PKTAPTests {
  struct Packet {
    var dlt: UInt32
    var bytes: [UInt8]
    var pid: Int32
    var process: String
    var effectivePID: Int32?
    var effectiveProcess: String?
    var payload: [UInt8]
  }

  static let phone: [UInt8] = [192, 168, 1, 20]
  static let robot: [UInt8] = [192, 168, 1, 50]
  static let phone6: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [0x20]
  static let robot6: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [0x50]

  static func rider(_ left: Int, _ right: Int, _ timestamp: Double) -> [UInt8] {
    Array("{\"left\":\(left),\"right\":\(right),\"timestamp\":\(timestamp)}".utf8)
  }

  /// One of each inner link type; the fourth is an app's traffic carried
  /// by a daemon, the fifth names no process (the kernel's own).
  static var packets: [Packet] {
    let first = rider(50, 50, 1.5)
    let second = rider(40, -40, 1.55)
    let third = rider(0, 0, 1.6)
    let fourth = rider(10, 10, 1.65)
    let fifth = rider(20, 20, 1.7)
    return [
      Packet(
        dlt: 1, bytes: PacketBytes.ethernet(PacketBytes.ipv4UDP(phone, robot, 50_001, 5005, first)), pid: 412,
        process: "HawkSight", payload: first),
      Packet(
        dlt: 12, bytes: PacketBytes.ipv4UDP(phone, robot, 50_001, 5005, second), pid: 412,
        process: "HawkSight",
        payload: second),
      Packet(
        dlt: 12, bytes: PacketBytes.ipv6UDP(phone6, robot6, 50_002, 5005, third), pid: 413,
        process: "HawkSightWidget", payload: third),
      Packet(
        dlt: 0, bytes: [2, 0, 0, 0] + PacketBytes.ipv4UDP(phone, robot, 50_003, 5005, fourth), pid: 88,
        process: "nsurlsessiond", effectivePID: 412, effectiveProcess: "HawkSight", payload: fourth),
      Packet(
        dlt: 1, bytes: PacketBytes.ethernet(PacketBytes.ipv4UDP(robot, phone, 5005, 50_001, fifth)), pid: -1,
        process: "", payload: fifth),
    ]
  }

  static func capture(linkType: UInt32) -> PcapWriter {
    var writer = PcapWriter(linkType: linkType)
    for (index, packet) in packets.enumerated() {
      let header = PKTAPWriter.header(
        dlt: packet.dlt, pid: packet.pid, process: packet.process, effectivePID: packet.effectivePID,
        effectiveProcess: packet.effectiveProcess, length: index == 1 ? 108 : 156)
      writer.records.append((1_795_320_000, UInt32(index * 50_000 + 7), header + packet.bytes))
    }
    return writer
  }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  @Test(arguments: [UInt32(258), 149])
  func agreesWithTshark(linkType: UInt32) throws {
    let writer = Self.capture(linkType: linkType)
    let path = try WrittenCapture.write(writer.bytes, name: "pktap-\(linkType).pcap")
    let decoded = try Pktbench.run(["decode", path, "--format", "ndjson", "--payload-hex"])
    #expect(decoded.status == 0, "\(decoded.stderr)")
    let records = try decoded.text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    try #require(records.count == Self.packets.count)
    for (index, packet) in Self.packets.enumerated() {
      let record = records[index]
      #expect(record["frame"] as? Int == index + 1)
      let time = 1_795_320_000 + Double(index * 50_000 + 7) / 1e6
      #expect(abs((record["time"] as? Double ?? 0) - time) < 1e-6)
      #expect(record["transport"] as? String == "udp")
      #expect(record["codec"] as? String == "rider")
      #expect(record["payload"] as? String == Self.hex(packet.payload))
      if packet.process.isEmpty {
        #expect(record["process"] == nil)
        continue
      }
      let process = try #require(record["process"] as? [String: Any], "frame \(index + 1)")
      #expect(process["name"] as? String == packet.process)
      #expect(process["pid"] as? Int == Int(packet.pid))
      if let effective = packet.effectiveProcess {
        let shown = try #require(process["effective"] as? [String: Any])
        #expect(shown["name"] as? String == effective)
        #expect(shown["pid"] as? Int == Int(packet.effectivePID!))
      } else {
        #expect(process["effective"] == nil)
      }
    }
    #expect(records[2]["src"] as? String == "[fe80::20]:50002")

    guard let tshark = Pktbench.which("tshark") else { return }
    // tshark reads 149 as PKTAP too, as macOS writes it.
    let shark = try Pktbench.runProgram(
      tshark,
      [
        "-n", "-r", path, "-T", "fields", "-E", "separator=\t", "-e", "frame.number", "-e",
        "frame.time_epoch",
        "-e", "udp.payload", "-e", "pktap.pid", "-e", "pktap.cmdname", "-e", "pktap.epid", "-e",
        "pktap.ecmdname",
      ])
    let rows = shark.text.split(separator: "\n").map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
    try #require(rows.count == records.count, "tshark: \(shark.text) \(shark.stderr)")
    for (row, record) in zip(rows, records) {
      #expect(Int(row[0]) == record["frame"] as? Int)
      #expect(abs((Double(row[1]) ?? 0) - (record["time"] as? Double ?? 0)) < 1e-6)
      #expect(row[2] == record["payload"] as? String, "frame \(row[0]) payload")
      let process = record["process"] as? [String: Any]
      if row[4].isEmpty {
        #expect(process == nil, "frame \(row[0])")
      } else {
        #expect(process?["name"] as? String == row[4], "frame \(row[0])")
        #expect(process?["pid"] as? Int == Int(row[3]), "frame \(row[0])")
      }
      let effective = process?["effective"] as? [String: Any]
      if row[6] != row[4] {
        #expect(effective?["name"] as? String == row[6])
        #expect(effective?["pid"] as? Int == Int(row[5]))
      }
    }
  }

  /// libpcap has no BPF for PKTAP outside macOS: the filter runs on the
  /// packet inside each record, as macOS's libpcap runs it.
  @Test(arguments: [UInt32(258), 149])
  func filterRunsOnThePacketInside(linkType: UInt32) throws {
    let bytes = Self.capture(linkType: linkType).bytes
    let path = try WrittenCapture.write(bytes, name: "pktap-filter-\(linkType).pcap")
    func frames(_ filter: String, file: String? = nil, stdin: [UInt8]? = nil) throws -> [Int] {
      let result = try Pktbench.run(
        ["decode", stdin == nil ? file ?? path : "-", "--filter", filter, "--format", "ndjson"], stdin: stdin)
      #expect(result.status == 0, "\(filter): \(result.stderr)")
      return try result.text.split(separator: "\n").map {
        let record = try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        return try #require(record?["frame"] as? Int)
      }
    }
    // Written above: IPv6 in frame 3 only; the robot answers from port 5005 in frame 5.
    #expect(try frames("udp port 5005") == [1, 2, 3, 4, 5])
    #expect(try frames("ip6") == [3])
    #expect(try frames("udp src port 5005") == [5])
    #expect(try frames("tcp") == [])
    // Piped in, and as pcapng (editcap's conversion): the same.
    #expect(try frames("udp src port 5005", stdin: bytes) == [5])
    if let editcap = Pktbench.which("editcap") {
      let pcapng = path + "ng"
      let converted = try Pktbench.runProgram(editcap, ["-F", "pcapng", path, pcapng])
      #expect(converted.status == 0, "\(converted.stderr)")
      #expect(try frames("ip6", file: pcapng) == [3])
      #expect(
        try frames("udp src port 5005", stdin: [UInt8](try Data(contentsOf: URL(fileURLWithPath: pcapng))))
          == [5])
    }
    let bad = try Pktbench.run(["decode", path, "--filter", "udp port banana"])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("invalid filter 'udp port banana'"), "\(bad.stderr)")
  }

  /// Text shows the process after the transport; -V on a line of its own.
  @Test func textAndTreeShowTheProcess() throws {
    let path = try WrittenCapture.write(Self.capture(linkType: 258).bytes, name: "pktap-text.pcap")
    let lines = try Pktbench.run(["decode", path])
    #expect(lines.status == 0)
    let text = lines.text.split(separator: "\n").map(String.init)
    try #require(text.count == 5)
    #expect(
      text[0].contains("192.168.1.20:50001 → 192.168.1.50:5005  udp  [HawkSight 412]  rider"), "\(text[0])")
    #expect(text[3].contains("udp  [nsurlsessiond 88 for HawkSight 412]  rider"), "\(text[3])")
    #expect(!text[4].contains("["), "\(text[4])")
    let tree = try Pktbench.run(["decode", path, "-V"])
    #expect(tree.text.contains("\n  process: {name: \"HawkSight\", pid: 412}\n"), "\(tree.text)")
    #expect(
      tree.text.contains(
        "\n  process: {name: \"nsurlsessiond\", pid: 88, effective: {name: \"HawkSight\", pid: 412}}\n"))
  }

  /// A header shorter than its fields, or longer than its record, is
  /// A process name is 16 bytes of the capture's: one holding escape
  /// sequences (clear the screen, set the window title) reaches the
  /// summary line escaped, as -V and JSON show it, never raw.
  @Test func aProcessNameWithEscapesIsEscapedOnTheSummaryLine() throws {
    let name = "\u{1B}[2J\u{1B}]0;X\u{07}"
    let packet = Self.packets[0]
    var writer = PcapWriter(linkType: 258)
    writer.records = [
      (
        1_795_320_000, 0,
        PKTAPWriter.header(dlt: 1, pid: 412, process: name, effectiveProcess: "a\u{9B}b") + packet.bytes
      )
    ]
    let path = try WrittenCapture.write(writer.bytes, name: "pktap-escapes.pcap")
    let result = try Pktbench.run(["decode", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.contains(0x1B) && !result.text.contains("\u{9B}"), "\(result.text)")
    #expect(
      result.text.contains(#"udp  [\u001b[2J\u001b]0;X\u0007 412 for a\u009bb 412]  rider"#), "\(result.text)"
    )
    let json = try Pktbench.run(["decode", path, "--format", "ndjson"])
    let record = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
    #expect((record["process"] as? [String: Any])?["name"] as? String == name)
  }

  /// damage at the PKTAP layer, at offset 0; a record that is not a packet
  /// is counted, not decoded. A filter passes none of them.
  @Test func damagedHeaders() throws {
    var writer = PcapWriter(linkType: 258)
    let packet = Self.packets[0]
    var short = PKTAPWriter.header(dlt: 1, pid: 412, process: "HawkSight") + packet.bytes
    short[0] = 40  // header length 40
    var notPacket = PKTAPWriter.header(dlt: 1, pid: 412, process: "HawkSight") + packet.bytes
    notPacket[4] = 2  // record type 2
    var huge = PKTAPWriter.header(dlt: 1, pid: 412, process: "HawkSight") + packet.bytes
    huge.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0xFF])  // header length 4,294,967,295
    writer.records = [(1_795_320_000, 0, short), (1_795_320_000, 1, notPacket), (1_795_320_000, 2, huge)]
    let path = try WrittenCapture.write(writer.bytes, name: "pktap-damaged.pcap")
    let result = try Pktbench.run(["decode", path, "--format", "ndjson"])
    let records = try result.text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    try #require(records.count == 2)
    for record in records {
      #expect(record["transport"] as? String == "pktap")
      let error = try #require(record["error"] as? [String: Any])
      #expect(error["offset"] as? Int == 0)
    }
    let texts = records.map { (($0["error"] as? [String: Any])?["text"] as? String) ?? "" }
    #expect(texts[0].contains("PKTAP header length is 40, less than the 108 bytes"))
    #expect(
      texts[1] == "PKTAP header needs 4294967295 bytes at offset 0, but only \(huge.count) remain",
      "\(texts[1])")
    let stats = try Pktbench.run(["decode", path, "--stats"])
    #expect(stats.text.contains("PKTAP record type 2 (not a packet)"), "\(stats.text)")
    let filtered = try Pktbench.run(["decode", path, "--filter", "udp", "--format", "ndjson"])
    #expect(filtered.status == 0, "\(filtered.stderr)")
    #expect(filtered.stdout.isEmpty)
  }
}

extension PKTAPTests {
  /// The records of a little-endian microsecond pcap file
  /// (pcap-savefile(5)), for wrapping in PKTAP headers.
  static func pcapRecords(_ bytes: [UInt8]) throws -> [(seconds: UInt32, microseconds: UInt32, data: [UInt8])]
  {
    func le32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    try #require(le32(0) == 0xA1B2_C3D4 && le32(20) == 1, "a little-endian µs Ethernet pcap")
    var records: [(UInt32, UInt32, [UInt8])] = []
    var at = 24
    while at + 16 <= bytes.count {
      let included = Int(le32(at + 8))
      records.append((le32(at), le32(at + 4), Array(bytes[(at + 16)..<(at + 16 + included)])))
      at += 16 + included
    }
    return records
  }

  /// An iPhone app's WebSocket session (the shipped FalconEye capture) as
  /// rvictl records it: each Ethernet frame behind a PKTAP header naming
  /// the app. The TCP stream is reassembled across records as in the
  /// plain capture, and tshark sees the same segments in both files; every
  /// message the app's packets complete carries the app's name and PID.
  @Test func aWebSocketSessionCarriesItsProcess() throws {
    let original = "Captures/falconeye-ws.pcap"
    let plain = try Self.pcapRecords(
      [UInt8](try Data(contentsOf: Pktbench.root.appendingPathComponent(original))))
    var writer = PcapWriter(linkType: 258)
    for record in plain {
      let header = PKTAPWriter.header(dlt: 1, pid: 412, process: "HawkSight")
      writer.records.append((record.seconds, record.microseconds, header + record.data))
    }
    let path = try WrittenCapture.write(writer.bytes, name: "pktap-websocket.pcap")

    func lines(_ file: String) throws -> [[String: Any]] {
      let result = try Pktbench.run(["decode", file, "--format", "ndjson"])
      #expect(result.status == 0, "\(file): \(result.stderr)")
      return try result.text.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
    }
    let expected = try lines(original)
    let wrapped = try lines(path)
    try #require(wrapped.count == expected.count)
    #expect(expected.filter { $0["codec"] as? String == "falconeye" }.count == 8)
    for (want, got) in zip(expected, wrapped) {
      var withoutProcess = got
      let process = withoutProcess.removeValue(forKey: "process") as? [String: Any]
      #expect(
        NSDictionary(dictionary: withoutProcess) == NSDictionary(dictionary: want), "frame \(want["frame"]!)")
      if got["codec"] as? String == "falconeye" {
        #expect(process?["name"] as? String == "HawkSight", "frame \(want["frame"]!)")
        #expect(process?["pid"] as? Int == 412)
      }
    }

    guard let tshark = Pktbench.which("tshark") else { return }
    func segments(_ file: String) throws -> String {
      try Pktbench.runProgram(
        tshark,
        [
          "-n", "-r", file, "-T", "fields", "-e", "frame.time_epoch", "-e", "tcp.stream", "-e", "tcp.seq_raw",
          "-e", "tcp.len", "-e", "websocket.opcode",
        ]
      ).text
    }
    let fromPlain = try segments(original)
    #expect(fromPlain.split(separator: "\n").count == plain.count)
    #expect(try segments(path) == fromPlain)
  }
}
