#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A copy of some bytes opened as a read-only C `FILE` (fmemopen), so that
/// readers written against files — libpcap, the btsnoop reader — read the
/// fuzzer's inputs the way they read files. Whoever takes `file` closes it
/// (libpcap's `pcap_close` does) and then frees `memory`.
struct MemoryFile {
  let file: UnsafeMutablePointer<FILE>
  let memory: UnsafeMutableRawPointer

  /// Nil when the C library cannot open the copy.
  init?(_ bytes: [UInt8]) {
    // fmemopen refuses a size of 0 on some C libraries: an empty input is
    // one byte opened and read from its end.
    let size = max(bytes.count, 1)
    let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    bytes.withUnsafeBytes { source in
      if let base = source.baseAddress { memory.copyMemory(from: base, byteCount: source.count) }
    }
    guard let file = fmemopen(memory, size, "rb") else {
      memory.deallocate()
      return nil
    }
    if bytes.isEmpty { fseek(file, 1, SEEK_SET) }
    self.file = file
    self.memory = memory
  }
}
