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
public enum CrashGuard {
  /// The most workers that can publish at once (`fuzz --jobs` allows as many).
  public static let slotCount = 64

  struct Slot {
    var input: UnsafeRawPointer?
    var count: Int
  }

  /// Never freed: the handler may read it at any time.
  nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Slot> = {
    let slots = UnsafeMutablePointer<Slot>.allocate(capacity: slotCount)
    slots.initialize(repeating: Slot(input: nil, count: 0), count: slotCount)
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
  nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
  nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?

  /// Arms the handler: a crash writes the input to `crashPath` and prints
  /// `reproduce` on stderr.
  public static func install(crashPath: String, reproduce: String) {
    _ = slots
    _ = claimedSlot
    path = strdup(crashPath)
    message = strdup(
      "\npktbench fuzz: the decoder crashed; input saved to \(crashPath)\n  reproduce: \(reproduce)\n")
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

  /// Where one worker publishes its inputs, claimed by the thread that
  /// runs it: each input then costs two stores, not a lookup.
  public struct Publisher {
    fileprivate let slot: UnsafeMutablePointer<Slot>
  }

  /// `worker`'s slot (0 to `slotCount - 1`), for the calling thread.
  public static func claim(worker: Int) -> Publisher {
    let index = min(max(worker, 0), slotCount - 1)
    pthread_setspecific(claimedSlot, UnsafeRawPointer(bitPattern: index + 1))
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

  /// The crashing thread's input, or (a crash outside any worker's check)
  /// the first one published.
  private static func crashingInput() -> Slot? {
    if let claimed = pthread_getspecific(claimedSlot) {
      let slot = slots[Int(bitPattern: claimed) - 1]
      if slot.input != nil, slot.count > 0 { return slot }
    }
    for index in 0..<slotCount {
      let slot = slots[index]
      if slot.input != nil, slot.count > 0 { return slot }
    }
    return nil
  }

  /// What a crash on this thread now would save (for tests: the handler
  /// itself must not allocate).
  static func inputToSave() -> [UInt8]? {
    guard let slot = crashingInput(), let input = slot.input else { return nil }
    return Array(UnsafeRawBufferPointer(start: input, count: slot.count))
  }

  private static let handler: @convention(c) (Int32) -> Void = { signal in
    if let path = CrashGuard.path {
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      if fd >= 0 {
        if let slot = CrashGuard.crashingInput(), let input = slot.input {
          _ = write(fd, input, slot.count)
        }
        close(fd)
      }
    }
    if let message = CrashGuard.message {
      _ = write(2, message, strlen(message))
    }
    raise(signal)
  }
}
