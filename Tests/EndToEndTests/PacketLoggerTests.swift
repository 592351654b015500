import Foundation
import Testing

/// Apple PacketLogger files, written here in both byte orders from the
/// shipped BLE sessions with every text record type, SCO and LMP among the
/// packets, against tshark's reading of the same files: the same records,
/// times, ATT values and texts.
@Suite struct PacketLoggerTests {
  /// A note, a syslog line and each other text record, as PacketLogger
  /// writes them (NUL-ended; syslog: process ID little-endian, message
  /// type, then process, sender, subsystem, category and message).
  static let textRecords: [(type: UInt8, data: [UInt8])] = [
    (0xFC, Array("Recording started for HawkSight\0".utf8)),
    (
      0xF7,
      [0x9C, 0x01, 0x00, 0x00, 0x00]
        + Array(
          "bluetoothd\0CoreBluetooth\0com.apple.bluetooth\0Server.LE.Connection\0Connected to LegCtrl\0".utf8)
    ),
    (0xF8, Array("IOBluetoothHostControllerTransport: power on\n\0".utf8)),
    (0xF9, Array("hci0: reset complete\0".utf8)),
    (0xFA, Array("HCI command 0x0C03 timed out\0".utf8)),
    (0xFB, Array("Power State: On\0".utf8)),
    (0xFD, Array("Controller firmware 21.1.448\0".utf8)),
    (0xFE, Array("Apple BCM4387\0".utf8)),
    (0x08, [0x01, 0x00, 0x03, 0xAA, 0xBB, 0xCC]),  // SCO sent: handle 1, 3 bytes
    (0x09, [0x01, 0x00, 0x03, 0x11, 0x22, 0x33]),  // SCO received
    (0x0A, [0x01, 0x25, 0x03]),  // LMP sent
    (0x0B, [0x01, 0x26, 0x04]),  // LMP received
  ]

  /// Our names for the text record types (Wireshark's, in lower case).
  static let kinds: [UInt8: String] = [
    0xF7: "syslog", 0xF8: "kernel", 0xF9: "kernel-debug", 0xFA: "error", 0xFB: "power", 0xFC: "note",
    0xFD: "config", 0xFE: "new-controller",
  ]

  /// The shipped btsnoop session as PacketLogger records, with the extra
  /// records spread through it (each at its neighbour's time, plus a µs).
  static func session(_ name: String) throws -> PacketLoggerWriter {
    let btsnoop = try [UInt8](
      Data(contentsOf: Pktbench.root.appendingPathComponent("Captures/ble/\(name).btsnoop")))
    var records = PacketLoggerWriter.fromBtsnoop(btsnoop)
    for (index, extra) in textRecords.enumerated().reversed() {
      let at = index * records.count / textRecords.count
      var record = records[at]
      record.microseconds = (record.microseconds + 1) % 1_000_000
      record.type = extra.type
      record.data = extra.data
      records.insert(record, at: at)
    }
    return PacketLoggerWriter(records: records)
  }

  struct SharkRow {
    var frame: Int
    var time: Double
    var fields: [String: String]
  }

  static let sharkFields = [
    "frame.number", "frame.time_epoch", "packetlogger.type", "btatt.opcode", "btatt.handle", "btatt.value",
    "btatt.characteristic_configuration_client", "btatt.device_name", "btatt.characteristic_user_description",
    "packetlogger.info", "packetlogger.syslog.message", "packetlogger.syslog.process",
    "packetlogger.syslog.process_id",
  ]

  static func tshark(_ tshark: String, _ path: String) throws -> [SharkRow] {
    var arguments = ["-n", "-r", path, "-T", "fields", "-E", "separator=\t"]
    for field in sharkFields { arguments += ["-e", field] }
    let run = try Pktbench.runProgram(tshark, arguments)
    return run.text.split(separator: "\n").compactMap { line in
      let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard cells.count == sharkFields.count, let frame = Int(cells[0]), let time = Double(cells[1]) else {
        return nil
      }
      return SharkRow(
        frame: frame, time: time, fields: Dictionary(uniqueKeysWithValues: zip(sharkFields, cells)))
    }
  }

  /// The value tshark shows for an ATT PDU: btatt.value, or the decoded
  /// form of a well-known attribute (a CCCD write as its u16, a name).
  static func shownValue(_ row: SharkRow) -> String? {
    if let value = row.fields["btatt.value"], !value.isEmpty { return value }
    if let cccd = row.fields["btatt.characteristic_configuration_client"], !cccd.isEmpty,
      let number = UInt16(cccd.dropFirst(2), radix: 16)
    {
      return String(format: "%02x%02x", number & 0xFF, number >> 8)
    }
    for field in ["btatt.device_name", "btatt.characteristic_user_description"] {
      if let text = row.fields[field], !text.isEmpty {
        return Data(text.utf8).map { String(format: "%02x", $0) }.joined()
      }
    }
    return nil
  }

  static func ndjson(_ result: Pktbench.Result) throws -> [[String: Any]] {
    try result.text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  static let sessions = ["legctrl-session", "rallie-session"]

  @Test(arguments: sessions, PacketLoggerWriter.ByteOrder.allCases)
  func agreesWithTshark(session: String, order: PacketLoggerWriter.ByteOrder) throws {
    let writer = try Self.session(session)
    let path = try WrittenCapture.write(writer.bytes(order), name: "\(session)-\(order).pklg")

    // The records, and their times, as written.
    let stats = try Pktbench.run(["decode", path, "--stats", "--format", "json"])
    #expect(stats.status == 0, "\(stats.stderr)")
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout)) as? [String: Any])
    #expect(summary["records"] as? Int == writer.records.count)
    #expect(abs((summary["first_time"] as? Double ?? 0) - writer.records[0].time) < 1e-6)
    #expect(
      abs((summary["last_time"] as? Double ?? 0) - writer.records[writer.records.count - 1].time) < 1e-6)

    let decoded = try Pktbench.run(["decode", path, "--format", "ndjson", "--payload-hex"])
    #expect(decoded.status == 0, "\(decoded.stderr)")
    let records = try Self.ndjson(decoded)
    for record in records {
      let frame = try #require(record["frame"] as? Int)
      let time = try #require(record["time"] as? Double)
      #expect(abs(time - writer.records[frame - 1].time) < 1e-6, "frame \(frame) time")
    }
    // Text records, one each, with their words.
    for (index, written) in writer.records.enumerated() {
      guard let kind = Self.kinds[written.type] else { continue }
      let shown = records.filter { $0["frame"] as? Int == index + 1 }
      try #require(shown.count == 1, "frame \(index + 1): \(shown)")
      #expect(shown[0]["transport"] as? String == "packetlogger")
      #expect(shown[0]["message"] as? String == "packetlogger.\(kind)")
      #expect(shown[0]["error"] is NSNull)
    }

    guard let tshark = Pktbench.which("tshark") else { return }
    let rows = try Self.tshark(tshark, path)
    #expect(rows.count == writer.records.count, "tshark reads \(rows.count) records")
    for row in rows {
      #expect(abs(row.time - writer.records[row.frame - 1].time) < 1e-6, "tshark frame \(row.frame) time")
      let type = try #require(UInt8(row.fields["packetlogger.type"]!.dropFirst(2), radix: 16))
      #expect(type == writer.records[row.frame - 1].type, "tshark frame \(row.frame) type")
    }
    // The ATT values, in order: tshark's and ours.
    let sharkValues = rows.compactMap { row in
      Self.shownValue(row).map {
        "\(Int(row.fields["btatt.handle"]!.prefix(6).dropFirst(2), radix: 16) ?? -1) \($0)"
      }
    }
    let ourValues = records.compactMap { record -> String? in
      guard let handle = record["handle"] as? Int, let payload = record["payload"] as? String else {
        return nil
      }
      return "\(handle) \(payload.lowercased())"
    }
    #expect(!sharkValues.isEmpty)
    #expect(ourValues == sharkValues)
    // The texts: tshark's info or syslog message is ours.
    for row in rows {
      guard let kind = Self.kinds[UInt8(row.fields["packetlogger.type"]!.dropFirst(2), radix: 16)!] else {
        continue
      }
      let record = try #require(records.first { $0["frame"] as? Int == row.frame })
      let fields = try #require(record["fields"] as? [String: Any])
      let text =
        kind == "syslog" ? row.fields["packetlogger.syslog.message"]! : row.fields["packetlogger.info"]!
      // tshark shows a line feed as "\n"; ours is the text, trailing white space removed.
      #expect(
        fields["message"] as? String == text.replacingOccurrences(of: "\\n", with: ""), "frame \(row.frame)")
      if kind == "syslog" {
        #expect(fields["process"] as? String == row.fields["packetlogger.syslog.process"])
        #expect(fields["process_id"] as? Int == Int(row.fields["packetlogger.syslog.process_id"]!))
      }
    }
  }

  /// Down through L2CAP and ATT exactly as the btsnoop log of the same
  /// packets goes: the same messages, with the same fields and routing.
  @Test(arguments: sessions)
  func decodesAsTheBtsnoopLog(session: String) throws {
    let writer = try Self.session(session)
    let path = try WrittenCapture.write(writer.bytes(.little), name: "\(session)-as-btsnoop.pklg")
    func messages(_ file: String) throws -> [String] {
      let result = try Pktbench.run(["decode", file, "--format", "ndjson", "--payload-hex"])
      return try Self.ndjson(result).compactMap { record in
        guard record["transport"] as? String == "ble-att" else { return nil }
        var record = record
        record["frame"] = nil
        record["time"] = nil
        let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
      }
    }
    let fromBtsnoop = try messages("Captures/ble/\(session).btsnoop")
    #expect(fromBtsnoop.count > 10)
    #expect(try messages(path) == fromBtsnoop)
  }

  /// Big- and little-endian files of the same records decode alike, from a
  /// file and from a pipe.
  @Test func byteOrdersAndStandardInputAgree() throws {
    let writer = try Self.session("legctrl-session")
    let big = try WrittenCapture.write(writer.bytes(.big), name: "orders-big.pklg")
    let little = try WrittenCapture.write(writer.bytes(.little), name: "orders-little.pklg")
    let fromBig = try Pktbench.run(["decode", big, "--format", "ndjson"])
    let fromLittle = try Pktbench.run(["decode", little, "--format", "ndjson"])
    #expect(fromBig.status == 0)
    #expect(!fromBig.stdout.isEmpty)
    #expect(fromBig.stdout == fromLittle.stdout)
    for order in PacketLoggerWriter.ByteOrder.allCases {
      let piped = try Pktbench.run(["decode", "-", "--format", "ndjson"], stdin: writer.bytes(order))
      #expect(piped.status == 0, "\(piped.stderr)")
      #expect(piped.stdout == fromBig.stdout, "\(order) on stdin")
    }
    // pcap on stdin still goes to libpcap after its first bytes were looked at.
    let pcap = try [UInt8](Data(contentsOf: Pktbench.root.appendingPathComponent("Captures/rider-20hz.pcap")))
    let fromFile = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "--format", "ndjson"])
    let fromPipe = try Pktbench.run(["decode", "-", "--format", "ndjson"], stdin: pcap)
    #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
    #expect(fromPipe.stdout == fromFile.stdout)
  }

  /// The summary line and -V show the text records as what they are.
  @Test func textRecordsShowTheirWords() throws {
    let writer = PacketLoggerWriter(
      records: Self.textRecords.enumerated().map { index, record in
        .init(seconds: 1_795_320_000, microseconds: UInt32(index), type: record.type, data: record.data)
      })
    let path = try WrittenCapture.write(writer.bytes(.big), name: "texts.pklg")
    let lines = try Pktbench.run(["decode", path])
    #expect(lines.status == 0)
    #expect(
      lines.text.contains("  packetlogger  packetlogger.note  message=\"Recording started for HawkSight\"\n"))
    #expect(
      lines.text.contains(
        "  packetlogger  packetlogger.syslog  message=\"Connected to LegCtrl\" process_id=412 message_type=0 "
          + "process=\"bluetoothd\" sender=\"CoreBluetooth\" subsystem=\"com.apple.bluetooth\" "
          + "category=\"Server.LE.Connection\"\n"))
    #expect(lines.text.contains("  packetlogger  packetlogger.power  message=\"Power State: On\"\n"))
    #expect(!lines.text.contains("DAMAGED"))
    let tree = try Pktbench.run(["decode", path, "-V"])
    #expect(
      tree.text.contains(
        "  packetlogger.syslog\n    message: \"Connected to LegCtrl\"\n    process_id: 412\n"))
    // SCO is counted, LMP too, and neither is damage.
    let stats = try Pktbench.run(["decode", path, "--stats", "--format", "json"])
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout)) as? [String: Any])
    #expect(summary["records"] as? Int == Self.textRecords.count)
    let text = String(decoding: stats.stdout, as: UTF8.self)
    for counted in ["SCO data sent", "SCO data received", "LMP sent", "LMP received", "packetlogger.note"] {
      #expect(text.contains(counted), "\(counted) in \(text)")
    }
  }

  /// A file cut inside a record decodes up to it, then says where it
  /// stopped and what was expected, as tshark also stops there.
  @Test(arguments: PacketLoggerWriter.ByteOrder.allCases)
  func aCutFileSaysWhereItStopped(order: PacketLoggerWriter.ByteOrder) throws {
    let writer = try Self.session("legctrl-session")
    let whole = writer.bytes(order)
    // Cut 5 bytes into the data of record 40 (after its 12-byte header).
    let start = writer.records.prefix(39).reduce(0) { $0 + 13 + $1.data.count }
    let path = try WrittenCapture.write(Array(whole.prefix(start + 12 + 5)), name: "cut-\(order).pklg")
    let result = try Pktbench.run(["decode", path, "--format", "ndjson"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("after record 39 at byte offset \(start)"), "\(result.stderr)")
    let needed = writer.records[39].data.count + 1
    #expect(result.stderr.contains("its header says \(needed) bytes after the timestamp but only 5 remain"))
    let records = try Self.ndjson(result)
    #expect(records.allSatisfy { ($0["frame"] as? Int ?? 99) <= 39 })
    guard let tshark = Pktbench.which("tshark") else { return }
    let shark = try Pktbench.runProgram(tshark, ["-r", path, "-T", "fields", "-e", "frame.number"])
    #expect(shark.text.split(separator: "\n").count == 39)
    #expect(shark.stderr.contains("cut short in the middle of a packet"))
  }
}
