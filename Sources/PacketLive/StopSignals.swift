import Dispatch
import Foundation
import PacketDecode

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns SIGINT (Ctrl-C) and SIGTERM into a clean stop: the handler runs on
/// a dispatch queue, never inside the signal, so it may do real work. A
/// second signal while stopping leaves at once (exit status 130).
///
/// With `patience`, a stop that has not ended the process that long after
/// the signal ends it (exit status 130, one line on stderr): the thread
/// that would stop may be blocked for good, writing to a pipe that nobody
/// reads (`pktbench listen … | a-reader-that-hangs`), and a signal must
/// still end the run.
package final class StopSignals: @unchecked Sendable {
  // Touched only on `queue` after init.
  private var sources: [DispatchSourceSignal] = []
  private var watchdog: DispatchSourceTimer?
  private var received = 0
  private let queue = DispatchQueue(label: "pktbench.stop-signals")

  package init(patience: Double? = nil, onStop: @escaping @Sendable (_ signalName: String) -> Void) {
    for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { [weak self] in
        guard let self else { return }
        self.received += 1
        if self.received > 1 { _exit(ExitStatus.interrupted) }
        if let patience { self.watch(name, patience) }
        onStop(name)
      }
      source.resume()
      sources.append(source)
    }
  }

  private func watch(_ name: String, _ patience: Double) {
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + patience)
    timer.setEventHandler {
      let line =
        "pktbench: \(name): still stopping after \(DurationText.of(patience)) (is the output being read?); "
        + "leaving without the rest\n"
      line.withCString { _ = write(2, $0, strlen($0)) }
      _exit(ExitStatus.interrupted)
    }
    timer.resume()
    watchdog = timer
  }

  deinit {
    for source in sources { source.cancel() }
    watchdog?.cancel()
  }
}

/// A stop request shared between a signal handler and a loop on another
/// thread (capture, replay): the first reason wins.
package final class StopFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var storedReason: String?

  package init() {}

  package func stop(_ reason: String) {
    lock.lock()
    defer { lock.unlock() }
    if storedReason == nil { storedReason = reason }
  }

  package var reason: String? {
    lock.lock()
    defer { lock.unlock() }
    return storedReason
  }

  package var isSet: Bool { reason != nil }
}
