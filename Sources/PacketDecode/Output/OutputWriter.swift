import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// All output goes through one buffered writer: `print` flushes too often
/// and formats through String interpolation on every call.
public final class OutputWriter {
  @exclusivity(unchecked) private var buffer: JSONWriter
  private let descriptor: Int32
  /// Where a `decode --jobs` worker's output goes instead of `descriptor`.
  private let spool: OutputSpool?
  private let flushThreshold: Int
  /// What a refused write does (its errno given); `OutputFailure.stop`
  /// for stdout: output that cannot be written must not pass in silence.
  private let onFailure: (Int32) -> Void
  /// Whether the destination is a terminal (colour, hex-by-default for craft).
  public let isTerminal: Bool

  public init(
    descriptor: Int32 = 1, flushThreshold: Int = 1 << 16,
    onFailure: @escaping (Int32) -> Void = OutputFailure.stop
  ) {
    self.descriptor = descriptor
    self.spool = nil
    self.flushThreshold = flushThreshold
    self.onFailure = onFailure
    self.isTerminal = isatty(descriptor) == 1
    buffer = JSONWriter(capacity: flushThreshold + 4096)
  }

  /// A writer whose flushes go to `spool` (one file of `decode --jobs`),
  /// which reports its own failures.
  package init(spool: OutputSpool, isTerminal: Bool, flushThreshold: Int = 1 << 16) {
    self.descriptor = -1
    self.spool = spool
    self.flushThreshold = flushThreshold
    self.onFailure = { _ in }
    self.isTerminal = isTerminal
    buffer = JSONWriter(capacity: flushThreshold + 4096)
  }

  /// stdout for decoded messages: buffered, or written a message (a line,
  /// or one call's output) at a time when `lineBuffered` or when stdout is
  /// a terminal, as stdio and `tcpdump -l` do, so that input read live
  /// shows as it arrives.
  public static func messages(lineBuffered: Bool) -> OutputWriter {
    OutputWriter(flushThreshold: lineBuffered || isatty(1) == 1 ? 0 : 1 << 16)
  }

  /// Whether every write goes out at once (a flush threshold of 0).
  public var isLineBuffered: Bool { flushThreshold == 0 }

  /// Unbuffered stderr, for one-line errors. A stderr that refuses them
  /// has nowhere to say so: its failures are ignored.
  public static var standardError: OutputWriter {
    OutputWriter(descriptor: 2, flushThreshold: 0, onFailure: { _ in })
  }

  public func write(_ text: String) {
    buffer.append(utf8: text)
    if buffer.count >= flushThreshold { flush() }
  }

  public func line(_ text: String = "") {
    buffer.append(utf8: text)
    buffer.append(0x0A)
    if buffer.count >= flushThreshold { flush() }
  }

  public func bytes<C: Collection>(_ bytes: C) where C.Element == UInt8 {
    let copied: Void? = bytes.withContiguousStorageIfAvailable {
      self.buffer.append(bytes: UnsafeRawBufferPointer($0))
    }
    if copied == nil { buffer.append(contentsOf: Array(bytes)) }
    if buffer.count >= flushThreshold { flush() }
  }

  /// Output written straight into the buffer (JSON objects, summary lines),
  /// without an array per call. Always inlined, so that `body` (a sink's
  /// renderer) is compiled into its caller; `flush`, the rare part, never
  /// is (left to the optimizer, a larger `flush` made this and the
  /// renderers behind it calls).
  @inline(__always)
  public func append(_ body: (inout JSONWriter) -> Void) {
    body(&buffer)
    if buffer.count >= flushThreshold { flush() }
  }

  @inline(never)
  public func flush() {
    let failure: Int32? = buffer.withUnsafeBytes { bytes in
      if let spool {
        spool.write(bytes)
        return nil
      }
      return Self.writeAll(descriptor, bytes)
    }
    buffer.removeAll()
    if let failure { onFailure(failure) }
  }

  /// Writes every byte to `descriptor`, past short writes and EINTR; the
  /// errno when the descriptor refuses (EPIPE, ENOSPC), else nil.
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard let base = bytes.baseAddress else { return nil }
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return written < 0 ? errno : EIO }
      offset += written
    }
    return nil
  }

  deinit { flush() }
}

/// What pktbench does when its output refuses a write.
public enum OutputFailure {
  /// A closed pipe (`pktbench decode big.pcap | head -1`) ends pktbench at
  /// once and quietly, by SIGPIPE, as tcpdump and the shell's own tools
  /// end: the rest of the output has no reader. Any other error (a full
  /// disk, /dev/full, EIO) is one line on stderr and exit status 74: the
  /// output is lost, and a status of 0 would say it was written.
  public static func stop(errno code: Int32) {
    fail(errno: code, what: "the output")
  }

  /// `stop`, as the closure a writer takes.
  public static let stop: @Sendable (Int32) -> Void = { stop(errno: $0) }

  /// Ends the process; `what` names the file that refused (the output, or
  /// a temporary file of `decode --jobs`). Callable from any thread: it
  /// writes with write(2) and leaves by _exit, touching no shared state.
  package static func fail(errno code: Int32, what: String) -> Never {
    if code == EPIPE {
      var blocked = sigset_t()
      sigemptyset(&blocked)
      sigaddset(&blocked, SIGPIPE)
      pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
      signal(SIGPIPE, SIG_DFL)
      raise(SIGPIPE)
      _exit(128 + SIGPIPE)
    }
    let line = "pktbench: cannot write \(what): \(String(cString: strerror(code)))\n"
    line.withCString { _ = Glibc.write(2, $0, strlen($0)) }
    _exit(ExitStatus.output)
  }
}
