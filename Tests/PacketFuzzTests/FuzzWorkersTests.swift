import BuiltinCodecs
import PacketFuzz
import PacketKit
import Synchronization
import Testing

/// `fuzz --jobs`: workers on threads, each its own seed, merged into one report.
@Suite struct FuzzWorkersTests {
  static let names = ["rallie", "legctrl", "rider"]

  static func targets() -> [FuzzTarget] {
    names.compactMap { FuzzTargets(codecs: BuiltinCodecs.set).named($0) }
  }

  @Test func twoWorkersAddUpToTheirTwoSeedsRunAlone() {
    let merged = FuzzWorkers.run(
      jobs: 2, makeTargets: { Self.targets() }, configuration: .init(seed: 11, iterations: 3_001)
    )
    #expect(merged.failures.isEmpty)
    // Worker 0 runs seed 11 for 1,501 iterations, worker 1 seed 12 for 1,500.
    let alone = [(11, 1_501), (12, 1_500)].map { seed, iterations in
      FuzzRunner(targets: Self.targets(), configuration: .init(seed: UInt64(seed), iterations: iterations))
        .run().stats
    }
    #expect(merged.stats.map(\.0) == Self.names)
    for (index, (name, stats)) in merged.stats.enumerated() {
      let (first, second) = (alone[0][index].1, alone[1][index].1)
      #expect(stats.executions + stats.roundTrips == 3_001, "\(name)")
      #expect(stats.executions == first.executions + second.executions, "\(name)")
      #expect(stats.decoded == first.decoded + second.decoded, "\(name)")
      #expect(stats.workers == 2)
      for code in Set(first.errorCodes.names + second.errorCodes.names) {
        #expect(stats.errorCodes[code] == first.errorCodes[code] + second.errorCodes[code], "\(name) \(code)")
      }
      for kind in Set(first.messageKinds.names + second.messageKinds.names) {
        #expect(stats.messageKinds[kind] == first.messageKinds[kind] + second.messageKinds[kind])
      }
      #expect(stats.fields.count >= max(first.fields.count, second.fields.count), "\(name)")
      #expect(stats.fields.count <= first.fields.count + second.fields.count, "\(name)")
    }
  }

  @Test func iterationsAreSharedOutWithTheRemainderFirst() {
    #expect((0..<3).map { FuzzWorkers.iterations(10, worker: $0, of: 3) } == [4, 3, 3])
    #expect((0..<4).map { FuzzWorkers.iterations(2, worker: $0, of: 4) } == [1, 1, 0, 0])
  }

  @Test func mergedRateIsTheWorkersTogether() {
    var a = FuzzStats()
    a.executions = 1_000
    a.nanoseconds = 1_000_000_000
    var b = a
    b.roundTrips = 1_000
    b.executions = 0
    a.merge(b)
    // Two workers, each 1,000 inputs in its own second: 2,000 a second.
    #expect(a.executionsPerSecond == 2_000)
  }

  /// A target whose check fails on every input, or on none: the worker
  /// that gets the failing one stops at once, and so must the other,
  /// which would otherwise run its billion iterations.
  final class Planted: FuzzTarget {
    let fails: Bool
    init(fails: Bool) { self.fails = fails }
    var name: String { "planted" }
    var isJSON: Bool { false }
    func seed(rng: inout SplitMix64) -> [UInt8]? { [1, 2, 3] }
    func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }
    func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
      stats.executions += 1
      return fails ? FuzzFailure(target: name, kind: "planted", detail: "always", input: input) : nil
    }
  }

  @Test func aFailureInOneWorkerStopsTheOther() {
    let made = Mutex(0)
    let report = FuzzWorkers.run(
      jobs: 2,
      makeTargets: {
        // The second set of targets built (whichever worker gets it) fails.
        let index = made.withLock { count in
          count += 1
          return count
        }
        return [Planted(fails: index == 2)]
      },
      configuration: .init(seed: 5, iterations: 2_000_000_000))
    #expect(report.failures.count == 1)
    #expect(report.failures.first?.kind == "planted")
    #expect(report.seeds.count == 1 && [5, 6].contains(report.seeds[0]))
    let executions = report.stats.first?.1.executions ?? 0
    #expect(executions < 1_000_000_000, "the healthy worker did not stop")
  }
}
