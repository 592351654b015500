import Foundation
import PacketKit
import Synchronization

/// `fuzz --jobs N`: N runners at once, each on its own thread with its own
/// targets (a target keeps state between inputs) and its own seed, merged
/// into one report. Worker `i` runs seed `seed + i`, so worker 0 runs the
/// seed one job would, and each worker's run is as repeatable as one
/// runner's. A failure in one stops the others at their next slice.
public enum FuzzWorkers {
  /// The seed worker `worker` runs.
  public static func seed(_ seed: UInt64, worker: Int) -> UInt64 { seed &+ UInt64(worker) }

  /// The iterations per target worker `worker` of `jobs` runs: `total`
  /// shared out, the first workers taking one more when it does not divide.
  public static func iterations(_ total: Int, worker: Int, of jobs: Int) -> Int {
    total / jobs + (worker < total % jobs ? 1 : 0)
  }

  /// Runs `jobs` runners (at most `CrashGuard.slotCount`) over targets
  /// `makeTargets` builds, one set per worker. `configuration.progress` is
  /// called about once a second with the stats of all workers merged.
  public static func run(
    jobs: Int, makeTargets: @escaping @Sendable () -> [FuzzTarget], configuration: FuzzRunner.Configuration
  ) -> FuzzRunner.Report {
    let jobs = min(max(jobs, 1), CrashGuard.slotCount)
    guard jobs > 1 else { return FuzzRunner(targets: makeTargets(), configuration: configuration).run() }
    let stop = configuration.stop ?? FuzzStop()
    let board = Board(workers: jobs)
    let finished = DispatchSemaphore(value: 0)
    let start = monotonicNanoseconds()
    for worker in 0..<jobs {
      var mine = configuration
      mine.seed = seed(configuration.seed, worker: worker)
      mine.worker = worker
      mine.stop = stop
      mine.iterations = configuration.iterations.map { iterations($0, worker: worker, of: jobs) }
      mine.progress = { _, stats in board.post(stats, worker: worker) }
      let configuration = mine
      let thread = Thread {
        let report = FuzzRunner(targets: makeTargets(), configuration: configuration).run()
        board.finish(report, worker: worker)
        finished.signal()
      }
      thread.start()
    }
    var done = 0
    while done < jobs {
      if finished.wait(timeout: .now() + 1) == .success {
        done += 1
        continue
      }
      // Shown once every worker has posted: a table of some workers would
      // show their rate as if it were all of them.
      if let progress = configuration.progress, let merged = board.merged() {
        progress(Double(monotonicNanoseconds() &- start) / 1e9, merged)
      }
    }
    let elapsed = Double(monotonicNanoseconds() &- start) / 1e9
    let (failures, seeds) = board.failures()
    return FuzzRunner.Report(
      stats: board.merged() ?? [], failures: failures, seeds: seeds, elapsedSeconds: elapsed)
  }

  /// What the workers have posted: each one's latest stats, then its report.
  private final class Board: Sendable {
    private struct State {
      var stats: [[(String, FuzzStats)]]
      var failures: [[FuzzFailure]]
      var seeds: [[UInt64]]
    }

    private let state: Mutex<State>

    init(workers: Int) {
      state = Mutex(
        State(
          stats: Array(repeating: [], count: workers), failures: Array(repeating: [], count: workers),
          seeds: Array(repeating: [], count: workers)))
    }

    func post(_ stats: [(String, FuzzStats)], worker: Int) {
      state.withLock { $0.stats[worker] = stats }
    }

    func finish(_ report: FuzzRunner.Report, worker: Int) {
      state.withLock {
        $0.stats[worker] = report.stats
        $0.failures[worker] = report.failures
        $0.seeds[worker] = report.seeds
      }
    }

    /// Every worker's stats per target, merged, in the targets' order; nil
    /// until every worker has posted.
    func merged() -> [(String, FuzzStats)]? {
      state.withLock { state in
        guard state.stats.allSatisfy({ !$0.isEmpty }) else { return nil }
        var merged: [(String, FuzzStats)] = []
        for stats in state.stats {
          for (index, (name, target)) in stats.enumerated() {
            if index < merged.count { merged[index].1.merge(target) } else { merged.append((name, target)) }
          }
        }
        return merged
      }
    }

    /// Every worker's failures with their seeds, in worker order.
    func failures() -> ([FuzzFailure], [UInt64]) {
      state.withLock { ($0.failures.flatMap { $0 }, $0.seeds.flatMap { $0 }) }
    }
  }
}
