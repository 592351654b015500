import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 26, the command line's part: output that cannot be written, a
/// closed pipe, Ctrl-C, a closed or wrong stdin, captures piped in, wire
/// bytes on a terminal, and exit statuses. Each runs the built binary on
/// real files, pipes, signals and /dev/full.
@Suite struct RobustnessEndToEndTests {
  // MARK: Helpers

  struct Outcome {
    var status: Int32
    var reason: Process.TerminationReason
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
  }

  /// Runs pktbench with stdout and stdin as given (files, /dev/full);
  /// stdout is read from a pipe when `stdout` is nil.
  static func run(
    _ arguments: [String], stdout: FileHandle? = nil, stdin: FileHandle? = nil,
    environment: [String: String] = [:]
  ) throws -> Outcome {
    let process = Process()
    process.executableURL = Pktbench.binary
    process.arguments = arguments
    process.currentDirectoryURL = Pktbench.root
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = stdout ?? out
    process.standardError = err
    process.standardInput = stdin ?? FileHandle.nullDevice
    try process.run()
    if stdout != nil { try out.fileHandleForWriting.close() }
    nonisolated(unsafe) var outData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      outData = out.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Outcome(
      status: process.terminationStatus, reason: process.terminationReason, stdout: [UInt8](outData),
      stderr: String(decoding: errData, as: UTF8.self))
  }

  /// Runs `script` with /bin/sh, "$0" being pktbench (for redirections
  /// Process cannot make: a closed stdin).
  static func shell(_ script: String) throws -> Pktbench.Result {
    try Pktbench.runProgram("/bin/sh", ["-c", script, Pktbench.binary.path])
  }

  /// A Rider capture of `count` datagrams written by Benchmarks/generate.py
  /// (struct packing, independent of pktbench), made once per run.
  static func riderCapture(_ count: Int) throws -> String {
    let path = NSTemporaryDirectory() + "/pktbench-robustness-rider-\(count)-\(getpid()).pcap"
    if FileManager.default.fileExists(atPath: path) { return path }
    let python = try #require(Pktbench.which("python3"), "python3 is needed to generate captures")
    let partial = path + ".\(UInt32.random(in: 0...UInt32.max))"
    let made = try Pktbench.runProgram(
      python,
      [Pktbench.root.appendingPathComponent("Benchmarks/generate.py").path, "rider", "\(count)", partial])
    #expect(made.status == 0, "\(made.stderr)")
    // Two tests may make it at once: the first rename wins, both are whole.
    _ = rename(partial, path)
    unlink(partial)
    return path
  }

  static var devFull: FileHandle? { FileHandle(forWritingAtPath: "/dev/full") }

  /// Sends `signal`, then waits up to 30 s for the process to end; one
  /// that does not is killed (and the test fails), so a pktbench that
  /// ignores the signal cannot hang the suite.
  static func interrupt(_ process: Process, with signal: Int32) {
    kill(process.processIdentifier, signal)
    waitOrKill(process)
  }

  static func waitOrKill(_ process: Process) {
    let end = Date().addingTimeInterval(30)
    while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
    if process.isRunning {
      Issue.record("still running 30 s after the signal; killed")
      kill(process.processIdentifier, SIGKILL)
    }
  }

  /// The lines of `text` that are JSON objects, and the ones that are not.
  static func ndjson(_ text: String) -> (objects: Int, broken: [String]) {
    var objects = 0
    var broken: [String] = []
    for line in text.split(separator: "\n") {
      if (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any] {
        objects += 1
      } else {
        broken.append(String(line.prefix(200)))
      }
    }
    return (objects, broken)
  }

  // MARK: 1. Write errors and closed pipes

  /// /dev/full refuses every write with ENOSPC: the output is lost, so the
  /// status must not be 0 (EX_IOERR, 74), and stderr says why in one line.
  @Test(arguments: [
    ["decode", "Captures/field-session.pcapng"],
    ["decode", "Captures/field-session.pcapng", "--format", "ndjson"],
    ["decode", "Captures/field-session.pcapng", "--stats"],
    ["decode", "Captures/rider-20hz.pcap", "Captures/legctrl-udp.pcap", "--jobs", "2"],
    ["craft", "arm"],
    ["codecs"],
    ["analyze", "Captures/field-session.pcapng"],
    ["analyze", "Captures/field-session.pcapng", "--format", "json"],
    ["decode", "--help"],
  ])
  func aFullOutputIsAnError(arguments: [String]) throws {
    let full = try #require(Self.devFull)
    let outcome = try Self.run(arguments, stdout: full)
    #expect(outcome.status == 74, "\(arguments): \(outcome.stderr)")
    let lines = outcome.stderr.split(separator: "\n")
    #expect(lines == ["pktbench: cannot write the output: No space left on device"], "\(arguments)")
  }

  /// A reader that goes away (`| head -1`) ends pktbench by SIGPIPE, as it
  /// ends tcpdump: at once and without a word, not after decoding the rest.
  @Test(arguments: [["-V"], ["--format", "ndjson"], ["--jobs", "2", "DUP"]])
  func aClosedPipeEndsQuietly(options: [String]) throws {
    let capture = try Self.riderCapture(100_000)
    let arguments = ["decode", capture] + options.map { $0 == "DUP" ? capture : $0 }
    let process = Process()
    process.executableURL = Pktbench.binary
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let first = out.fileHandleForReading.availableData
    #expect(!first.isEmpty)
    try out.fileHandleForReading.close()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal, "\(arguments)")
    #expect(process.terminationStatus == SIGPIPE, "\(arguments)")
    #expect(errData.isEmpty, "\(String(decoding: errData, as: UTF8.self))")
  }

  // MARK: 2. Ctrl-C

  /// SIGINT while pktbench is mid-capture (its output pipe full, so it
  /// cannot have finished): the output ends at a record boundary, a JSON
  /// array is closed, and the status is 130.
  @Test(arguments: [("json", SIGINT), ("ndjson", SIGTERM), ("text", SIGINT)])
  func aSignalStopsAtARecordBoundary(format: String, signal: Int32) throws {
    let capture = try Self.riderCapture(100_000)
    let process = Process()
    process.executableURL = Pktbench.binary
    process.arguments = ["decode", capture, "--format", format] + (format == "text" ? ["-V"] : [])
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read one chunk, then nothing: the pipe fills and pktbench waits in
    // write, mid-capture, whatever its speed.
    var output = out.fileHandleForReading.availableData
    Thread.sleep(forTimeInterval: 0.3)
    // The signal lands while pktbench waits in write; then the rest drains.
    kill(process.processIdentifier, signal)
    nonisolated(unsafe) var rest = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      rest = out.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    Self.waitOrKill(process)
    group.wait()
    output += rest
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self)
    let stderr = String(decoding: errData, as: UTF8.self)
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == 130, "\(stderr)")
    let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
    #expect(stderr.contains("interrupted by \(name)"), "\(stderr)")
    switch format {
    case "json":
      let array = try JSONSerialization.jsonObject(with: output) as? [[String: Any]]
      let records = try #require(array, "not one JSON array: …\(text.suffix(200))")
      #expect(records.count > 0 && records.count < 100_000)
      #expect(records.map { $0["frame"] as? Int } == (1...records.count).map { $0 })
    case "ndjson":
      let (objects, broken) = Self.ndjson(text)
      #expect(broken.isEmpty, "\(broken)")
      #expect(objects > 0 && objects < 100_000)
    default:
      // -V: each message's block ends with an empty line.
      #expect(text.hasSuffix("\n\n"), "…\(text.suffix(200))")
    }
  }

  /// A capture piped in that pauses (tcpdump -w - on a quiet link): SIGINT
  /// interrupts the waiting read; what was read is written out, and
  /// `--stats` and `analyze` report it.
  @Test(arguments: [
    ["decode", "-", "--format", "json"], ["decode", "-", "--stats"], ["analyze", "-"],
    ["analyze", "-", "--format", "json"],
  ])
  func aSignalStopsAReadFromAnIdlePipe(arguments: [String]) throws {
    let capture = try Data(contentsOf: Pktbench.root.appendingPathComponent("Captures/rider-20hz.pcap"))
    let run = try IdlePipeRun.run(arguments, sending: capture)
    #expect(run.wasWaiting)
    let (stderr, output, text) = (run.stderr, run.stdout, run.text)
    #expect(run.status == 130, "\(arguments): \(stderr)")
    #expect(stderr.contains("interrupted by SIGINT"), "\(stderr)")
    // Captures/expected/rider-20hz.json: the generator wrote 64 records.
    if arguments.contains("json") && arguments[0] == "decode" {
      let records = try JSONSerialization.jsonObject(with: output) as? [Any]
      #expect(records?.count == 64, "…\(text.suffix(200))")
    } else if arguments.contains("--stats") {
      #expect(text.contains("-: 64 records"), "\(text)")
      #expect(text.contains("interrupted by SIGINT"), "\(text)")
    } else if arguments.contains("json") {
      let report = try JSONSerialization.jsonObject(with: output) as? [String: Any]
      #expect(report?["records"] as? Int == 64)
      #expect((report?["stopped_early"] as? String)?.contains("SIGINT") == true)
    } else {
      #expect(text.contains("-: 64 records"), "\(text)")
      #expect(text.contains("summary: 1 device, 1 flow"), "\(text)")
    }
  }

  // MARK: 3. stdin that cannot be read, or is too long

  @Test func aClosedStandardInputIsOneLine() throws {
    let result = try Self.shell(#"exec "$0" decode --codec rider - <&-"#)
    #expect(result.status == 2)
    #expect(result.stderr == "pktbench: standard input is closed: give a file, or pipe a capture in\n")
    let capture = try Self.shell(#"exec "$0" decode - <&-"#)
    #expect(capture.status == 2)
    #expect(capture.stderr.split(separator: "\n").count == 1, "\(capture.stderr)")
  }

  @Test func aDirectoryOnStandardInputIsOneLine() throws {
    for command in [#"exec "$0" decode --codec rider - < /"#, #"exec "$0" analyze - < /"#] {
      let result = try Self.shell(command)
      #expect(result.status == 2, "\(command)")
      #expect(result.stderr.contains("standard input is a directory"), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
  }

  /// 400 MB piped to a codec that takes 64 KiB (Rider's JSON limit): read
  /// no further than that, and refuse in one line. The writer (Python,
  /// which counts what the pipe took) is cut off long before the end.
  @Test func aPayloadLongerThanItsCodecTakesIsNotReadWhole() throws {
    let script = """
      import json, subprocess, sys
      p = subprocess.Popen([sys.argv[1], "decode", "--codec", "rider", "-"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
      chunk, written = b" " * (1 << 20), 0
      try:
          while written < 400 << 20:
              p.stdin.write(chunk)
              written += len(chunk)
          p.stdin.close()
      except BrokenPipeError:
          pass
      out, err = p.communicate()
      print(json.dumps({"written": written, "status": p.returncode, "stderr": err.decode()}))
      """
    let result = try Live.python(script, [Pktbench.binary.path], timeout: 120)
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any], "\(result.stderr)")
    #expect(report["status"] as? Int == 1)
    #expect((report["written"] as? Int ?? .max) < 16 << 20)
    #expect(
      report["stderr"] as? String
        == "pktbench: standard input holds more than 65536 bytes; a rider payload is at most 65536 bytes "
        + "(a capture on stdin must be pcap, pcapng or btsnoop)\n")
  }

  // MARK: 4. Captures on stdin

  /// Every shipped capture decodes from a pipe to the messages its
  /// generator sent (Captures/expected, ble/expected), btsnoop included:
  /// `adb shell cat btsnoop_hci.log | pktbench decode -`.
  @Test(arguments: CaptureFixtureTests.fixtures)
  func capturesDecodeFromStandardInput(fixture: String) throws {
    try CaptureFixtureTests.check(fixture: fixture, viaStandardInput: true)
  }

  /// A capture piped in with --codec is a capture, --codec applied to its
  /// payloads as for a file: Captures/expected/rallie-udp.json's messages.
  @Test func aCaptureOnStandardInputWithACodecIsACapture() throws {
    let capture = try Data(contentsOf: Pktbench.root.appendingPathComponent("Captures/rallie-udp.pcap"))
    let result = try Pktbench.run(
      ["decode", "--codec", "rallie", "-", "--format", "ndjson"], stdin: [UInt8](capture))
    #expect(result.status == 0, "\(result.stderr)")
    let expected = try CaptureFixtureTests.load("expected/rallie-udp.json")
    let messages = try #require(expected["messages"] as? [[String: Any]])
    let records = result.text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(records.count == messages.count)
    for (want, got) in zip(messages, records) {
      #expect(got["frame"] as? Int == want["frame"] as? Int)
      #expect(got["message"] as? String == want["message"] as? String)
      #expect(got["routing"] as? String == "--codec")
    }
  }

  /// `analyze -` reads a btsnoop log too: its 299 records (tshark's count
  /// in Captures/ble/expected/legctrl-session.json), one LegCtrl flow.
  @Test func analyzeReadsABtsnoopLogFromStandardInput() throws {
    let log = try Data(
      contentsOf: Pktbench.root.appendingPathComponent("Captures/ble/legctrl-session.btsnoop"))
    let result = try Pktbench.run(["analyze", "-", "--format", "json"], stdin: [UInt8](log))
    #expect(result.status == 0, "\(result.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    #expect(report["records"] as? Int == 299)
    let flows = report["flows"] as? [[String: Any]] ?? []
    #expect(
      flows.contains { $0["protocol"] as? String == "legctrl" }, "\(flows.map { $0["protocol"] ?? "" })")
  }

  @Test func somethingElseOnStandardInputSaysWhatItIs() throws {
    let result = try Pktbench.run(["decode", "-"], stdin: Array(#"{"left":1}"#.utf8))
    #expect(result.status == 2)
    #expect(
      result.stderr
        == "pktbench: standard input is not a pcap, pcapng or btsnoop capture (it starts with 7B 22 6C 65); "
        + "to decode it as one payload, name its codec with --codec\n")
  }

  // MARK: 5. Wire bytes on a terminal

  /// A Rider datagram whose keys hold ESC [ 2 J (erase display), an OSC
  /// title and an 8-bit CSI, in a capture made by Benchmarks/generate.py's
  /// packers: no text view writes a control byte of it.
  @Test func wireBytesReachNoTerminalRaw() throws {
    let path = NSTemporaryDirectory() + "/pktbench-hostile-\(getpid()).pcap"
    defer { unlink(path) }
    let script = """
      import sys
      sys.path.insert(0, sys.argv[2])
      import generate
      payload = ('{"left":1,"right":1,"timestamp":1,"\\\\u001b[2J":1,'
                 '"\\\\u001b]0;pwned\\\\u0007":"\\\\u001b[31mred","\\\\u009b1m":2,"\\\\u001b[2J":3}').encode()
      with open(sys.argv[1], "wb") as out:
          generate.pcap_header(out)
          generate.pcap_record(out, 1700000000.0, generate.udp_frame(payload, 50000, 5005, 1))
          generate.pcap_record(out, 1700000000.05, generate.udp_frame(b'{"left":"\\\\u001b[2J"}', 50000, 5005, 2))
      """
    let made = try Live.python(script, [path, Pktbench.root.appendingPathComponent("Benchmarks").path])
    #expect(made.status == 0, "\(made.stderr)")
    for options in [[], ["-V"], ["-x"], ["--stats"]] {
      let result = try Pktbench.run(["decode", path] + options)
      #expect(result.status == 0)
      #expect(!result.stdout.contains(0x1B), "\(options): \(result.text)")
      #expect(!result.text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }, "\(options)")
      #expect(result.text.contains(#"\u001b"#) || options == ["--stats"], "\(options): \(result.text)")
    }
    let report = try Pktbench.run(["analyze", path])
    #expect(!report.stdout.contains(0x1B), "\(report.text)")
  }

  // MARK: 6. Messages

  /// Captures/expected values are not needed here: the offsets are
  /// counted by hand in the payload, `{"left":"\ud800"…` (the backslash is
  /// byte 9), and the number is a thousand digits long.
  @Test func errorMessagesSayWhatWasSent() throws {
    let surrogate = try Pktbench.run(
      ["decode", "--codec", "rider", "--format", "json", "--hex", Self.hex(#"{"left":"\ud800","right":1}"#)])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(surrogate.stdout)) as? [String: Any])
    let error = try #require(object["error"] as? [String: Any])
    #expect(error["offset"] as? Int == 9)
    #expect((error["text"] as? String)?.contains(#"\ud800 at offset 9"#) == true, "\(error)")
    let long = "{\"left\":1" + String(repeating: "0", count: 1000) + "}"
    let number = try Pktbench.run(["decode", "--codec", "rider", "--hex", Self.hex(long)])
    #expect(number.status == 1)
    #expect(number.text.utf8.count < 400, "\(number.text.prefix(500))")
    #expect(number.text.contains("(1001 bytes)"))
  }

  /// btsnoop counts microseconds from year 0 (BtsnoopFile: Wireshark's
  /// 0x00DCDDB30F2F8000 is the Unix epoch); a record 1,000,001 µs before
  /// it is at -1.000001 s. The log holds one HCI Reset command (H4 type 1,
  /// opcode 0x0C03, no parameters; Bluetooth Core 5.4 Vol 4 Part E §7.3.2).
  @Test func timesBeforeTheEpochKeepTheirDigits() throws {
    var log = Array("btsnoop".utf8) + [0]
    log += Self.bigEndian(UInt64(1) << 32 | 1002, bytes: 8)  // version 1, datalink 1002 (H4)
    let packet: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
    let stamp = UInt64(0x00DC_DDB3_0F2F_8000) - 1_000_001
    log += Self.bigEndian(UInt64(packet.count) << 32 | UInt64(packet.count), bytes: 8)
    log += Self.bigEndian(0b10, bytes: 8)  // flags: a command, host to controller; no drops
    log += Self.bigEndian(stamp, bytes: 8) + packet
    let result = try Pktbench.run(["decode", "-", "--stats"], stdin: log)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.text.contains("time: -1.000001 … -1.000001"), "\(result.text)")
  }

  static func hex(_ text: String) -> String {
    text.utf8.map { String(format: "%02X", $0) }.joined()
  }

  static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
    (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(bytes - 1 - $0))) }
  }

  // MARK: 7. Small things

  /// One status per outcome (README: exit statuses): 64 for a command
  /// line that is wrong, 2 for input that cannot be read, 1 for input
  /// found wanting.
  @Test(arguments: [
    (["decode", "Captures/rider-20hz.pcap", "--filter", "udp prt"], 64, "--filter: invalid filter"),
    (["analyze", "Captures/rider-20hz.pcap", "--filter", "udp prt"], 64, "--filter: invalid filter"),
    (["listen", "udp:abc"], 64, "no port given"),
    (["listen", "udp:notanip:9000"], 64, "cannot listen on udp:notanip:9000: cannot resolve host 'notanip'"),
    (["craft", "servo", "--us", "99999"], 64, "(use --force to craft it anyway)"),
    (["decode", "Captures/ble/legctrl-session.pcapng", "--ble-map", "bogus"], 64, "--ble-map 'bogus'"),
    (["help", "nosuch"], 64, "help: no command 'nosuch'"),
    (["decode", "--codec", "nosuch", "--hex", "00"], 64, "unknown codec"),
    (["decode", "Captures/no-such.pcap"], 2, "no such file"),
    (["analyze", "Captures/no-such.pcap"], 2, "no such file"),
    (["decode", "Captures"], 2, "is a directory"),
    (["decode", "--codec", "rallie", "--hex", "00"], 1, ""),
    (["decode", "Captures/damaged/rider-truncated.pcap"], 1, "the file is damaged"),
  ])
  func exitStatusesAreTheTables(arguments: [String], status: Int, says: String) throws {
    let result = try Pktbench.run(arguments)
    #expect(result.status == Int32(status), "\(arguments): \(result.stderr)")
    #expect(says.isEmpty || result.stderr.contains(says), "\(arguments): \(result.stderr)")
    #expect(!result.stderr.contains("Error("), "\(arguments): \(result.stderr)")
  }

  /// docs/protocols.md §2: pulse_us is a u16. 70000 cannot be written with or
  /// without --force; the message says the width, not "use --force".
  @Test func forceCannotWidenAField() throws {
    let result = try Pktbench.run(["craft", "servo", "--us", "70000", "--force"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("a u16 (2 bytes), which holds 0…65535"), "\(result.stderr)")
    #expect(!result.stderr.contains("use --force"))
  }

  @Test func badCheckWithoutACheckByteIsRefused() throws {
    let result = try Pktbench.run(["craft", "drive", "--left", "1", "--right", "1", "--bad-check"])
    #expect(result.status == 64)
    #expect(
      result.stderr
        == "pktbench: --bad-check: rider frames have no check byte to spoil (rallie frames have one)\n")
    #expect(result.stdout.isEmpty)
    // Rallie frames end in a check byte (docs/protocols.md §3): spoiling it is allowed.
    let rallie = try Pktbench.run(["craft", "rallie-response", "--bad-check"])
    #expect(rallie.status == 0, "\(rallie.stderr)")
  }

  /// docs/protocols.md §4: imageData is a JPEG, FF D8 … FF D9. README.md is not.
  @Test func aFrameOfSomethingElseIsRefusedUnlessForced() throws {
    let refused = try Pktbench.run(["craft", "frame", "--jpeg", "README.md"])
    #expect(refused.status == 64)
    #expect(refused.stderr.hasPrefix("pktbench: --jpeg: imageData is not a JPEG"), "\(refused.stderr)")
    #expect(refused.stderr.contains("(use --force to craft it anyway)"))
    #expect(refused.stdout.isEmpty)
    let forced = try Pktbench.run(["craft", "frame", "--jpeg", "README.md", "--force"])
    #expect(forced.status == 0, "\(forced.stderr)")
  }

  @Test func helpShowsDurationsAsTyped() throws {
    let result = try Pktbench.run(["send", "--help"])
    #expect(result.status == 0)
    #expect(result.text.contains("(default: 0s)"), "\(result.text)")
    #expect(!result.text.contains("DurationArgument"))
  }

  /// Colour only on a terminal that shows it: run on a pseudo-terminal
  /// (Python's pty), TERM=xterm gets ESC codes, TERM=dumb and NO_COLOR none.
  @Test(arguments: [("TERM=xterm-256color", true), ("TERM=dumb", false), ("TERM=xterm,NO_COLOR=1", false)])
  func colourFollowsTheTerminal(environment: String, coloured: Bool) throws {
    let script = """
      import os, pty, sys
      env = dict(os.environ)
      env.pop("NO_COLOR", None)
      for pair in sys.argv[1].split(","):
          key, _, value = pair.partition("=")
          env[key] = value
      pid, fd = pty.fork()
      if pid == 0:
          os.execve(sys.argv[2], sys.argv[2:], env)
      out = b""
      while True:
          try:
              chunk = os.read(fd, 65536)
          except OSError:
              break
          if not chunk:
              break
          out += chunk
      os.waitpid(pid, 0)
      sys.stdout.write(out.hex())
      """
    let result = try Live.python(
      script, [environment, Pktbench.binary.path, "decode", "--hex", "5AA58332322D2D32004E"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.text.contains("72616c6c6965"), "no output: \(result.text)")  // "rallie"
    let escape = stride(from: 0, to: result.text.count, by: 2).contains {
      let start = result.text.index(result.text.startIndex, offsetBy: $0)
      return result.text[start..<result.text.index(start, offsetBy: 2)] == "1b"
    }
    #expect(escape == coloured, "\(environment)")
  }
}
