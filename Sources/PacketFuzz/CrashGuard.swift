#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A trap (a Swift runtime check, a crash) kills the process before the
/// runner can save anything, so the input under test is published here
/// first and a signal handler writes it to the crash file with
/// async-signal-safe calls only, then lets the signal kill the process.
public enum CrashGuard {
  nonisolated(unsafe) private static var current: UnsafeRawPointer?
  nonisolated(unsafe) private static var currentCount = 0
  nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
  nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?

  /// Arms the handler: a crash writes the input to `crashPath` and prints
  /// `reproduce` on stderr.
  public static func install(crashPath: String, reproduce: String) {
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

  /// Runs `body` with `input` published as the one to save on a crash.
  @inline(__always)
  public static func guarding<T>(_ input: [UInt8], _ body: () -> T) -> T {
    input.withUnsafeBytes { buffer in
      current = buffer.baseAddress
      currentCount = buffer.count
      defer {
        current = nil
        currentCount = 0
      }
      return body()
    }
  }

  private static let handler: @convention(c) (Int32) -> Void = { signal in
    if let path = CrashGuard.path {
      let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
      if fd >= 0 {
        if let current = CrashGuard.current, CrashGuard.currentCount > 0 {
          _ = write(fd, current, CrashGuard.currentCount)
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
