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
  /// Whether the destination is a terminal (colour, hex-by-default for craft).
  public let isTerminal: Bool

  public init(descriptor: Int32 = 1, flushThreshold: Int = 1 << 16) {
    self.descriptor = descriptor
    self.spool = nil
    self.flushThreshold = flushThreshold
    self.isTerminal = isatty(descriptor) == 1
    buffer = JSONWriter(capacity: flushThreshold + 4096)
  }

  /// A writer whose flushes go to `spool` (one file of `decode --jobs`).
  init(spool: OutputSpool, isTerminal: Bool, flushThreshold: Int = 1 << 16) {
    self.descriptor = -1
    self.spool = spool
    self.flushThreshold = flushThreshold
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

  /// Unbuffered stderr, for one-line errors.
  public static var standardError: OutputWriter { OutputWriter(descriptor: 2, flushThreshold: 0) }

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
  /// is. Left to the optimizer, a larger `flush` (the spool's) made this a
  /// call, and the renderers behind it calls too: 48 instructions more per
  /// summary line.
  @inline(__always)
  public func append(_ body: (inout JSONWriter) -> Void) {
    body(&buffer)
    if buffer.count >= flushThreshold { flush() }
  }

  @inline(never)
  public func flush() {
    buffer.withUnsafeBytes { bytes in
      if let spool {
        spool.write(bytes)
      } else {
        // A refusal (EPIPE: `| head`) drops the rest quietly.
        _ = Self.writeAll(descriptor, bytes)
      }
    }
    buffer.removeAll()
  }

  /// Writes every byte to `descriptor`, past short writes and EINTR; false
  /// when the descriptor refuses (EPIPE, a full disk).
  static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }

  deinit { flush() }
}
