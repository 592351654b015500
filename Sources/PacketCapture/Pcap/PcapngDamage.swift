#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds where the pcapng block libpcap refused starts. libpcap reports
/// only how far it read, which is 8 to 12 bytes into a block whose header
/// is bad, or the end of a block whose contents are; the user needs the
/// block's own offset (what a hex editor or `tshark` shows).
enum PcapngDamage {
  /// Walks the blocks of `path` from the start: past the first
  /// `packetsRead` packet blocks (those libpcap delivered), the first block
  /// whose length is invalid or runs past the file, or else the block that
  /// reaches `reached`, where libpcap stopped. Nil when the file cannot be
  /// read again or the walk finds nothing before `reached`.
  static func blockStart(in path: String, packetsRead: Int, reached: Int) -> Int? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var info = stat()
    guard fstat(fileno(file), &info) == 0 else { return nil }
    let size = Int(info.st_size)
    var offset = 0
    var packets = 0
    var bigEndian = false
    while offset < size {
      var header = [UInt8](repeating: 0, count: 12)
      let got = pread(fileno(file), &header, 12, off_t(offset))
      guard got >= 8 else { return offset }
      if header[0..<4] == [0x0A, 0x0D, 0x0D, 0x0A] {
        // The section header's byte-order magic sets how later fields read.
        guard got == 12 else { return offset }
        bigEndian = header[8] == 0x1A
      }
      func field(_ at: Int) -> UInt32 {
        let bytes = (0..<4).map { UInt32(header[at + $0]) }
        return bigEndian
          ? bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
          : bytes[3] << 24 | bytes[2] << 16 | bytes[1] << 8 | bytes[0]
      }
      let type = field(0)
      let length = Int(field(4))
      guard length >= 12, length % 4 == 0, offset + length <= size else { return offset }
      let isPacket = type == 6 || type == 3 || type == 2
      if packets >= packetsRead, offset + length >= reached { return offset }
      if isPacket { packets += 1 }
      offset += length
    }
    return nil
  }
}
