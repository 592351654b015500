import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// All output goes through one buffered writer: `print` flushes too often
/// and formats through String interpolation on every call.
public final class OutputWriter {
  private var buffer: JSONWriter
  private let descriptor: Int32
  private let flushThreshold: Int
  /// Whether the destination is a terminal (colour, hex-by-default for craft).
  public let isTerminal: Bool

  public init(descriptor: Int32 = 1, flushThreshold: Int = 1 << 16) {
    self.descriptor = descriptor
    self.flushThreshold = flushThreshold
    self.isTerminal = isatty(descriptor) == 1
    buffer = JSONWriter(capacity: flushThreshold + 4096)
  }

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
  /// without an array per call.
  public func append(_ body: (inout JSONWriter) -> Void) {
    body(&buffer)
    if buffer.count >= flushThreshold { flush() }
  }

  public func flush() {
    var offset = 0
    let total = buffer.count
    while offset < total {
      let written = buffer.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Glibc.write(descriptor, base + offset, raw.count - offset)
      }
      if written <= 0 {
        if written < 0 && errno == EINTR { continue }
        break  // EPIPE (e.g. `| head`): drop the rest quietly
      }
      offset += written
    }
    buffer.removeAll()
  }

  deinit { flush() }
}
