import Foundation
import Testing

/// Decoding input that is still arriving (`tcpdump -U -w - | pktbench decode
/// - -l`), and `decode --jobs`, whose file in turn streams as it decodes.
/// Each test sends the first records of a capture, waits (up to a bound)
/// for their messages to come out, and only then sends the rest: output
/// held until the input ended never arrives, and the test fails.
@Suite struct StreamingDecodeTests {
  /// Runs pktbench with `first` on stdin, waits until its stdout holds
  /// `wanted` lines (at most `bound` seconds), then sends `rest` and closes
  /// stdin. Returns the lines out before `rest` was sent, all of stdout and
  /// the exit status.
  static func run(
    _ arguments: [String], first: [UInt8], rest: [UInt8], wanted: Int, bound: TimeInterval = 60
  ) throws -> (before: Int, stdout: String, status: Int32) {
    let process = try LiveProcess(arguments, standardInput: true)
    process.input?.write(Data(first))
    _ = process.waitForLines(wanted, timeout: bound)
    let before = process.stdout.split(separator: "\n").count
    process.input?.write(Data(rest))
    try process.input?.close()
    let status = process.finish(timeout: bound)
    return (before, process.stdout, status)
  }

  /// A pcap file cut after its `records`th record (24-byte file header,
  /// 16-byte record headers with the captured length at offset 8).
  static func split(_ path: String, afterRecords records: Int) throws -> (first: [UInt8], rest: [UInt8]) {
    let bytes = [UInt8](try Data(contentsOf: Pktbench.root.appendingPathComponent(path)))
    var offset = 24
    for _ in 0..<records {
      let length = bytes[offset + 8..<offset + 12].reversed().reduce(0) { $0 << 8 | Int($1) }
      offset += 16 + length
    }
    return (Array(bytes[..<offset]), Array(bytes[offset...]))
  }

  @Test func lineBufferedDecodeShowsEachMessageAsItArrives() throws {
    let (first, rest) = try Self.split("Captures/rider-20hz.pcap", afterRecords: 10)
    let result = try Self.run(["decode", "-", "-l"], first: first, rest: rest, wanted: 10)
    #expect(result.before == 10)
    #expect(result.status == 0)
    // The same lines as the file decoded in one go.
    let whole = try Pktbench.run(["decode", "Captures/rider-20hz.pcap"])
    #expect(result.stdout == whole.text)
    #expect(result.stdout.split(separator: "\n").count == 64)
  }

  @Test func onATerminalEachMessageShowsAsItArrivesWithoutAFlag() throws {
    // `script` gives pktbench a pseudo-terminal as stdout; the capture comes
    // through a FIFO, written a part at a time.
    guard let script = Pktbench.which("script") else { return }
    let fifo = NSTemporaryDirectory() + "/pktbench-tty-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).pcap"
    try #require(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    let (first, rest) = try Self.split("Captures/rider-20hz.pcap", afterRecords: 10)
    let process = try LiveProcess(
      // -onlcr: lines end in "\n", not the terminal's "\r\n".
      ["-qec", "stty -onlcr; \(Pktbench.binary.path) decode - < \(fifo)", "/dev/null"], program: script)
    // Opening blocks until the shell opens the FIFO to read.
    let writer = try #require(FileHandle(forWritingAtPath: fifo))
    writer.write(Data(first))
    _ = process.waitForLines(10, timeout: 60)
    let before = process.stdout.split(separator: "\n").count
    writer.write(Data(rest))
    try writer.close()
    #expect(process.finish(timeout: 60) == 0)
    #expect(before == 10)
    #expect(process.stdout.split(separator: "\n").count == 64)
  }

  @Test func theFileWhoseTurnItIsStreamsWhileTheNextDecodes() throws {
    let (first, rest) = try Self.split("Captures/rider-20hz.pcap", afterRecords: 10)
    let result = try Self.run(
      ["decode", "-", "Captures/legctrl-udp.pcap", "--jobs", "2", "--format", "ndjson", "-l"],
      first: first, rest: rest, wanted: 10)
    #expect(result.before == 10)
    #expect(result.status == 0)
    let serial = try Pktbench.run(
      ["decode", "Captures/rider-20hz.pcap", "Captures/legctrl-udp.pcap", "--format", "ndjson"])
    // Each line names its file; stdin is "-".
    #expect(result.stdout.contains(#"{"file":"-","frame":1,"#))
    #expect(
      result.stdout
        == serial.text.replacingOccurrences(
          of: #"{"file":"Captures/rider-20hz.pcap","#, with: #"{"file":"-","#))
  }

  @Test func jobsLeaveNoTemporaryFileBehind() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-jobs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = [
      "Captures/field-session.pcapng", "Captures/rider-20hz.pcap", "Captures/legctrl-udp.pcap",
      "Captures/rallie-udp.pcap", "Captures/falconeye-ws.pcap",
    ]
    let serial = try Pktbench.run(["decode"] + files + ["-V"])
    let parallel = try Pktbench.run(
      ["decode"] + files + ["-V", "--jobs", "3"], environment: ["TMPDIR": directory.path])
    #expect(parallel.status == serial.status)
    #expect(parallel.stdout == serial.stdout)
    #expect(serial.stdout.count > 100_000)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
  }

  @Test func jobsWithoutRoomForTemporaryFilesDecodeOneFileAtATime() throws {
    let files = ["Captures/rider-20hz.pcap", "Captures/legctrl-udp.pcap"]
    let serial = try Pktbench.run(["decode"] + files)
    let result = try Pktbench.run(
      ["decode"] + files + ["--jobs", "2"], environment: ["TMPDIR": "/nonexistent-directory-for-spools"])
    #expect(result.status == 0)
    #expect(result.stdout == serial.stdout)
    #expect(
      result.stderr.contains("--jobs: cannot make temporary files in /nonexistent-directory-for-spools"))
    #expect(result.stderr.contains("decoding one file at a time"))
  }
}
