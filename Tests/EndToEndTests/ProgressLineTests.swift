import Foundation
import Testing

/// The progress line: on a terminal only (a pseudo-terminal made by
/// Python's pty module stands in for one), never in a pipe. The two
/// seconds it waits for are set to none through PKTBENCH_PROGRESS_DELAY.
@Suite struct ProgressLineTests {
  static let now = ["PKTBENCH_PROGRESS_DELAY": "0"]

  /// Runs pktbench with stderr (and, when asked, stdout) on a pty; prints
  /// what the terminal received as a Python repr, and the exit status.
  static let onTerminal = #"""
    import os, pty, subprocess, sys
    binary, both, args = sys.argv[1], sys.argv[2] == "both", sys.argv[3:]
    master, slave = pty.openpty()
    process = subprocess.Popen([binary] + args, stdout=slave if both else subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    print(process.wait())
    print(repr(seen))
    """#

  static func terminal(_ arguments: [String], stdoutToo: Bool = false) throws -> (
    status: String, seen: String
  ) {
    let result = try Pktbench.runProgram(
      "/usr/bin/env",
      ["python3", "-c", onTerminal, Pktbench.binary.path, stdoutToo ? "both" : "stderr"] + arguments,
      environment: now)
    let lines = result.text.split(separator: "\n", maxSplits: 1).map(String.init)
    return (lines.first ?? "", lines.count > 1 ? lines[1].trimmingCharacters(in: .newlines) : "")
  }

  @Test func aTerminalGetsOneSelfRewritingLineClearedAtTheEnd() throws {
    for arguments in [
      ["decode", "Captures/field-session.pcapng", "--stats"],
      ["decode", "Captures/falconeye-ws.pcap", "--format", "ndjson"],
      ["analyze", "Captures/rider-20hz.pcap"],
    ] {
      let (status, seen) = try Self.terminal(arguments)
      #expect(status == "0", "\(arguments)")
      #expect(seen.hasPrefix("b'\\r"), "\(arguments): \(seen)")
      #expect(seen.contains(" records/s"))
      #expect(seen.contains(" MB of "))
      #expect(!seen.contains("\\n"), "one line, rewritten: \(seen)")
      #expect(seen.hasSuffix("\\r\\x1b[K'"), "cleared at the end: \(seen)")
    }
  }

  @Test func noProgressAndMessagesOnTheSameTerminalMeanNone() throws {
    let off = try Self.terminal(["decode", "Captures/field-session.pcapng", "--stats", "--no-progress"])
    #expect(off.status == "0")
    #expect(off.seen == "b''")
    // Summary lines scrolling on the terminal the line would be drawn on.
    let scrolling = try Self.terminal(["decode", "Captures/rider-20hz.pcap"], stdoutToo: true)
    #expect(scrolling.seen.contains("rider drive"))
    #expect(!scrolling.seen.contains("records/s"))
  }

  @Test func aPipeNeverGetsIt() throws {
    for arguments in [
      ["decode", "Captures/field-session.pcapng", "--stats"],
      ["decode", "Captures/falconeye-ws.pcap", "--format", "ndjson"],
      ["analyze", "Captures/rider-20hz.pcap"],
    ] {
      let result = try Pktbench.run(arguments, environment: Self.now)
      #expect(result.status == 0)
      #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
    }
  }
}
