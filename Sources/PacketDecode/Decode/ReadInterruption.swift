import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SIGINT and SIGTERM while `decode` or `analyze` reads a capture: the
/// reading stops after the record in hand, the outputs are closed (the
/// JSON array, the `--stats` summary, the report) and the command exits
/// 130. A second signal leaves at once, as the live commands' does.
///
/// A plain sigaction handler, not a dispatch source (`StopSignals`): it
/// only stores the signal, and without SA_RESTART it also interrupts a
/// read from an idle pipe (`tcpdump -w - | pktbench decode -`), which
/// would otherwise wait for the next packet before seeing the stop.
package final class ReadInterruption: Sendable {
  package static let shared = ReadInterruption()

  private let received = Atomic<Int32>(0)

  /// The signal that asked to stop, or 0. A relaxed load: the readers ask
  /// once per record.
  @inline(__always)
  package var signal: Int32 { received.load(ordering: .relaxed) }

  package var isSet: Bool { signal != 0 }

  package var signalName: String {
    switch signal {
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    default: "signal \(signal)"
    }
  }

  /// Arms the handler for SIGINT and SIGTERM (the default action, ending
  /// the process mid-record, is what is replaced). A signal the parent
  /// set to be ignored stays ignored (`nohup`, `cmd &` in sh); one it left
  /// blocked is unblocked, or Ctrl-C would do nothing at all.
  package func install() {
    _ = Self.shared  // made before a signal can ask for it
    for number in [SIGINT, SIGTERM] {
      var current = sigaction()
      sigaction(number, nil, &current)
      #if canImport(Glibc)
        let handler = current.__sigaction_handler.sa_handler
      #else
        let handler = current.__sigaction_u.__sa_handler
      #endif
      if unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
      var unblocked = sigset_t()
      sigemptyset(&unblocked)
      sigaddset(&unblocked, number)
      pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
      var action = sigaction()
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { number in ReadInterruption.received(number) }
      #else
        action.__sigaction_u.__sa_handler = { number in ReadInterruption.received(number) }
      #endif
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0
      sigaction(number, &action, nil)
    }
  }

  /// In the signal handler: only an atomic exchange, and _exit.
  private static func received(_ number: Int32) {
    if shared.received.exchange(number, ordering: .relaxed) != 0 { _exit(ExitStatus.interrupted) }
  }

  /// For tests: as if `number` had been received.
  func simulate(_ number: Int32) {
    received.store(number, ordering: .relaxed)
  }

  package func reset() {
    received.store(0, ordering: .relaxed)
  }
}
