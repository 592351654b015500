#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file written beside its destination, under a hidden temporary name in
/// the same directory, and renamed over the destination only when whole:
/// until then the old file stays as it was, and a run that fails leaves no
/// half-written file behind. A destination that is a symbolic link is
/// followed (the file it names is replaced, the link stays); one that is not
/// a regular file (a FIFO, /dev/null) is written in place, as before.
struct ReplacingFile {
  /// Where the file ends up (a link resolved).
  let destination: String
  /// The temporary file, nil when the destination is written in place.
  let temporary: String?
  let descriptor: Int32

  init(path: String) throws(CaptureError) {
    var info = stat()
    let exists = stat(path, &info) == 0
    if exists, info.st_mode & S_IFMT != S_IFREG {
      let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      guard opened >= 0 else { throw Self.failure(path) }
      destination = path
      temporary = nil
      descriptor = opened
      return
    }
    destination = exists ? Self.resolved(path) : path
    let directory = Self.directory(of: destination)
    let name = destination.split(separator: "/").last.map(String.init) ?? "pktbench"
    var template = Array("\(directory)/.\(name).pktbench-XXXXXX".utf8CString)
    let opened = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    guard opened >= 0 else { throw Self.failure(path) }
    _ = fcntl(opened, F_SETFD, FD_CLOEXEC)
    // mkstemp wrote the name it chose over the X's.
    temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    descriptor = opened
    // mkstemp makes 0600; the file gets what a new file gets (or the old one's mode).
    let mask = umask(0)
    umask(mask)
    _ = fchmod(opened, exists ? info.st_mode & 0o7777 : 0o644 & ~mask)
  }

  /// Closes the descriptor and puts the file in place.
  func commit() throws(CaptureError) {
    let closed = close(descriptor)
    guard let temporary else {
      if closed != 0 { throw Self.failure(destination) }
      return
    }
    guard closed == 0, rename(temporary, destination) == 0 else {
      let error = Self.failure(destination)
      unlink(temporary)
      throw error
    }
  }

  /// Closes the descriptor and removes the temporary file: the destination is untouched.
  func discard() {
    close(descriptor)
    if let temporary { unlink(temporary) }
  }

  private static func failure(_ path: String) -> CaptureError {
    CaptureError("cannot write '\(path)': \(String(cString: strerror(errno)))")
  }

  private static func resolved(_ path: String) -> String {
    guard let real = realpath(path, nil) else { return path }
    defer { free(real) }
    return String(cString: real)
  }

  private static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
