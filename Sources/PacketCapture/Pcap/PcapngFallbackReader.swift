import CPcap

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small streaming pcapng reader for the one case libpcap refuses: a file
/// whose interfaces have different link types (dumpcap capturing on several
/// interfaces writes these). Each record carries its own interface's link
/// type. Only the blocks that hold packets (enhanced, simple and obsolete
/// packet blocks) become records, as in libpcap, so record numbers agree.
final class PcapngFallbackReader {
  /// libpcap refuses blocks over 16 MiB too; larger is damage or hostile.
  static let maxBlockLength = 16 * 1024 * 1024

  private struct Interface {
    var linkType: Int32
    var snapLength: Int
    /// Timestamp units per second (if_tsresol).
    var unitsPerSecond: Double
    /// Seconds added to every timestamp (if_tsoffset).
    var offset: Double
  }

  enum Next {
    /// `snapLength`: the interface's (0: none given).
    case record(
      linkType: Int32, time: Double, captured: Int, original: Int, snapLength: Int, data: Range<Int>)
    case endOfFile
    case damaged(byteOffset: Int, reason: String)
  }

  private let file: UnsafeMutablePointer<FILE>
  private var bigEndian = false
  private var interfaces: [Interface] = []
  private var position = 0
  /// The current block's body; record data ranges point into it.
  private(set) var block: [UInt8] = []

  init?(path: String) {
    guard let file = fopen(path, "rb") else { return nil }
    self.file = file
  }

  deinit {
    fclose(file)
  }

  /// The next packet-carrying block, skipping all others.
  func next() -> Next {
    while true {
      let start = position
      var header = [UInt8](repeating: 0, count: 12)
      let got = fread(&header, 1, 12, file)
      position += got
      if got == 0 { return .endOfFile }
      guard got == 12 else {
        return .damaged(byteOffset: start, reason: "truncated pcapng block header at offset \(start)")
      }
      let type = UInt32(littleEndian: load(header, 0))
      if type == 0x0A0D_0D0A {
        // A section header sets the byte order of everything up to the next one.
        let magic = load(header, 8)
        guard magic == 0x1A2B_3C4D || magic.byteSwapped == 0x1A2B_3C4D else {
          return .damaged(byteOffset: start, reason: "pcapng section header with a bad byte-order magic")
        }
        bigEndian = (magic == 0x1A2B_3C4D) != (UInt32(littleEndian: 1) == 1)
        interfaces = []
      }
      let length = Int(value32(header, 4))
      guard length >= 12, length % 4 == 0, length <= Self.maxBlockLength else {
        return .damaged(
          byteOffset: start, reason: "pcapng block at offset \(start) has invalid length \(length)")
      }
      block = header + [UInt8](repeating: 0, count: length - 12)
      let body = length - 12
      let read = block.withUnsafeMutableBytes { bytes in
        fread(bytes.baseAddress.map { $0 + 12 }, 1, body, file)
      }
      position += read
      guard read == body else {
        return .damaged(byteOffset: start, reason: "truncated pcapng block at offset \(start)")
      }
      guard value32(block, length - 4) == UInt32(length) else {
        return .damaged(
          byteOffset: start, reason: "pcapng block at offset \(start): lengths in header and trailer differ")
      }
      switch value32(block, 0) {
      case 1: addInterface(length: length)
      case 6, 2, 3:
        if let record = packet(length: length, start: start) { return record }
      default: continue
      }
    }
  }

  private func addInterface(length: Int) {
    guard length >= 20 else { return }
    var interface = Interface(
      linkType: Self.dlt(Int32(value16(block, 8))), snapLength: Int(value32(block, 12)),
      unitsPerSecond: 1e6, offset: 0)
    var offset = 16
    while offset + 4 <= length - 4 {
      let code = value16(block, offset)
      let size = Int(value16(block, offset + 2))
      guard code != 0, offset + 4 + size <= length - 4 else { break }
      if code == 9, size >= 1 {
        let resolution = block[offset + 4]
        let exponent = Double(resolution & 0x7F)
        interface.unitsPerSecond = resolution & 0x80 == 0 ? pow(10, exponent) : pow(2, exponent)
      } else if code == 14, size >= 8 {
        interface.offset = Double(Int64(bitPattern: value64(block, offset + 4)))
      }
      offset += 4 + (size + 3) / 4 * 4
    }
    interfaces.append(interface)
  }

  private func packet(length: Int, start: Int) -> Next? {
    let type = value32(block, 0)
    let interfaceIndex: Int
    var stamp: UInt64 = 0
    var captured: Int
    let original: Int
    let dataStart: Int
    switch type {
    case 6, 2:
      guard length >= 32 else {
        return .damaged(byteOffset: start, reason: "short pcapng packet block at offset \(start)")
      }
      interfaceIndex = type == 6 ? Int(value32(block, 8)) : Int(value16(block, 8))
      stamp = UInt64(value32(block, 12)) << 32 | UInt64(value32(block, 16))
      captured = Int(value32(block, 20))
      original = Int(value32(block, 24))
      dataStart = 28
    default:  // simple packet block: interface 0, no timestamp
      guard length >= 16 else {
        return .damaged(byteOffset: start, reason: "short pcapng packet block at offset \(start)")
      }
      interfaceIndex = 0
      original = Int(value32(block, 8))
      dataStart = 12
      captured = min(original, length - 16)
    }
    guard interfaceIndex < interfaces.count else {
      return .damaged(
        byteOffset: start,
        reason:
          "pcapng packet block at offset \(start) names interface \(interfaceIndex), which was not described")
    }
    let interface = interfaces[interfaceIndex]
    if type == 3, interface.snapLength > 0 { captured = min(captured, interface.snapLength) }
    guard captured <= length - 4 - dataStart else {
      return .damaged(
        byteOffset: start,
        reason: "pcapng packet block at offset \(start) claims \(captured) captured bytes, more than it holds"
      )
    }
    let time = Double(stamp) / interface.unitsPerSecond + interface.offset
    return .record(
      linkType: interface.linkType, time: time, captured: captured, original: max(original, captured),
      snapLength: interface.snapLength, data: dataStart..<dataStart + captured)
  }

  /// LINKTYPE_RAW (101) is reported as DLT_RAW, as libpcap does; other
  /// values that matter here are equal in both numberings.
  static func dlt(_ linkType: Int32) -> Int32 {
    linkType == 101 ? Int32(DLT_RAW) : linkType
  }

  private func load(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
  }

  private func value16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
    let raw = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    return bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)
  }

  private func value32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    let raw = load(bytes, offset)
    return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
  }

  private func value64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    let raw = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
  }
}
