import Foundation
import Testing

/// `-Y` against hostile filters and hostile captures (issue 34): nesting
/// deep enough to overflow a recursive parser is one line with the column
/// and exit 64 (tshark refuses it too); a regular expression that
/// backtracks exponentially gives up on that record with a warning; and
/// Ctrl-C stops a run whatever its filter. Captures from
/// Tests/Fixtures/capture/make_hostile_files.py.
@Suite struct DisplayFilterHostileTests {
  static func capture(_ kind: String) throws -> CaptureHostileTests.Capture {
    try CaptureHostileTests.make("make_hostile_files.py", [kind])
  }

  /// 5,000 nested parentheses, or 100,000 `!`.
  static func deep(_ token: String) -> String {
    token == "("
      ? String(repeating: "(", count: 5000) + "frame" + String(repeating: ")", count: 5000)
      : String(repeating: "!", count: 100_000) + "frame"
  }

  @Test(arguments: ["(", "!"])
  func deepNestingIsAUsageErrorNamingTheColumn(token: String) throws {
    let result = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "-Y", Self.deep(token)])
    #expect(result.status == 64, "\(result.stderr.prefix(300))")
    #expect(
      result.stderr
        == "pktbench: -Y: '\(token)' nests the filter deeper than 64 levels of '(' and 'not' at column 65\n",
      "\(result.stderr.prefix(200))")
    #expect(result.stdout.isEmpty)
  }

  @Test func tsharkRefusesTheDeepFilterToo() throws {
    let tshark = try #require(Pktbench.which("tshark"))
    let result = try Pktbench.runProgram(tshark, ["-r", "Captures/rider-20hz.pcap", "-Y", Self.deep("(")])
    #expect(result.status != 0)
    #expect(result.stdout.isEmpty)
  }

  @Test func anExponentialPatternGivesUpOnItsRecordAndTheRunGoesOn() throws {
    let capture = try Self.capture("regex-ids")
    let frames = capture.facts["frames"] as? [Int] ?? []
    #expect(frames.count == 3)
    let result = try Pktbench.run([
      "decode", capture.path, "--format", "ndjson", "-Y",
      #"falconeye.payload.frameId matches "^(a+)+$" or falconeye.payload.frameId matches "^f-""#,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let kept = result.text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frame"] as? Int
    }
    #expect(kept == [frames[0], frames[2]])
    #expect(
      result.stderr
        == "pktbench: -Y: record \(frames[1]): a regular expression gave up after 1000000 steps (it backtracks "
        + "without bound on this text); the record is taken as not matching it\n")
  }

  /// CI's libFuzzer pass runs the filter harness, seeded with the
  /// README's filters, each of which holds the filter target's invariants.
  @Test func ciFuzzesTheFilterHarnessFromTheReadmesFilters() throws {
    func text(_ path: String) throws -> String {
      try String(contentsOf: Pktbench.root.appendingPathComponent(path), encoding: .utf8)
    }
    #expect(try text("scripts/fuzz-ci.sh").contains(" pklg filter; do"))
    #expect(try text("scripts/libfuzzer.sh").contains("filter) product=FuzzFilter ;;"))
    #expect(try text("Fuzz/Package.swift").contains("\"FuzzFilter\""))
    #expect(try text("Fuzz/Sources/FuzzFilter/FuzzFilter.swift").contains("testOneInput(\"filter\""))
    let seeds = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-filter-seeds-\(UUID())")
    defer { try? FileManager.default.removeItem(at: seeds) }
    let made = try Pktbench.runProgram(
      Pktbench.root.appendingPathComponent("scripts/seed-corpus.sh").path, ["filter", seeds.path])
    #expect(made.status == 0, "\(made.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: seeds.path)
    #expect(files.count >= 9)
    for file in files {
      let path = seeds.appendingPathComponent(file).path
      let replay = try Pktbench.run(["fuzz", "--reproduce", path, "--target", "filter"])
      #expect(replay.status == 0, "\(file): \(replay.text)\(replay.stderr)")
      #expect(replay.text.contains("every invariant holds"))
      // Each is a filter pktbench itself takes.
      let filter = try String(contentsOfFile: path, encoding: .utf8)
      let decoded = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "-Y", filter, "--stats"])
      #expect(decoded.status == 0, "\(filter): \(decoded.stderr)")
    }
  }

  @Test func ctrlCStopsARunWhoseFilterBacktracks() throws {
    let capture = try Self.capture("regex-many")
    let run = try LiveProcess([
      "decode", capture.path, "--stats", "-Y", #"falconeye.payload.frameId matches "^(a+)+$""#,
    ])
    #expect(run.waitForStderr("they are not named", timeout: 60))
    run.signal(SIGINT)
    #expect(run.finish(timeout: 20) == 130)
    #expect(run.stderr.contains("interrupted by SIGINT"), "\(run.stderr)")
    #expect(run.stderr.contains("more records made a regular expression give up; they are not named"))
  }
}
