import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A trap (a Swift runtime check, a crash) kills the process before the
/// runner can save anything, so the input under test is published here
/// first and a signal handler writes it to the crash file with
/// async-signal-safe calls only, then lets the signal kill the process.
///
/// Each worker of `fuzz --jobs` publishes in its own slot, and its thread
/// keeps that slot's number in a thread-specific value: the handler runs on
/// the thread that crashed and saves the input of the slot that thread
/// claimed. (Matching slots by `pthread_t` instead was wrong: a dead
/// thread's id is reused by the next thread, which then "owned" a slot
/// another runner was still publishing in.)
///
/// The file is named for the target under test and the worker's seed
/// (`crash-falconeye-seed17.bin`), so `fuzz --reproduce` knows the target
/// from the name, as it does for a failure the runner saved itself.
public enum CrashGuard {
  /// The most workers that can publish at once (`fuzz --jobs` allows as many).
  public static let slotCount = 64

  struct Slot {
    var input: UnsafeRawPointer?
    var count: Int
    /// The target under test (an index into the installed names), or -1.
    var target: Int
  }

  /// Where a crash's input goes and what is printed: made when installed,
  /// for each worker and target, so the handler only picks one.
  struct Report {
    var path: UnsafeMutablePointer<CChar>
    var message: UnsafeMutablePointer<CChar>
  }

  /// Never freed: the handler may read it at any time.
  nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Slot> = {
    let slots = UnsafeMutablePointer<Slot>.allocate(capacity: slotCount)
    slots.initialize(repeating: Slot(input: nil, count: 0, target: -1), count: slotCount)
    return slots
  }()
  /// The calling thread's claimed slot number plus one (nil: none).
  /// Reading it is a load from the thread's own descriptor in glibc and
  /// Darwin, so the handler may.
  private static let claimedSlot: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left for the crash guard")
    return key
  }()
  /// `reports[worker * targetCount + target]`, and last the one for a
  /// crash whose target is unknown. Written once, before the workers start
  /// (the handler cannot take a lock).
  nonisolated(unsafe) private static var reports: [Report] = []
  nonisolated(unsafe) private static var targetCount = 0
  nonisolated(unsafe) private static var workers = 0
  /// The targets' names, for runners to look theirs up (under the lock: a
  /// runner of another test may start while one prepares).
  nonisolated(unsafe) private static var targetNames: [String] = []
  private static let namesLock = NSLock()
  nonisolated(unsafe) private static var noInput: UnsafeMutablePointer<CChar>?

  /// Arms the handler: a crash of worker `w` while it checks an input of
  /// target `t` writes the input to `directory/crash-t-seed(seed+w).bin`
  /// and prints the command that replays it.
  public static func install(directory: String, seed: UInt64, jobs: Int, targets: [String]) {
    prepare(directory: directory, seed: seed, jobs: jobs, targets: targets)
    for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
      var action = sigaction()
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
      #else
        action.__sigaction_u.__sa_handler = handler
      #endif
      action.sa_flags = Int32(bitPattern: UInt32(truncatingIfNeeded: SA_RESETHAND))
      sigaction(signal, &action, nil)
    }
  }

  /// `install` without the signal handlers (for tests).
  static func prepare(directory: String, seed: UInt64, jobs: Int, targets: [String]) {
    _ = slots
    _ = claimedSlot
    func report(_ path: String, _ reproduce: String) -> Report {
      Report(
        path: strdup(path),
        message: strdup(
          "\npktbench fuzz: the decoder crashed; input saved to \(path)\n  reproduce: \(reproduce)\n"))
    }
    workers = min(max(jobs, 1), slotCount)
    targetCount = targets.count
    namesLock.withLock { targetNames = targets }
    reports = (0..<workers).flatMap { worker in
      targets.map { target in
        let path = "\(directory)/crash-\(target)-seed\(seed &+ UInt64(worker)).bin"
        return report(path, "pktbench fuzz --reproduce \(path)")
      }
    }
    let pending = "\(directory)/crash-pending-seed\(seed).bin"
    reports.append(report(pending, "pktbench fuzz --reproduce \(pending) --codec <target>"))
    noInput = strdup(
      "\npktbench fuzz: crashed outside the check of an input (generating, mutating or a round trip);"
        + " no input to save: the seed above and --codec replay it\n")
  }

  /// The index `name` has among the installed targets, or -1.
  static func targetIndex(_ name: String) -> Int {
    namesLock.withLock { targetNames.firstIndex(of: name) ?? -1 }
  }

  /// Where one worker publishes its inputs, claimed by the thread that
  /// runs it: each input then costs two stores, not a lookup.
  public struct Publisher {
    fileprivate let slot: UnsafeMutablePointer<Slot>

    /// The target whose inputs come next (`targetIndex`), for the crash
    /// file's name.
    public func working(on target: Int) {
      slot.pointee.target = target
    }
  }

  /// `worker`'s slot (0 to `slotCount - 1`), for the calling thread.
  public static func claim(worker: Int) -> Publisher {
    let index = min(max(worker, 0), slotCount - 1)
    pthread_setspecific(claimedSlot, UnsafeRawPointer(bitPattern: index + 1))
    slots[index].target = -1
    return Publisher(slot: slots + index)
  }

  /// Runs `body` with `input` published, through `publisher`, as the one
  /// to save on a crash of the thread that claimed it.
  @inline(__always)
  public static func guarding<T>(_ input: [UInt8], by publisher: Publisher, _ body: () -> T) -> T {
    input.withUnsafeBytes { buffer in
      let slot = publisher.slot
      slot.pointee.input = buffer.baseAddress
      slot.pointee.count = buffer.count
      defer {
        slot.pointee.input = nil
        slot.pointee.count = 0
      }
      return body()
    }
  }

  /// The crashing thread's slot when it holds an input, or (a crash outside
  /// any worker's check) the first slot that does.
  private static func crashingSlot() -> Int? {
    if let claimed = pthread_getspecific(claimedSlot) {
      let index = Int(bitPattern: claimed) - 1
      if slots[index].input != nil, slots[index].count > 0 { return index }
    }
    for index in 0..<slotCount where slots[index].input != nil && slots[index].count > 0 {
      return index
    }
    return nil
  }

  /// The report for a crash with slot `index`'s input.
  private static func report(forSlot index: Int) -> Report? {
    guard !reports.isEmpty else { return nil }
    let target = slots[index].target
    guard index < workers, target >= 0, target < targetCount else { return reports[reports.count - 1] }
    return reports[index * targetCount + target]
  }

  /// What a crash on this thread now would save, and where (for tests:
  /// the handler itself must not allocate).
  static func inputToSave() -> [UInt8]? {
    guard let index = crashingSlot(), let input = slots[index].input else { return nil }
    return Array(UnsafeRawBufferPointer(start: input, count: slots[index].count))
  }

  static func pathToSave() -> String? {
    guard let index = crashingSlot(), let report = report(forSlot: index) else { return nil }
    return String(cString: report.path)
  }

  private static let handler: @convention(c) (Int32) -> Void = { signal in
    if let index = CrashGuard.crashingSlot(), let report = CrashGuard.report(forSlot: index),
      case let slot = CrashGuard.slots[index], let input = slot.input
    {
      let fd = open(report.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      if fd >= 0 {
        _ = write(fd, input, slot.count)
        close(fd)
      }
      _ = write(2, report.message, strlen(report.message))
    } else if let message = CrashGuard.noInput {
      _ = write(2, message, strlen(message))
    }
    raise(signal)
  }
}
