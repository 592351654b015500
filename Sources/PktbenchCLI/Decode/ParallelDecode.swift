import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `decode --jobs N a.pcap b.pcap …`: N worker threads each decode whole
/// files into a temporary file; the main thread copies them to the output
/// in the order given as soon as each is done, so memory stays bounded and
/// the output is the same as without --jobs.
struct ParallelDecode {
  let command: DecodeCommand
  let jobs: Int
  let color: Bool

  /// One file's outcome, written by a worker, read by the main thread after
  /// the file's semaphore is signalled.
  final class Slot: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var path = ""
    var failure: String?
    var error: String?
  }

  /// Hands out file indexes to workers.
  final class Queue: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    init(count: Int) { self.count = count }
    func take() -> Int? {
      lock.lock()
      defer { lock.unlock() }
      guard next < count else { return nil }
      next += 1
      return next - 1
    }
  }

  /// The command is an immutable value; each worker builds its own pipeline.
  struct Shared: @unchecked Sendable {
    let command: DecodeCommand
    let color: Bool
  }

  func run(out: OutputWriter) throws -> [String] {
    let inputs = command.inputs
    let slots = inputs.map { _ in Slot() }
    let queue = Queue(count: inputs.count)
    let shared = Shared(command: command, color: color)
    let directory = NSTemporaryDirectory()
    for _ in 0..<min(jobs, inputs.count) {
      let thread = Thread {
        while let index = queue.take() {
          let slot = slots[index]
          slot.path = directory + "pktbench-\(getpid())-\(index).out"
          let descriptor = open(slot.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
          if descriptor < 0 {
            slot.error = "cannot write a temporary file in \(directory)"
          } else {
            let writer = OutputWriter(descriptor: descriptor)
            do {
              slot.failure = try shared.command.decodeOne(inputs[index], out: writer, color: shared.color)
            } catch let failure as CommandFailure {
              slot.error = failure.message
            } catch {
              slot.error = "\(inputs[index]): \(error)"
            }
            writer.flush()
            close(descriptor)
          }
          slot.done.signal()
        }
      }
      thread.start()
    }
    var failures: [String] = []
    for slot in slots {
      slot.done.wait()
      out.flush()
      if let handle = FileHandle(forReadingAtPath: slot.path) {
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { out.bytes(chunk) }
        try? handle.close()
      }
      unlink(slot.path)
      if let error = slot.error { failures.append(error) }
      if let failure = slot.failure { failures.append(failure) }
    }
    return failures
  }
}
