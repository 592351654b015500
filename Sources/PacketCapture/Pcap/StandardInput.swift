import CStream

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard input, looked at before it is read: its first bytes tell a
/// btsnoop log from a pcap or pcapng capture, or a capture from one
/// payload (`adb shell cat btsnoop_hci.log | pktbench decode -`). A pipe
/// cannot be read twice, so the bytes looked at are handed back in front
/// of the rest by a C stream of our own, and a reader sees all of it.
public final class StandardInput {
  /// The formats a capture on standard input can be in.
  public enum Format: Sendable, Equatable {
    case pcap, pcapng, btsnoop
  }

  /// The bytes read so far: the first `peek` bytes, or all of a shorter input.
  public private(set) var prefix: [UInt8]
  /// Whether standard input ended within `prefix`.
  public private(set) var ended: Bool
  private var opened = false

  /// Bytes enough to tell the formats apart (btsnoop's magic is eight).
  public static let peekLength = 8

  /// Reads the first `count` bytes of standard input (all of it, when it is
  /// shorter). Fails with one line when it cannot be read: closed, a
  /// directory, or an error of the device.
  public init(peeking count: Int = StandardInput.peekLength) throws(CaptureError) {
    prefix = []
    ended = false
    try readMore(upTo: count)
  }

  /// What the first bytes say the input is; nil when no capture format
  /// starts so.
  public var format: Format? {
    if prefix.count >= BtsnoopFile.magic.count,
      Array(prefix.prefix(BtsnoopFile.magic.count)) == BtsnoopFile.magic
    {
      return .btsnoop
    }
    guard prefix.count >= 4 else { return nil }
    let value = prefix.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    guard CaptureFileCheck.knownMagics.contains(value) else { return nil }
    return value == 0x0A0D_0D0A ? .pcapng : .pcap
  }

  /// All of standard input, when it is at most `limit` bytes; nil (having
  /// read `limit + 1` bytes, no more) when it is longer.
  public func readAll(limit: Int) throws(CaptureError) -> [UInt8]? {
    try readMore(upTo: limit + 1)
    return prefix.count > limit ? nil : prefix
  }

  /// Reads until `prefix` holds `count` bytes or the input ends.
  private func readMore(upTo count: Int) throws(CaptureError) {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while !ended, prefix.count < count {
      let wanted = min(chunk.count, count - prefix.count)
      let got = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, wanted) }
      if got < 0 {
        let code = errno
        if code == EINTR { throw CaptureError("standard input: interrupted while reading") }
        throw CaptureError(Self.describe(code))
      }
      if got == 0 {
        ended = true
      } else {
        prefix.append(contentsOf: chunk[0..<got])
      }
    }
  }

  static func describe(_ code: Int32) -> String {
    switch code {
    case EBADF: "standard input is closed: give a file, or pipe a capture in"
    case EISDIR: "standard input is a directory, not a capture or a payload"
    default: "cannot read standard input: \(String(cString: strerror(code)))"
    }
  }

  /// A C stream that reads `prefix`, then the rest of standard input; nil
  /// when the C library cannot make one. Once: the stream owns the rest.
  func open() -> UnsafeMutablePointer<FILE>? {
    guard !opened else { return nil }
    opened = true
    return prefix.withUnsafeBufferPointer {
      cstream_open_prefixed($0.baseAddress, $0.count, 0, ended ? 1 : 0)
    }
  }
}
