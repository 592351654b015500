#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// When a pcapng capture ended, as the file records it: the `isb_endtime`
/// of an Interface Statistics Block at the file's end (pktbench's `capture
/// -w`, dumpcap and tcpdump's pcapng writers put one there). A pcap file,
/// or a pcapng file without one, does not say: its last packet is all that
/// is known, and traffic may have gone on unseen.
public enum PcapngEndTime {
  /// Unix seconds, or nil when the file does not record its end (or is
  /// not a seekable pcapng file).
  public static func read(path: String) -> Double? {
    guard path != "-" else { return nil }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    func bytes(at offset: Int64, count: Int) -> [UInt8]? {
      var out = [UInt8](repeating: 0, count: count)
      let got = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
      return got == count ? out : nil
    }
    let size = Int64(lseek(descriptor, 0, SEEK_END))
    guard size >= 28, let header = bytes(at: 0, count: 12),
      header[0..<4].elementsEqual([0x0A, 0x0D, 0x0D, 0x0A])
    else { return nil }
    let little = header[8..<12].elementsEqual([0x4D, 0x3C, 0x2B, 0x1A])
    guard little || header[8..<12].elementsEqual([0x1A, 0x2B, 0x3C, 0x4D]) else { return nil }
    func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
      let v = (0..<4).map { UInt32(b[at + $0]) }
      return little ? v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24 : v[3] | v[2] << 8 | v[1] << 16 | v[0] << 24
    }
    func u16(_ b: [UInt8], _ at: Int) -> Int {
      little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at + 1]) | Int(b[at]) << 8
    }
    // The first interface's timestamp resolution (if_tsresol), microseconds by default.
    let sectionLength = Int64(u32(header, 4))
    var unit = 1e-6
    if let idbHead = bytes(at: sectionLength, count: 8), u32(idbHead, 0) == 1 {
      let length = Int(u32(idbHead, 4))
      if length >= 20, length <= 65_536, let idb = bytes(at: sectionLength, count: length) {
        var at = 16
        while at + 4 <= length - 4 {
          let (code, count) = (u16(idb, at), u16(idb, at + 2))
          if code == 0 || at + 4 + count > length - 4 { break }
          if code == 9, count >= 1 {
            let value = idb[at + 4]
            unit = value & 0x80 == 0 ? pow(10, -Double(value)) : pow(2, -Double(value & 0x7F))
          }
          at += 4 + (count + 3) / 4 * 4
        }
      }
    }
    // The last block, found by its trailing length.
    guard let tail = bytes(at: size - 4, count: 4) else { return nil }
    let length = Int64(u32(tail, 0))
    guard length >= 24, length <= min(size, 65_536), let block = bytes(at: size - length, count: Int(length)),
      u32(block, 0) == 5
    else { return nil }
    var at = 20
    while at + 4 <= Int(length) - 4 {
      let (code, count) = (u16(block, at), u16(block, at + 2))
      if code == 0 || at + 4 + count > Int(length) - 4 { break }
      if code == 3, count == 8 {
        let ticks = UInt64(u32(block, at + 4)) << 32 | UInt64(u32(block, at + 8))
        return Double(ticks) * unit
      }
      at += 4 + (count + 3) / 4 * 4
    }
    return nil
  }
}
