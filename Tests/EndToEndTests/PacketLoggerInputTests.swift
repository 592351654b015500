import Foundation
import Testing

/// PacketLogger files as an analyst hands them to pktbench: to `analyze`,
/// piped in, with a BPF filter by mistake, and damaged (a header whose
/// length is zero or huge, a file cut inside a header), each as tshark
/// reads the same bytes.
@Suite struct PacketLoggerInputTests {
  /// The shipped LegCtrl session as PacketLogger would have logged it, no
  /// records added: frame numbers are the btsnoop log's.
  static func session() throws -> PacketLoggerWriter {
    let btsnoop = try [UInt8](
      Data(contentsOf: Pktbench.root.appendingPathComponent("Captures/ble/legctrl-session.btsnoop")))
    return PacketLoggerWriter(records: PacketLoggerWriter.fromBtsnoop(btsnoop))
  }

  /// Byte offset of record `index` (0-based) in a file of these records.
  static func offset(of index: Int, in writer: PacketLoggerWriter) -> Int {
    writer.records.prefix(index).reduce(0) { $0 + 13 + $1.data.count }
  }

  static func json(_ result: Pktbench.Result) throws -> [String: Any] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any], "\(result.stderr)")
  }

  /// `analyze` of the PacketLogger file, in either byte order, from a file
  /// or a pipe, is the report on the btsnoop log of the same packets (the
  /// file's name aside), and counts the records tshark counts.
  @Test(arguments: PacketLoggerWriter.ByteOrder.allCases)
  func analyzeReportsAsOnTheBtsnoopLog(order: PacketLoggerWriter.ByteOrder) throws {
    let writer = try Self.session()
    let bytes = writer.bytes(order)
    let path = try WrittenCapture.write(bytes, name: "analyze-\(order).pklg")
    var fromBtsnoop = try Self.json(
      try Pktbench.run(["analyze", "Captures/ble/legctrl-session.btsnoop", "--format", "json"]))
    fromBtsnoop["file"] = nil
    #expect(fromBtsnoop["verdict"] as? String == "error")
    #expect((fromBtsnoop["flows"] as? [Any])?.count == 1)
    for (source, result) in [
      ("file", try Pktbench.run(["analyze", path, "--format", "json"])),
      ("stdin", try Pktbench.run(["analyze", "-", "--format", "json"], stdin: bytes)),
    ] {
      #expect(result.status == 0, "\(source): \(result.stderr)")
      var report = try Self.json(result)
      #expect(report["records"] as? Int == writer.records.count, "\(source)")
      report["file"] = nil
      #expect(NSDictionary(dictionary: report) == NSDictionary(dictionary: fromBtsnoop), "\(source)")
    }
    guard let tshark = Pktbench.which("tshark") else { return }
    let shark = try Pktbench.runProgram(tshark, ["-r", path, "-T", "fields", "-e", "frame.number"])
    #expect(shark.text.split(separator: "\n").count == writer.records.count)
  }

  /// A BPF filter has no packets to run on in a PacketLogger file: a usage
  /// error in one line, before anything is decoded.
  @Test func aBPFFilterIsAUsageError() throws {
    let bytes = try Self.session().bytes(.big)
    let path = try WrittenCapture.write(bytes, name: "filter.pklg")
    for result in [
      try Pktbench.run(["decode", path, "--filter", "udp"]),
      try Pktbench.run(["decode", "-", "--filter", "udp"], stdin: bytes),
    ] {
      #expect(result.status == 64)
      #expect(result.stdout.isEmpty)
      #expect(
        result.stderr.hasSuffix("--filter (BPF) applies to pcap and pcapng files, not PacketLogger files\n"))
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
  }

  /// The ways a record header can be damaged, at record 50: each decodes
  /// the 49 records before it, then says at which byte it stopped and why,
  /// from a file and from a pipe; tshark also stops after 49 and says why.
  static let damages: [(name: String, sharkSays: String, weSay: String)] = [
    (
      "zero-length", "record length 0 is too small",
      "has length 0, less than the 8 bytes of its own timestamp: the record header is damaged"
    ),
    (
      "seven-length", "record length 7 is too small",
      "has length 7, less than the 8 bytes of its own timestamp: the record header is damaged"
    ),
    (
      "huge-length", "File has 16777207-byte packet, bigger than maximum of 262144",
      "claims 16777207 bytes, more than the 262144 a PacketLogger record holds: the record header is "
        + "damaged"
    ),
    ("cut-header", "cut short in the middle of a packet", "is cut off inside its header: 7 of 12 bytes"),
  ]

  static func damaged(_ name: String, _ whole: [UInt8], at start: Int, order: PacketLoggerWriter.ByteOrder)
    -> [UInt8]
  {
    func length(_ value: UInt32) -> [UInt8] {
      let big = [
        UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
      ]
      return order == .big ? big : big.reversed()
    }
    var bytes = whole
    switch name {
    case "zero-length": bytes.replaceSubrange(start..<start + 4, with: length(0))
    case "seven-length": bytes.replaceSubrange(start..<start + 4, with: length(7))
    case "huge-length": bytes.replaceSubrange(start..<start + 4, with: length(0x00FF_FFFF))
    default: bytes = Array(bytes.prefix(start + 7))
    }
    return bytes
  }

  @Test(arguments: damages.map(\.name), PacketLoggerWriter.ByteOrder.allCases)
  func aDamagedHeaderEndsTheReadWhereItIs(damage: String, order: PacketLoggerWriter.ByteOrder) throws {
    let writer = try Self.session()
    let start = Self.offset(of: 49, in: writer)
    let bytes = Self.damaged(damage, writer.bytes(order), at: start, order: order)
    let path = try WrittenCapture.write(bytes, name: "\(damage)-\(order).pklg")
    let expected = try #require(Self.damages.first { $0.name == damage })
    for (name, result) in [
      (path, try Pktbench.run(["decode", path, "--format", "ndjson"])),
      ("-", try Pktbench.run(["decode", "-", "--format", "ndjson"], stdin: bytes)),
    ] {
      #expect(result.status == 1, "\(name): \(result.stderr)")
      #expect(
        result.stderr
          == "pktbench: \(name): the file is damaged; decoded up to it, stopped after record 49 at byte offset "
          + "\(start): record 50 at byte \(start) \(expected.weSay)\n",
        "\(name)")
      let frames = result.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frame"] as? Int
      }
      #expect(frames.last == 49, "\(name)")
      #expect(frames.allSatisfy { $0 <= 49 })
    }
    // --stats json says it too.
    let stats = try Self.json(try Pktbench.run(["decode", path, "--stats", "--format", "json"]))
    #expect(stats["records"] as? Int == 49)
    #expect(
      stats["stopped_early"] as? String
        == "after record 49 at byte offset \(start): record 50 at byte \(start) \(expected.weSay)")

    guard let tshark = Pktbench.which("tshark") else { return }
    let shark = try Pktbench.runProgram(tshark, ["-r", path, "-T", "fields", "-e", "frame.number"])
    #expect(shark.text.split(separator: "\n").count == 49)
    #expect(shark.stderr.contains(expected.sharkSays), "\(shark.stderr)")
  }
}

extension PacketLoggerInputTests {
  /// Records as long as a PacketLogger record may be (262,144 bytes after
  /// the timestamp, Wireshark's limit) are read whole, one after another
  /// through the reader's window; one byte more is damage, where tshark
  /// also stops. The first five records are short: Wireshark tells the
  /// format by lengths under 65,536 in up to five records (pktbench by the
  /// first).
  @Test(arguments: PacketLoggerWriter.ByteOrder.allCases)
  func theLongestRecordsAreReadAndOneByteMoreIsNot(order: PacketLoggerWriter.ByteOrder) throws {
    func note(_ length: Int, _ letter: Character) -> PacketLoggerWriter.Record {
      // `length` counts the type byte, as the record's length field does.
      .init(
        seconds: 1_795_320_000, microseconds: UInt32(length % 1000), type: 0xFC,
        data: [UInt8](repeating: letter.asciiValue!, count: length - 2) + [0])
    }
    let longest = 262_144
    var writer = PacketLoggerWriter(
      records: (0..<5).map { _ in note(13, "a") } + [
        note(100_000, "b"), note(longest, "c"), note(longest, "d"),
      ])
    let path = try WrittenCapture.write(writer.bytes(order), name: "longest-\(order).pklg")
    let result = try Pktbench.run(["decode", path, "--format", "ndjson"])
    #expect(result.status == 0, "\(result.stderr)")
    let messages = result.text.split(separator: "\n").compactMap {
      let record = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      return (record?["fields"] as? [String: Any])?["message"] as? String
    }
    #expect(messages.map(\.count) == [11, 11, 11, 11, 11, 100_000 - 2, longest - 2, longest - 2])
    #expect(messages.map { $0.first } == ["a", "a", "a", "a", "a", "b", "c", "d"])

    writer.records.append(note(longest + 1, "e"))
    let start = writer.records.prefix(8).reduce(0) { $0 + 13 + $1.data.count }
    let tooLong = try WrittenCapture.write(writer.bytes(order), name: "too-long-\(order).pklg")
    let refused = try Pktbench.run(["decode", tooLong, "--stats", "--format", "json"])
    #expect(refused.status == 1)
    let stats = try Self.json(refused)
    #expect(stats["records"] as? Int == 8)
    #expect(
      stats["stopped_early"] as? String
        == "after record 8 at byte offset \(start): record 9 at byte \(start) claims \(longest + 1) bytes, "
        + "more than the \(longest) a PacketLogger record holds: the record header is damaged")

    guard let tshark = Pktbench.which("tshark") else { return }
    let whole = try Pktbench.runProgram(tshark, ["-r", path, "-T", "fields", "-e", "frame.len"])
    #expect(
      whole.text.split(separator: "\n") == [
        "13", "13", "13", "13", "13", "100000", "\(longest)", "\(longest)",
      ])
    let cut = try Pktbench.runProgram(tshark, ["-r", tooLong, "-T", "fields", "-e", "frame.number"])
    #expect(cut.text.split(separator: "\n").count == 8)
    #expect(cut.stderr.contains("File has \(longest + 1)-byte packet, bigger than maximum of \(longest)"))
  }
}

extension PacketLoggerInputTests {
  /// A PacketLogger log piped in that pauses (still being written): the
  /// records sent so far are decoded while the pipe waits, and Ctrl-C ends
  /// the read with all of them counted, as for pcap (exit 130).
  @Test(arguments: [["decode", "-", "--stats", "--format", "json"], ["analyze", "-", "--format", "json"]])
  func ctrlCOnAnIdlePipeKeepsEveryRecordSent(arguments: [String]) throws {
    let writer = try Self.session()
    let run = try IdlePipeRun.run(arguments, sending: Data(writer.bytes(.little)))
    #expect(run.wasWaiting)
    let (stderr, output) = (run.stderr, run.stdout)
    #expect(run.status == 130, "\(arguments): \(stderr)")
    #expect(stderr.contains("interrupted by SIGINT"), "\(stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(stderr)")
    #expect(report["records"] as? Int == writer.records.count)
    #expect(
      (report["stopped_early"] as? String)?.contains("SIGINT") == true, "\(report["stopped_early"] ?? "")")
  }
}

extension PacketLoggerInputTests {
  /// `-w` copies records as pcapng, which has no link type for a
  /// PacketLogger record: one sentence and the usage status, nothing written.
  @Test func writingAPacketLoggerFileOutIsRefusedInOneLine() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pklg-w-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("session.pklg")
    let output = directory.appendingPathComponent("out.pcapng")
    try Data(try Self.session().bytes(.big)).write(to: input)
    let result = try Pktbench.run(["decode", input.path, "-Y", "legctrl", "-w", output.path])
    #expect(result.status == 64)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("PacketLogger"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: output.path))
  }
}
