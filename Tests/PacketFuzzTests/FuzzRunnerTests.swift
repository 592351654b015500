import BuiltinCodecs
import Foundation
import PacketFuzz
import PacketKit
import Testing

/// The fuzz runner itself: deterministic, finds planted bugs, shrinks.
@Suite struct FuzzRunnerTests {
  @Test func sameSeedGivesTheSameRun() {
    func run() -> [(String, FuzzStats)] {
      FuzzRunner(
        targets: FuzzTargets(codecs: BuiltinCodecs.set).codecTargets(),
        configuration: .init(seed: 42, iterations: 2_000)
      ).run().stats
    }
    let first = run()
    let second = run()
    #expect(first.map(\.0) == second.map(\.0))
    for (a, b) in zip(first, second) {
      #expect(a.1.executions == b.1.executions)
      #expect(a.1.errorCodes == b.1.errorCodes)
      #expect(a.1.messageKinds == b.1.messageKinds)
    }
  }

  @Test func everyCodecRoundTripsAndSurvivesMutationWithASeed() {
    let report = FuzzRunner(
      targets: FuzzTargets(codecs: BuiltinCodecs.set).codecTargets(),
      configuration: .init(seed: 7, iterations: 6_000)
    ).run()
    for failure in report.failures {
      Issue.record(
        "\(failure.target) [\(failure.kind)]: \(failure.detail) input \(Hex.spaced(failure.input))")
    }
    for (name, stats) in report.stats {
      #expect(stats.roundTrips > 1_000, "\(name) ran few round trips")
      #expect(!stats.errorCodes.isEmpty, "\(name) never saw a decode error: mutations too weak")
    }
  }

  @Test func everyMessageKindIsGeneratedAndRoundTrips() {
    for target in FuzzTargets(codecs: BuiltinCodecs.set).codecTargets() {
      var rng = SplitMix64(seed: 99)
      var stats = FuzzStats()
      for _ in 0..<3_000 {
        if let failure = target.roundTrip(rng: &rng, stats: &stats) {
          Issue.record("\(failure.target): \(failure.detail)")
          break
        }
      }
      #expect(stats.roundTrips > 1_000, "\(target.name): \(stats.craftRefusals)")
    }
  }

  @Test func shrinkerFindsTheMinimalFailingInput() {
    // Fails whenever the input contains both 0xAA and 0xBB.
    let input: [UInt8] = Array(0..<64) + [0xAA] + Array(0..<64) + [0xBB] + Array(0..<32)
    let minimal = Shrinker().shrink(input) { $0.contains(0xAA) && $0.contains(0xBB) }
    #expect(minimal.sorted() == [0xAA, 0xBB])
  }

  @Test func generatorIsDeterministic() {
    var a = SplitMix64(seed: 5)
    var b = SplitMix64(seed: 5)
    #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
  }
}

/// Inputs that once broke a codec, kept forever: each must now decode or be
/// refused with a typed error, with every invariant holding. Files are named
/// crash-<target>-….bin, as `pktbench fuzz` saves them.
@Suite struct FuzzRegressionTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Regressions")

  static var inputs: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
      .filter { $0.hasSuffix(".bin") }.sorted()
  }

  @Test func regressionDirectoryHasInputs() {
    #expect(!Self.inputs.isEmpty)
  }

  @Test(arguments: inputs)
  func replay(file: String) throws {
    let name = try #require(file.split(separator: "-").dropFirst().first.map(String.init))
    let target = try #require(FuzzTargets(codecs: BuiltinCodecs.set).named(name), "no target \(name)")
    let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
    var stats = FuzzStats()
    let failure = target.check([UInt8](data), stats: &stats)
    #expect(failure == nil, "\(failure?.kind ?? ""): \(failure?.detail ?? "")")
  }
}
