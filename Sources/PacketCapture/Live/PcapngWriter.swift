#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a pcapng file as packets arrive: the section header and one
/// interface description first, then an enhanced packet block per packet,
/// with nanosecond timestamps, and on `close` an interface statistics
/// block with the capture's end time. Output is buffered; `flush` pushes what is
/// buffered to the file so a reader (or a crash) sees whole blocks only.
public final class PcapngWriter {
  /// The path given, or "-" for standard output.
  public let path: String
  private let descriptor: Int32
  private let ownsDescriptor: Bool
  /// With `replacing`: the temporary file renamed over `path` on `close`.
  private let replacement: ReplacingFile?
  private var buffer: [UInt8] = []
  private let flushThreshold = 1 << 16
  private var closed = false
  /// Packets written so far.
  public private(set) var packetsWritten = 0
  /// Bytes written so far, headers included.
  public private(set) var bytesWritten = 0

  /// Creates (or truncates) `path` and writes the headers for one interface.
  /// `replacing`: write beside `path` and rename over it on `close`, so
  /// that `path` keeps its old contents until the new ones are whole (and
  /// keeps them when the writer is dropped unclosed, after an error).
  public init(
    path: String, linkType: Int32, snapshotLength: Int, interfaceName: String? = nil,
    application: String? = "pktbench", replacing: Bool = false
  ) throws(CaptureError) {
    self.path = path
    if path == "-" {
      descriptor = 1
      ownsDescriptor = false
      replacement = nil
    } else if replacing {
      let file = try ReplacingFile(path: path)
      descriptor = file.descriptor
      ownsDescriptor = false
      replacement = file
    } else {
      replacement = nil
      let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard opened >= 0 else {
        throw CaptureError("cannot write '\(path)': \(String(cString: strerror(errno)))")
      }
      descriptor = opened
      ownsDescriptor = true
    }
    buffer.reserveCapacity(flushThreshold + 4096)
    buffer += PcapngBlocks.sectionHeader(application: application)
    buffer += PcapngBlocks.interfaceDescription(
      linkType: linkType, snapshotLength: UInt32(clamping: snapshotLength), name: interfaceName)
    do {
      try flush()
    } catch {
      replacement?.discard()
      throw error
    }
  }

  deinit {
    if let replacement {
      if !closed { replacement.discard() }
    } else {
      try? close()
    }
  }

  /// Appends one packet seen on the interface.
  public func write(timeNanoseconds: UInt64, data: UnsafeRawBufferPointer, originalLength: Int)
    throws(CaptureError)
  {
    guard !closed else { throw CaptureError("'\(path)' is already closed") }
    PcapngBlocks.appendEnhancedPacket(
      interface: 0, timeNanoseconds: timeNanoseconds, data: data, originalLength: originalLength,
      to: &buffer)
    packetsWritten += 1
    if buffer.count >= flushThreshold { try flush() }
  }

  /// Writes what is buffered.
  public func flush() throws(CaptureError) {
    var offset = 0
    defer {
      bytesWritten += offset
      buffer.removeFirst(offset)
    }
    while offset < buffer.count {
      let written = buffer.withUnsafeBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Glibc.write(descriptor, base + offset, raw.count - offset)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else {
        throw CaptureError("cannot write '\(path)': \(String(cString: strerror(errno)))")
      }
      offset += written
    }
  }

  /// Records that the capture ran from `startNanoseconds` to
  /// `endNanoseconds` (Unix time) with the kernel's counts, flushes and
  /// closes the file; later writes fail. Without an end time it only closes.
  public func close(
    startNanoseconds: UInt64? = nil, endNanoseconds: UInt64? = nil, received: UInt64? = nil,
    dropped: UInt64? = nil
  ) throws(CaptureError) {
    guard !closed else { return }
    closed = true
    defer { if ownsDescriptor { _ = Glibc.close(descriptor) } }
    if let endNanoseconds {
      buffer += PcapngBlocks.interfaceStatistics(
        startNanoseconds: startNanoseconds, endNanoseconds: endNanoseconds, received: received,
        dropped: dropped)
    }
    do {
      try flush()
    } catch {
      replacement?.discard()
      throw error
    }
    try replacement?.commit()
  }
}
