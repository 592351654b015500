import BuiltinCodecs
import PacketFuzz
import PacketKit
import Testing

/// The `tcp` fuzz target: its seeds and some written scripts hold every
/// invariant, the scripts reach the cases the target exists for (jumps,
/// disagreeing overlaps, cuts), and `pktbench fuzz` runs it by default,
/// as scripts/fuzz-ci.sh does.
@Suite struct TCPFuzzTargetTests {
  /// Header: flags (1: small buffer, 2: SYN), then the initial sequence number, little-endian.
  static func script(flags: UInt8, initial: UInt32, _ steps: [[UInt8]]) -> [UInt8] {
    [flags] + (0..<4).map { UInt8(truncatingIfNeeded: initial >> (8 * $0)) } + steps.flatMap { $0 }
  }

  static func kinds(_ input: [UInt8]) -> (FuzzFailure?, [String]) {
    var stats = FuzzStats()
    let failure = TCPFuzzTarget().check(input, stats: &stats)
    return (failure, stats.messageKinds.names)
  }

  @Test func runsByDefault() {
    #expect(FuzzTargets(codecs: BuiltinCodecs.set).names.contains("tcp"))
    #expect(FuzzTargets(codecs: BuiltinCodecs.set).parserTargets().contains { $0.name == "tcp" })
  }

  @Test func seedsHoldEveryInvariant() {
    let target = TCPFuzzTarget()
    var rng = SplitMix64(seed: 26)
    for _ in 0..<50 {
      let seed = target.seed(rng: &rng) ?? []
      var stats = FuzzStats()
      let failure = target.check(seed, stats: &stats)
      #expect(failure == nil, "\(failure?.kind ?? ""): \(failure?.detail ?? "")")
    }
  }

  /// Across the 2³² wrap, shuffled and duplicated, the stream comes out whole.
  @Test func wrappedShuffledStreamIsWhole() {
    let input = Self.script(
      flags: 2, initial: UInt32.max - 5,
      [[0, 0, 100, 99], [0, 0, 0, 99], [0, 0, 50, 99], [0, 0, 200, 49], [0, 0, 0, 9]])
    let (failure, kinds) = Self.kinds(input)
    #expect(failure == nil, "\(failure?.kind ?? ""): \(failure?.detail ?? "")")
    #expect(kinds == ["data"])
  }

  /// A jump of 2³¹ + 0x000100 then two segments there: a desync, checked.
  @Test func jumpIsADesync() {
    let input = Self.script(
      flags: 2, initial: 1000, [[0, 0, 0, 9], [5, 0, 1, 0], [0, 0, 0, 9], [0, 0, 10, 9]])
    let (failure, kinds) = Self.kinds(input)
    #expect(failure == nil, "\(failure?.kind ?? ""): \(failure?.detail ?? "")")
    #expect(kinds.contains("desync"))
  }

  /// Different bytes over buffered ones, and over delivered ones, and a cut.
  @Test func conflictsAndCutsAreReported() {
    let input = Self.script(
      flags: 2, initial: 7, [[0, 0, 0, 9], [0, 0, 20, 9], [3, 0, 15, 9], [3, 0, 2, 3], [7, 0, 30, 19]])
    let (failure, kinds) = Self.kinds(input)
    #expect(failure == nil, "\(failure?.kind ?? ""): \(failure?.detail ?? "")")
    #expect(kinds.contains("conflict"))
    #expect(kinds.contains("cut"))
  }

  @Test func runnerFindsNothingInAShortRun() {
    let runner = FuzzRunner(targets: [TCPFuzzTarget()], configuration: .init(seed: 26, iterations: 3000))
    let report = runner.run()
    #expect(report.failures.isEmpty, "\(report.failures.map { "\($0.kind): \($0.detail)" })")
  }
}
