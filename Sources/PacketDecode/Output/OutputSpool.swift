import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where one file's output goes while `decode --jobs N` decodes several at
/// once: into an unlinked temporary file until the file's turn comes, then
/// (after what was spooled is copied out) straight to the output.
///
/// The file whose turn it is writes to the output itself, as it is decoded:
/// output starts at once, and only the files decoded ahead of their turn
/// pass through the disk. A worker's `write` and the main thread's
/// `takeTurn` hold the same lock, so no byte overtakes another.
package final class OutputSpool: @unchecked Sendable {
  private let lock = NSLock()
  /// The output (stdout), written only by the spool whose turn it is.
  private let output: Int32
  /// The temporary file, already unlinked; -1 once the turn has come.
  private var spool: Int32
  private var spooled = 0
  /// Where the temporary file is, for a message when it cannot be written.
  private let directory: String

  /// Opens an unlinked temporary file in `directory` (nothing is left
  /// behind, even if pktbench is killed); nil when none can be made.
  package init?(output: Int32, directory: String) {
    var template = Array(
      ((directory.hasSuffix("/") ? directory : directory + "/") + "pktbench-spool-XXXXXX").utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { return nil }
    unlink(template)
    self.output = output
    self.spool = descriptor
    self.directory = directory
  }

  deinit {
    if spool >= 0 { close(spool) }
  }

  /// Whether the turn has come (writes go straight to the output).
  package var isDirect: Bool {
    lock.lock()
    defer { lock.unlock() }
    return spool < 0
  }

  /// Writes `bytes` to the spool, or to the output once it is this file's
  /// turn. A write either refuses ends pktbench as `OutputFailure` says: a
  /// temporary file that cannot hold a file's output loses it as surely
  /// as a full output does.
  package func write(_ bytes: UnsafeRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    if spool >= 0 {
      if let failure = OutputWriter.writeAll(spool, bytes) {
        OutputFailure.fail(errno: failure, what: "a temporary file of --jobs (in \(directory))")
      }
      spooled += bytes.count
    } else if let failure = OutputWriter.writeAll(output, bytes) {
      OutputFailure.fail(errno: failure, what: "the output")
    }
  }

  /// This file's turn: copies what was spooled to the output (in the
  /// kernel, by `sendfile`, where it can) and sends later writes straight
  /// there. The caller has flushed everything that comes before.
  package func takeTurn() {
    lock.lock()
    defer { lock.unlock() }
    guard spool >= 0 else { return }
    var offset = 0
    while offset < spooled {
      var position = off_t(offset)
      let sent = sendfile(output, spool, &position, spooled - offset)
      if sent > 0 {
        offset += sent
      } else if sent < 0 && errno == EINTR {
        continue
      } else {
        // The rest, by read and write: sendfile cannot write to every
        // output, and where the output itself refuses, the write says why.
        copyByReading(from: offset)
        break
      }
    }
    close(spool)
    spool = -1
  }

  /// The copy where `sendfile` cannot (an output it does not write to):
  /// read and write, a MiB at a time. A refusal ends pktbench
  /// (`OutputFailure`).
  private func copyByReading(from start: Int) {
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    var offset = start
    while offset < spooled {
      let read = chunk.withUnsafeMutableBytes { pread(spool, $0.baseAddress, $0.count, off_t(offset)) }
      if read < 0 && errno == EINTR { continue }
      guard read > 0 else {
        OutputFailure.fail(
          errno: read < 0 ? errno : EIO, what: "the output (reading back a temporary file of --jobs)")
      }
      let failure = chunk.withUnsafeBytes {
        OutputWriter.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<read]))
      }
      if let failure { OutputFailure.fail(errno: failure, what: "the output") }
      offset += read
    }
  }
}
