import BuiltinCodecs
import PacketFuzz
import PacketKit
import Testing

/// The `pklg` fuzz target: whole PacketLogger files in either byte order.
/// Its seeds reach the ATT value and the text records, and a seeded run of
/// mutations holds every invariant.
@Suite struct PacketLoggerFuzzTargetTests {
  @Test func runsByDefault() {
    #expect(FuzzTargets(codecs: BuiltinCodecs.set).names.contains("pklg"))
    #expect(FuzzTargets(codecs: BuiltinCodecs.set).parserTargets().contains { $0.name == "pklg" })
  }

  @Test func seedsDecodeDownToTheWriteCommand() throws {
    let target = try #require(FuzzTargets(codecs: BuiltinCodecs.set).named("pklg"))
    var rng = SplitMix64(seed: 27)
    var stats = FuzzStats()
    for _ in 0..<20 {
      let seed = target.seed(rng: &rng) ?? []
      let failure = target.check(seed, stats: &stats)
      #expect(failure == nil, "\(failure?.kind ?? ""): \(failure?.detail ?? "")")
    }
    #expect(stats.errorCodes.isEmpty, "\(stats.errorCodes.names)")
    #expect(stats.messageKinds.names.contains("write-command"), "\(stats.messageKinds.names)")
  }

  @Test func mutatedFilesHoldEveryInvariant() throws {
    let report = FuzzRunner(
      targets: [try #require(FuzzTargets(codecs: BuiltinCodecs.set).named("pklg"))],
      configuration: .init(seed: 11, iterations: 4_000)
    ).run()
    for failure in report.failures {
      Issue.record(
        "\(failure.target) [\(failure.kind)]: \(failure.detail) input \(Hex.spaced(failure.input))")
    }
    let stats = report.stats.first { $0.0 == "pklg" }?.1
    #expect((stats?.executions ?? 0) >= 4_000)
    // Mutations reach both sides: files that decode and files refused or damaged.
    #expect((stats?.decoded ?? 0) > 0)
    #expect(!(stats?.errorCodes.isEmpty ?? true))
  }
}
