import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns SIGINT (Ctrl-C) and SIGTERM into a clean stop: the handler runs on
/// a dispatch queue, never inside the signal, so it may do real work. A
/// second signal while stopping leaves at once (exit status 130).
final class StopSignals: @unchecked Sendable {
  // Touched only on `queue` after init.
  private var sources: [DispatchSourceSignal] = []
  private var received = 0
  private let queue = DispatchQueue(label: "pktbench.stop-signals")

  init(onStop: @escaping @Sendable (_ signalName: String) -> Void) {
    for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { [weak self] in
        guard let self else { return }
        self.received += 1
        if self.received > 1 { _exit(130) }
        onStop(name)
      }
      source.resume()
      sources.append(source)
    }
  }

  deinit {
    for source in sources { source.cancel() }
  }
}

/// A stop request shared between a signal handler and a loop on another
/// thread (capture, replay): the first reason wins.
final class StopFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var storedReason: String?

  func stop(_ reason: String) {
    lock.lock()
    defer { lock.unlock() }
    if storedReason == nil { storedReason = reason }
  }

  var reason: String? {
    lock.lock()
    defer { lock.unlock() }
    return storedReason
  }

  var isSet: Bool { reason != nil }
}
