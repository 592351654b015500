import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The first bytes of standard input, looked at without taking them from
/// whoever reads it next: a PacketLogger file has no magic number that
/// libpcap knows, so its format is told by content before a reader is
/// chosen. A file is read at its position and left there; a pipe cannot be
/// read twice, so descriptor 0 becomes a new pipe that a thread fills with
/// the bytes looked at, then with the rest of the old one.
enum StandardInputPeek {
  /// Up to `count` bytes (fewer when the input is shorter).
  static func peek(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let position = lseek(0, 0, SEEK_CUR)
    if position >= 0 {
      let got = bytes.withUnsafeMutableBytes { pread(0, $0.baseAddress, count, position) }
      return Array(bytes.prefix(max(got, 0)))
    }
    var got = 0
    while got < count {
      let more = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress.map { $0 + got }, count - got) }
      if more < 0, errno == EINTR { continue }
      if more <= 0 { break }
      got += more
    }
    let taken = Array(bytes.prefix(got))
    handBack(taken)
    return taken
  }

  /// Makes descriptor 0 read `prefix`, then the rest of what it read before.
  /// When that cannot be done, the bytes are lost and the reader sees the
  /// rest only: it then says the input is not a capture.
  private static func handBack(_ prefix: [UInt8]) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return }
    let original = dup(0)
    guard original >= 0, dup2(ends[0], 0) >= 0 else {
      close(ends[0])
      close(ends[1])
      if original >= 0 { close(original) }
      return
    }
    close(ends[0])
    let writeEnd = ends[1]
    // SIGPIPE is ignored (main.swift): a reader that gives up early ends
    // the copy with EPIPE.
    Thread.detachNewThread {
      defer {
        close(writeEnd)
        close(original)
      }
      var buffer = prefix
      var length = prefix.count
      while true {
        var sent = 0
        while sent < length {
          let wrote = buffer.withUnsafeBytes {
            write(writeEnd, $0.baseAddress.map { $0 + sent }, length - sent)
          }
          if wrote < 0, errno == EINTR { continue }
          if wrote <= 0 { return }
          sent += wrote
        }
        if buffer.count < 1 << 16 { buffer = [UInt8](repeating: 0, count: 1 << 16) }
        length = buffer.withUnsafeMutableBytes { read(original, $0.baseAddress, $0.count) }
        if length < 0, errno == EINTR {
          length = 0
          continue
        }
        if length <= 0 { return }
      }
    }
  }
}
