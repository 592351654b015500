import Foundation
import Testing

/// `analyze` over several files read as one capture (as mergecap merges
/// them), and the ends a pcapng file records: a capture split into pieces
/// tells the same device story as the whole; a stretch between files that
/// recorded their ends is said not captured, never a watchdog stop; an
/// end in dumpcap 4.0's microseconds is read as such.
@Suite struct AnalyzeManyFilesTests {
  /// Rider datagrams driving 40/40 at `times` (seconds), as pcapng with
  /// nanosecond stamps and, when given, an ISB with isb_starttime and
  /// isb_endtime; `micro` writes those two in microseconds, as dumpcap
  /// 4.0 does. Written by Python from the pcapng layout.
  static func write(times: [Double], start: Double?, end: Double?, micro: Bool = false) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-files-\(UUID().uuidString).pcapng").path
    let script = """
      import json, struct, sys
      def block(kind, body):
          body += b"\\0" * ((4 - len(body) % 4) % 4)
          return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
      out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
      out += block(1, struct.pack("<HHI", 1, 0, 65535) + struct.pack("<HHB3x", 9, 1, 9) + b"\\0" * 4)
      def frame(payload):
          udp = struct.pack(">HHHH", 40000, 5005, 8 + len(payload), 0) + payload
          ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                           bytes([10, 0, 0, 2]), bytes([10, 0, 0, 7])) + udp
          return b"\\x00\\x11\\x22\\x33\\x44\\x55\\x66\\x77\\x88\\x99\\xaa\\xbb\\x08\\x00" + ip
      for t in json.loads(sys.argv[2]):
          data = frame(b'{"left":40,"right":40,"timestamp":%.3f}' % t)
          ns = int(round(t * 1e9))
          out += block(6, struct.pack("<IIIII", 0, ns >> 32, ns & 0xFFFFFFFF, len(data), len(data)) + data)
      start, end, scale = json.loads(sys.argv[3]), json.loads(sys.argv[4]), (1e6 if sys.argv[5] == "1" else 1e9)
      if start is not None or end is not None:
          opts = b""
          for code, value in ((2, start), (3, end)):
              if value is not None:
                  ticks = int(round(value * scale))
                  opts += struct.pack("<HHII", code, 8, ticks >> 32, ticks & 0xFFFFFFFF)
          opts += b"\\0" * 4
          out += block(5, struct.pack("<III", 0, 0, 0) + opts)
      open(sys.argv[1], "wb").write(out)
      """
    func json(_ value: Double?) -> String { value.map { String($0) } ?? "null" }
    let list = "[" + times.map { String($0) }.joined(separator: ",") + "]"
    let result = try Pktbench.runProgram(
      "/usr/bin/env", ["python3", "-c", script, path, list, json(start), json(end), micro ? "1" : "0"])
    #expect(result.status == 0, "\(result.stderr)")
    return path
  }

  static func driving(from start: Double, seconds: Double) -> [Double] {
    (0..<Int(seconds * 20)).map { start + Double($0) * 0.05 }
  }

  static func timelines(_ arguments: [String]) throws -> String {
    let result = try Pktbench.run(["analyze"] + arguments + ["--timeline"])
    #expect(result.status == 0, "\(result.stderr)")
    return result.text
  }

  // MARK: Pieces of one capture

  static let recordings = [
    ("rider/two-apps.pcap", [String]()), ("legctrl/restart.pcap", ["--decode-as", "udp:29000=legctrl"]),
    ("falconeye/overlap-close-old.pcap", []), ("legctrl/deadman.pcap", ["--decode-as", "udp:29000=legctrl"]),
  ]

  /// editcap -c cuts a capture into files of N records; read together
  /// (named in any order, or as their directory), they give the same
  /// device events as the whole, line for line.
  @Test(
    .enabled(if: DeviceTruth.isPresent && Pktbench.which("editcap") != nil, "needs ../shared and editcap"),
    arguments: recordings)
  func threePiecesTellTheWholeStory(recording: String, extra: [String]) throws {
    let whole = DeviceTruth.path(recording)
    let counted = try Pktbench.runProgram("/usr/bin/env", ["capinfos", "-T", "-r", "-c", whole])
    let records = try #require(
      Int(counted.text.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-split-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cut = try Pktbench.runProgram(
      "/usr/bin/env",
      ["editcap", "-c", String((records + 2) / 3), whole, folder.appendingPathComponent("piece.pcap").path])
    #expect(cut.status == 0, "\(cut.stderr)")
    let pieces = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      .map { folder.appendingPathComponent($0).path }
    #expect(pieces.count == 3)
    let expected = try Self.timelines([whole] + extra)
    #expect(!expected.isEmpty)
    #expect(try Self.timelines(pieces.reversed() + extra) == expected, "\(recording): pieces in reverse")
    #expect(try Self.timelines([folder.path] + extra) == expected, "\(recording): the directory")
  }

  /// Frames are numbered in merged order, as mergecap numbers them.
  @Test(.enabled(if: Pktbench.which("mergecap") != nil && Pktbench.which("tshark") != nil))
  func framesAreMergecapsFrames() throws {
    let first = try Self.write(times: [10.0, 10.2, 10.4, 10.6], start: nil, end: nil)
    let second = try Self.write(times: [10.1, 10.3, 10.5], start: nil, end: nil)
    let merged = Live.temporaryPath(".pcapng")
    defer { for path in [first, second, merged] { try? FileManager.default.removeItem(atPath: path) } }
    #expect(try Pktbench.runProgram("/usr/bin/env", ["mergecap", "-w", merged, first, second]).status == 0)
    let ours = try Self.timelines([first, second])
    #expect(ours == (try Self.timelines([merged])))
    let tshark = try Pktbench.runProgram(
      "/usr/bin/env",
      ["tshark", "-r", merged, "-T", "fields", "-e", "frame.number", "-e", "frame.time_epoch"])
    let frames = ours.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frame"] as? Int
    }
    #expect(frames == Array(1...7))
    #expect(tshark.text.split(separator: "\n").count == 7)
  }

  // MARK: A stretch no file covered

  /// Two files that record their ends, ten seconds apart, the robot driving
  /// in both: the stretch between is not captured, and the robot's
  /// watchdog is not said to have stopped it for certain.
  @Test func aGapBetweenFilesIsNotAWatchdogStop() throws {
    let first = try Self.write(times: Self.driving(from: 1000, seconds: 1), start: 999.9, end: 1001.0)
    let second = try Self.write(times: Self.driving(from: 1010, seconds: 1), start: 1010.0, end: 1013)
    defer { for path in [first, second] { try? FileManager.default.removeItem(atPath: path) } }
    let report = try Analyze.run(first, [second])
    let gap = try #require(report.findings("capture.gap").first)
    #expect((gap["text"] as? String ?? "").hasPrefix("not captured from +1.000 s to +10.000 s"))
    #expect(abs((gap["duration_s"] as? Double ?? 0) - 9.0) < 1e-6)
    #expect(report.findings("rider.watchdog-gap").isEmpty, "\(report.findings("rider.watchdog-gap"))")
    let stops = try DeviceTruth.timelineOf(first, [second]).filter { $0.name == "watchdog_stop" }
    // One the gap may have hidden, and the certain one after the second file's stream (its end is recorded).
    #expect(stops.map(\.certain) == [false, true])
    #expect((stops.first?.time ?? 0) > 1001.0 && (stops.first?.time ?? 0) < 1010.0)

    // The same traffic in one file: a silence the capture saw, a certain stop.
    let whole = try Self.write(
      times: Self.driving(from: 1000, seconds: 1) + Self.driving(from: 1010, seconds: 1), start: 999.9,
      end: 1013)
    defer { try? FileManager.default.removeItem(atPath: whole) }
    #expect(
      try DeviceTruth.timelineOf(whole).filter { $0.name == "watchdog_stop" }.map(\.certain) == [true, true])
  }

  // MARK: Recorded ends

  /// The shipped capture was made by dumpcap 4.0: its ISB's times are in
  /// microseconds though its interface says nanoseconds. Read as such,
  /// the end is just after the last record (Python reads the block here).
  @Test func dumpcapsMicrosecondEndIsReadAsMicroseconds() throws {
    let path = Pktbench.root.appendingPathComponent("Captures/field-session.pcapng").path
    let script = """
      import struct, sys
      data = open(sys.argv[1], "rb").read()
      length = struct.unpack("<I", data[-4:])[0]
      block = data[-length:]
      assert struct.unpack("<I", block[:4])[0] == 5
      at, found = 20, {}
      while at + 4 <= length - 4:
          code, size = struct.unpack("<HH", block[at:at + 4])
          if code == 0: break
          if code in (2, 3): found[code] = struct.unpack("<II", block[at + 4:at + 12])
          at += 4 + (size + 3) // 4 * 4
      for code in (2, 3):
          high, low = found[code]
          print(((high << 32) | low) / 1e6)
      """
    let read = try Pktbench.runProgram("/usr/bin/env", ["python3", "-c", script, path])
    let times = read.text.split(separator: "\n").compactMap { Double($0) }
    #expect(times.count == 2, "\(read.stderr)")
    let report = try Analyze.run(path)
    let last = try #require(report.json["last_time"] as? Double)
    let first = try #require(report.json["first_time"] as? Double)
    let end = try #require(report.json["recorded_end"] as? Double)
    #expect(abs(end - (times.last ?? 0)) < 1e-6)
    #expect(end >= last && end - last < 5)
    #expect((times.first ?? .infinity) <= first)
    let notes = report.findings("capture.recorded-times")
    #expect(notes.count == 2)
    #expect(notes.allSatisfy { ($0["text"] as? String ?? "").contains("read in microseconds instead") })
    #expect(notes.allSatisfy { $0["severity"] as? String == "note" })
    let text = try Pktbench.run(["analyze", path]).text
    #expect(
      text.contains("the file records its end at \(String(format: "%.6f", end))"), "\(text.prefix(300))")
  }

  /// A synthetic dumpcap-style file: the robot stops driving 3 s before the
  /// (microsecond) recorded end, so its watchdog stop is certain.
  @Test func aMicrosecondEndStillMakesTheStopCertain() throws {
    let times = Self.driving(from: 1000, seconds: 1)
    let path = try Self.write(times: times, start: 999.5, end: (times.last ?? 0) + 3, micro: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    #expect(abs((report.json["recorded_end"] as? Double ?? 0) - ((times.last ?? 0) + 3)) < 1e-5)
    #expect(
      report.findings("rider.ended-moving").first.map { Analyze.details($0)["certain"] as? Bool } == true)
  }

  /// An end that fits in neither unit (days after the last record) is no
  /// end: ignored with a note, and the stream may have gone on.
  @Test func anImpossibleEndIsIgnoredWithANote() throws {
    let times = Self.driving(from: 1000, seconds: 1)
    let path = try Self.write(times: times, start: nil, end: (times.last ?? 0) + 10 * 86_400)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    #expect(report.json["recorded_end"] is NSNull)
    let note = try #require(report.findings("capture.recorded-times").first)
    #expect((note["text"] as? String ?? "").hasSuffix("in either unit: ignored"))
    #expect(report.findings("rider.ended-moving").isEmpty)
    #expect(try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }.map(\.certain) == [false])
  }
}
