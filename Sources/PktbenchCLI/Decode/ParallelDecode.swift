import Foundation
import PacketDecode
import PacketKit

#if canImport(Glibc)
  import Glibc
#endif

/// `decode --jobs N a.pcap b.pcap …`: N worker threads each decode whole
/// files. The file whose turn it is in the order given writes straight to
/// the output as it is decoded; a file decoded ahead of its turn goes to an
/// unlinked temporary file (`OutputSpool`), copied out when its turn comes.
/// Workers run at most `window` files ahead of the turn, so at most that
/// many temporary files are open. Memory stays bounded, output starts at
/// once, and it is the same as without --jobs.
struct ParallelDecode {
  let command: DecodeCommand
  let codecs: CodecSet
  let jobs: Int
  let color: Bool
  /// The output's descriptor, written by the spool whose turn it is.
  private let descriptor: Int32
  private let directory = NSTemporaryDirectory()
  /// How many files, from the one whose turn it is, may be decoded at once.
  private let window: Int
  /// One per input; those in the first window have their spools already.
  private let slots: [Slot]

  /// Nil when no temporary file can be made (the caller decodes one file
  /// at a time instead).
  init?(command: DecodeCommand, codecs: CodecSet, jobs: Int, color: Bool, descriptor: Int32 = 1) {
    self.command = command
    self.codecs = codecs
    self.jobs = jobs
    self.color = color
    self.descriptor = descriptor
    window = jobs * 4
    slots = command.inputs.map { _ in Slot() }
    for slot in slots.prefix(window) {
      slot.spool = OutputSpool(output: descriptor, directory: directory)
    }
    guard slots.first?.spool != nil else { return nil }
  }

  /// One file's spool and outcome. The main thread sets `spool` before the
  /// file enters the window; the worker writes the outcome, read by the main
  /// thread after `done` is signalled.
  final class Slot: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    /// Nil when the temporary file could not be made.
    var spool: OutputSpool?
    var failure: String?
    var error: CommandFailure?
  }

  /// Hands out file indexes to workers, below a limit the main thread raises
  /// as turns pass.
  final class Queue: @unchecked Sendable {
    private let condition = NSCondition()
    private var next = 0
    private var limit: Int
    private let count: Int
    init(count: Int, limit: Int) {
      self.count = count
      self.limit = limit
    }
    func take() -> Int? {
      condition.lock()
      defer { condition.unlock() }
      while next < count && next >= limit { condition.wait() }
      guard next < count else { return nil }
      next += 1
      return next - 1
    }
    func open(upTo newLimit: Int) {
      condition.lock()
      limit = newLimit
      condition.broadcast()
      condition.unlock()
    }
  }

  /// The command is an immutable value; each worker builds its own pipeline.
  struct Shared: @unchecked Sendable {
    let command: DecodeCommand
    let codecs: CodecSet
    let color: Bool
    let lineBuffered: Bool
  }

  func run(out: OutputWriter) throws -> [CommandFailure] {
    let inputs = command.inputs
    let slots = self.slots
    let queue = Queue(count: inputs.count, limit: window)
    let shared = Shared(command: command, codecs: codecs, color: color, lineBuffered: out.isLineBuffered)
    // Whatever was written before goes out before the first file's output.
    out.flush()
    for _ in 0..<min(jobs, inputs.count) {
      let thread = Thread {
        while let index = queue.take() {
          let slot = slots[index]
          if ReadInterruption.shared.isSet {
            // Stopped by a signal: files not begun are not begun.
          } else if let spool = slot.spool {
            let writer = OutputWriter(
              spool: spool, isTerminal: false, flushThreshold: shared.lineBuffered ? 0 : 1 << 16)
            do {
              slot.failure = try shared.command.decodeOne(
                inputs[index], codecs: shared.codecs, out: writer, color: shared.color)
            } catch let failure as CommandFailure {
              slot.error = failure
            } catch {
              slot.error = CommandFailure("\(inputs[index]): \(error)", status: ExitStatus.unreadable)
            }
            writer.flush()
          } else {
            slot.error = CommandFailure(
              "\(inputs[index]): not decoded: cannot make a temporary file in \(directory)",
              status: ExitStatus.output)
          }
          slot.done.signal()
        }
      }
      thread.start()
    }
    var failures: [CommandFailure] = []
    for (index, slot) in slots.enumerated() {
      slot.spool?.takeTurn()
      slot.done.wait()
      slot.spool = nil  // its temporary file closes, and so goes
      if let error = slot.error { failures.append(error) }
      if let failure = slot.failure { failures.append(CommandFailure(failure, status: ExitStatus.failed)) }
      let entering = index + window
      if entering < inputs.count {
        slots[entering].spool = OutputSpool(output: descriptor, directory: directory)
        queue.open(upTo: entering + 1)
      }
    }
    return failures
  }
}
