import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `pktbench fuzz` through the binary: bounded runs, seeds, corpora, replays.
@Suite struct FuzzEndToEndTests {
  @Test func boundedRunPrintsTheSeedAndASummaryTable() throws {
    let result = try Pktbench.run([
      "fuzz", "--codec", "rallie", "--codec", "legctrl", "--iterations", "3000", "--seed", "42",
      "--crashes", NSTemporaryDirectory() + "pktbench-e2e-crashes",
    ])
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
    #expect(result.stderr.contains("seed 42"))
    #expect(result.text.contains("rallie"))
    #expect(result.text.contains("legctrl"))
    #expect(result.text.contains("no failures"))
  }

  @Test func jobsRunWorkersWithConsecutiveSeedsAndAddUpTheirIterations() throws {
    let result = try Pktbench.run([
      "fuzz", "--codec", "rallie", "--iterations", "2001", "--seed", "40", "--jobs", "2",
      "--crashes", NSTemporaryDirectory() + "pktbench-e2e-crashes",
    ])
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
    #expect(result.stderr.contains("seed 40, 2 jobs (seeds 40 to 41)"), "\(result.stderr)")
    let row = try #require(result.text.split(separator: "\n").first { $0.hasPrefix("rallie") })
    let columns = row.split(separator: " ", omittingEmptySubsequences: true).compactMap { Int($0) }
    // executions + round trips: 1,001 from seed 40 and 1,000 from seed 41.
    #expect(columns.count >= 2 && columns[0] + columns[1] == 2001, "\(row)")
  }

  @Test func jobsOutsideTheirRangeAreRefusedInOneSentence() throws {
    let result = try Pktbench.run(["fuzz", "--codec", "rallie", "--jobs", "0"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("--jobs must be between 1 and 64, not 0"), "\(result.stderr)")
  }

  @Test func sameSeedSameTable() throws {
    func table() throws -> [String] {
      let result = try Pktbench.run(["fuzz", "--codec", "rider", "--iterations", "2000", "--seed", "7"])
      // Drop the rate column and the timing line: they measure the machine.
      return result.text.split(separator: "\n").filter { $0.hasPrefix("rider") }.map {
        $0.split(separator: " ", omittingEmptySubsequences: true).enumerated().filter { $0.offset != 3 }
          .map(\.element).joined(separator: " ")
      }
    }
    let first = try table()
    #expect(!first.isEmpty)
    #expect(try table() == first)
  }

  @Test func corpusOfCapturesSeedsTheCodecsAndTheParser() throws {
    let result = try Pktbench.run([
      "fuzz", "--corpus", "Captures", "--codec", "rallie", "--codec", "pcap", "--iterations", "1500",
      "--seed", "3",
    ])
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
    #expect(result.text.contains("pcap"))
  }

  @Test func reproduceReplaysASavedInput() throws {
    let path = Pktbench.root.appendingPathComponent(
      "Tests/PacketFuzzTests/Regressions/regression-legctrl-truncated-servo.bin")
    let result = try Pktbench.run(["fuzz", "--reproduce", path.path])
    #expect(result.status == 0)
    #expect(result.text.contains("legctrl"))
    #expect(result.text.contains("every invariant holds"))
  }

  /// A real fatal signal, as a trap in a decoder would raise: the handler
  /// writes the input under test to a file named for its target and the
  /// worker's seed, says so, and lets the signal end the process; the file
  /// then replays with `--reproduce` alone. With one worker and with two.
  @Test(arguments: [1, 2]) func fatalSignalSavesTheInputUnderTestForItsTarget(jobs: Int) throws {
    // A signal between two inputs (generating or mutating) has nothing to
    // save, and the handler says so: up to eight tries to land in a check.
    // The WebSocket parser spends nine tenths of its time checking inputs
    // (a codec's round trips, unguarded, can take most of a debug build's).
    for attempt in 1...8 {
      let directory = NSTemporaryDirectory() + "pktbench-e2e-crash-\(jobs)-\(getpid())-\(attempt)"
      try? FileManager.default.removeItem(atPath: directory)
      let fuzz = try LiveProcess([
        "fuzz", "--target", "websocket", "--time", "60s", "--seed", "17", "--jobs", "\(jobs)",
        "--crashes", directory,
      ])
      #expect(fuzz.waitForStderr("seed 17"), "\(fuzz.stderr)")
      Thread.sleep(forTimeInterval: 1)
      fuzz.signal(SIGSEGV)
      // Killed by the signal itself (the handler re-raises it), not exited.
      #expect(fuzz.finish() == SIGSEGV, "\(fuzz.stderr)")
      if fuzz.stderr.contains("crashed outside the check of an input") { continue }
      let saved = try #require(
        ["17", "18"].prefix(jobs).map { "\(directory)/crash-websocket-seed\($0).bin" }.first {
          fuzz.stderr.contains("the decoder crashed; input saved to \($0)")
        }, "\(fuzz.stderr)")
      #expect(fuzz.stderr.contains("reproduce: pktbench fuzz --reproduce \(saved)\n"), "\(fuzz.stderr)")
      let replay = try Pktbench.run(["fuzz", "--reproduce", saved])
      #expect(replay.text.hasPrefix("websocket: "), "\(replay.text)\(replay.stderr)")
      return
    }
    Issue.record("none of eight signals landed while an input was under test")
  }

  @Test func unknownTargetListsTheKnownOnes() throws {
    let result = try Pktbench.run(["fuzz", "--codec", "zigbee"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("rallie"))
    #expect(result.stderr.contains("pcap"))
  }
}
