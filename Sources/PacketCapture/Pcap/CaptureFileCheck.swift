#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns libpcap's terse open failures ("unknown file format") into one line
/// that says what is wrong with the file, by looking at it ourselves.
enum CaptureFileCheck {
  /// First four bytes (as stored) of the formats libpcap reads: pcap in both
  /// byte orders with micro- and nanosecond stamps, Kuznetzov's modified pcap,
  /// and the pcapng section header block type.
  static let knownMagics: Set<UInt32> = [
    0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1, 0xA1B2_CD34, 0x34CD_B2A1, 0x0A0D_0D0A,
  ]

  static func openFailure(path: String, libpcapMessage: String) -> CaptureError {
    var info = stat()
    guard stat(path, &info) == 0 else {
      return CaptureError("cannot open \(path): \(reason(errno))")
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      return CaptureError("\(path) is a directory, not a capture file")
    }
    guard let file = fopen(path, "rb") else {
      return CaptureError("cannot open \(path): \(reason(errno))")
    }
    defer { fclose(file) }
    var magic = [UInt8](repeating: 0, count: 4)
    let count = fread(&magic, 1, 4, file)
    if count == 0 {
      return CaptureError("\(path) is empty, not a pcap or pcapng file")
    }
    if count < 4 {
      return CaptureError("\(path) is not a pcap or pcapng file (only \(count) bytes long)")
    }
    let value = magic.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    if !knownMagics.contains(value) {
      return CaptureError("\(path) is not a pcap or pcapng file (magic \(hex32(value)))")
    }
    return CaptureError("cannot read \(path): \(libpcapMessage)")
  }

  static func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
  }

  private static func reason(_ code: Int32) -> String {
    switch code {
    case ENOENT: "no such file"
    case EACCES: "permission denied"
    case ENOTDIR: "a component of the path is not a directory"
    default:
      if let text = strerror(code) { String(cString: text) } else { "error \(code)" }
    }
  }
}

/// A C string in a fixed buffer (libpcap's error buffer) as a Swift string.
func string(fromCBuffer buffer: [CChar]) -> String {
  let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  return String(decoding: bytes, as: UTF8.self)
}
