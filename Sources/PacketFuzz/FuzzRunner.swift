import PacketKit

/// Runs round trips and mutations over targets, round-robin, for a number
/// of iterations or a time budget. The same seed gives the same sequence.
public final class FuzzRunner {
  public struct Configuration: Sendable {
    public var seed: UInt64
    /// Total iterations per target (nil: until the time budget ends).
    public var iterations: Int?
    public var durationNanoseconds: UInt64?
    /// Real payloads to mutate, per target name ("*" for all).
    public var corpus: [String: [[UInt8]]] = [:]
    /// Called about once a second with the stats so far.
    public var progress: (@Sendable (Double, [(String, FuzzStats)]) -> Void)?
    /// Stop at the first failure (after shrinking it).
    public var stopOnFailure = true
    /// Shared by runners working at once (`fuzz --jobs`): set by the one
    /// that fails first, seen by the others at their next slice.
    public var stop: FuzzStop?
    /// This runner's slot in `CrashGuard` when several run at once.
    public var worker = 0

    public init(seed: UInt64, iterations: Int? = nil, durationNanoseconds: UInt64? = nil) {
      self.seed = seed
      self.iterations = iterations
      self.durationNanoseconds = durationNanoseconds
    }
  }

  public struct Report: Sendable {
    public var stats: [(String, FuzzStats)]
    public var failures: [FuzzFailure]
    /// The seed of the run that found each failure, in the same order (the
    /// workers of `fuzz --jobs` run different seeds). Not a member of
    /// `FuzzFailure`: the larger failure no longer fitted where the parser
    /// targets keep one, and pcap fuzzing took an allocation per input.
    public var seeds: [UInt64]
    public var elapsedSeconds: Double
  }

  private let targets: [FuzzTarget]
  private let configuration: Configuration
  private let byteMutator = ByteMutator()
  private let jsonMutator = JSONMutator()
  private let poolLimit = 256

  public init(targets: [FuzzTarget], configuration: Configuration) {
    self.targets = targets
    self.configuration = configuration
  }

  public func run() -> Report {
    var rngs = targets.indices.map {
      SplitMix64(seed: configuration.seed &+ UInt64($0) &* 0x9E37_79B9_7F4A_7C15)
    }
    var stats = targets.map { _ in FuzzStats() }
    var pools: [[[UInt8]]] = targets.map { target in
      (configuration.corpus[target.name] ?? []) + (configuration.corpus["*"] ?? [])
    }
    var failures: [FuzzFailure] = []
    // Byte mutations are written here, one buffer for every input.
    var scratch: [UInt8] = []
    let publisher = CrashGuard.claim(worker: configuration.worker)
    // Each target's name among the crash guard's, for the crash file.
    let crashTargets = targets.map { CrashGuard.targetIndex($0.name) }
    let start = monotonicNanoseconds()
    var lastProgress = start
    // A slice gives each target about the same time, so one slow parser
    // does not starve the fast codecs.
    let sliceNanoseconds: UInt64 = 20_000_000
    let maxBatch = 4096
    var done = false
    while !done {
      if configuration.stop?.isSet == true { break }
      for (index, target) in targets.enumerated() {
        let batchStart = monotonicNanoseconds()
        defer { stats[index].nanoseconds &+= monotonicNanoseconds() &- batchStart }
        publisher.working(on: crashTargets[index])
        var budget = maxBatch
        if let iterations = configuration.iterations {
          budget = min(budget, max(0, iterations - stats[index].executions - stats[index].roundTrips))
        }
        for step in 0..<budget {
          if step & 15 == 15, monotonicNanoseconds() &- batchStart > sliceNanoseconds { break }
          if let failure = self.step(
            target, pool: &pools[index], stats: &stats[index], rng: &rngs[index], scratch: &scratch,
            publisher: publisher)
          {
            stats[index].failures += 1
            failures.append(shrunk(failure, target: target))
            if configuration.stopOnFailure {
              done = true
              configuration.stop?.set()
            }
            break
          }
        }
        if done { break }
      }
      let now = monotonicNanoseconds()
      if let iterations = configuration.iterations,
        stats.allSatisfy({ $0.executions + $0.roundTrips >= iterations })
      {
        done = true
      }
      if let duration = configuration.durationNanoseconds, now &- start >= duration { done = true }
      if configuration.iterations == nil && configuration.durationNanoseconds == nil { done = true }
      if now &- lastProgress >= 1_000_000_000 || done {
        lastProgress = now
        configuration.progress?(
          Double(now &- start) / 1e9, zip(targets, stats).map { ($0.name, $1) })
      }
    }
    let elapsed = Double(monotonicNanoseconds() &- start) / 1e9
    return Report(
      stats: zip(targets, stats).map { ($0.name, $1) }, failures: failures,
      seeds: failures.map { _ in configuration.seed }, elapsedSeconds: elapsed)
  }

  private func step(
    _ target: FuzzTarget, pool: inout [[UInt8]], stats: inout FuzzStats, rng: inout SplitMix64,
    scratch: inout [UInt8], publisher: CrashGuard.Publisher
  ) -> FuzzFailure? {
    // A quarter round trips of fresh valid messages; the rest mutations.
    if rng.chance(1, in: 4) {
      if let failure = target.roundTrip(rng: &rng, stats: &stats) { return failure }
      if pool.count < poolLimit, let seed = target.seed(rng: &rng) { pool.append(seed) }
      if stats.roundTrips > 0 || pool.count > 0 { return nil }
    }
    let parent: [UInt8]
    if pool.isEmpty || rng.chance(1, in: 16) {
      parent = target.seed(rng: &rng) ?? []
    } else {
      parent = pool[rng.below(pool.count)]
    }
    if target.isJSON, rng.chance(1, in: 2), var mutated = jsonMutator.mutate(parent, rng: &rng) {
      return run(&mutated, target, pool: &pool, stats: &stats, rng: &rng, publisher: publisher)
    }
    byteMutator.mutate(parent, into: &scratch, rng: &rng)
    // A third of the mutants get their lengths and checks put right again
    // by the codec, so they get past its first checks.
    if rng.chance(1, in: 3) { target.reseal(&scratch, rng: &rng) }
    return run(&scratch, target, pool: &pool, stats: &stats, rng: &rng, publisher: publisher)
  }

  /// Checks one mutated input (at most 4 MiB of it), and keeps it in the
  /// pool when it reached something new.
  private func run(
    _ input: inout [UInt8], _ target: FuzzTarget, pool: inout [[UInt8]], stats: inout FuzzStats,
    rng: inout SplitMix64, publisher: CrashGuard.Publisher
  ) -> FuzzFailure? {
    if input.count > 4 << 20 { input.removeLast(input.count - (4 << 20)) }
    let kindsBefore = stats.messageKinds.count
    let fieldsBefore = stats.fields.count
    let errorsBefore = stats.errorCodes.count
    let failure = CrashGuard.guarding(input, by: publisher) {
      target.check(input, stats: &stats)
    }
    if let failure { return failure }
    // Keep inputs that reached something new: a poor man's coverage signal.
    if stats.messageKinds.count > kindsBefore || stats.fields.count > fieldsBefore
      || stats.errorCodes.count > errorsBefore
    {
      if pool.count >= poolLimit { pool[rng.below(pool.count)] = input } else { pool.append(input) }
    }
    return nil
  }

  private func shrunk(_ failure: FuzzFailure, target: FuzzTarget) -> FuzzFailure {
    var scratch = FuzzStats()
    let minimal = Shrinker().shrink(failure.input) { candidate in
      target.check(candidate, stats: &scratch)?.kind == failure.kind
    }
    // A round-trip failure comes from a generated message, not an input;
    // keep the encoded bytes when decoding them alone does not fail.
    if target.check(minimal, stats: &scratch)?.kind == failure.kind {
      var shrunk = failure
      shrunk.input = minimal
      return shrunk
    }
    return failure
  }
}
