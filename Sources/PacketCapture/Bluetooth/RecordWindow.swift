#if canImport(Glibc)
  import Glibc
#endif

/// A capture file read through one fixed window, for the readers that parse
/// records in place (btsnoop, PacketLogger). A record that crosses the
/// window's end is moved to the front before more is read, so memory stays
/// the window whatever the file. From a pipe it asks stdio only for what
/// the next record needs: `fread` on a pipe waits for all it is asked, and a
/// paused writer's records (a log still being written) would wait with it.
struct RecordWindow {
  private let base: UnsafeMutableRawPointer
  private let capacity: Int
  private let file: UnsafeMutablePointer<FILE>
  private let readsWhatItNeeds: Bool
  /// The next record's first byte in the window.
  private var start = 0
  /// Bytes read into the window.
  private var end: Int
  /// Set when reading failed (not at the end of the file).
  private(set) var readError: String?

  /// `filled`: bytes already in the window from its start (read while the
  /// file's format was being recognised).
  init(
    _ base: UnsafeMutableRawPointer, capacity: Int, file: UnsafeMutablePointer<FILE>, readsWhatItNeeds: Bool,
    filled: Int = 0
  ) {
    self.base = base
    self.capacity = capacity
    self.file = file
    self.readsWhatItNeeds = readsWhatItNeeds
    end = filled
  }

  /// Bytes read and not yet consumed.
  var count: Int { end - start }

  /// Makes `need` bytes from the next record's start available, reading
  /// more when the file has them; says whether it could.
  @inline(__always)
  mutating func fill(_ need: Int) -> Bool {
    if end - start >= need { return true }
    return refill(need)
  }

  private mutating func refill(_ need: Int) -> Bool {
    if start > 0 {
      base.copyMemory(from: base + start, byteCount: end - start)
      end -= start
      start = 0
    }
    while end < need, readError == nil {
      let got = fread(base + end, 1, (readsWhatItNeeds ? need : capacity) - end, file)
      end += got
      if got == 0 {
        if ferror(file) != 0 { readError = String(cString: strerror(errno)) }
        break
      }
    }
    return end - start >= need
  }

  /// `count` bytes at `offset` from the next record's start (made available
  /// by `fill`).
  @inline(__always)
  func bytes(at offset: Int, count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base + start + offset, count: count)
  }

  /// Moves past a record of `length` bytes.
  @inline(__always)
  mutating func consume(_ length: Int) {
    start += length
  }
}
