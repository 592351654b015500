import Foundation

/// Writes classic pcap files byte by byte (global header + records), the
/// format of https://www.tcpdump.org/manpages/pcap-savefile.5.html, so tests
/// do not depend on the code under test to make their inputs.
struct PcapBuilder {
  struct Record {
    var seconds: UInt32
    var fraction: UInt32
    var data: [UInt8]
    var originalLength: Int?
  }

  var linkType: UInt32
  var nanoseconds = false
  var snapLength: UInt32 = 65_535
  var records: [Record] = []

  init(linkType: UInt32, nanoseconds: Bool = false) {
    self.linkType = linkType
    self.nanoseconds = nanoseconds
  }

  mutating func add(
    _ data: [UInt8], seconds: UInt32 = 1_700_000_000, fraction: UInt32 = 0, originalLength: Int? = nil
  ) {
    records.append(Record(seconds: seconds, fraction: fraction, data: data, originalLength: originalLength))
  }

  /// Little-endian file: magic A1B2C3D4 (or A1B23C4D for nanoseconds), version 2.4.
  var bytes: [UInt8] {
    var out: [UInt8] = []
    out += le32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4)
    out += le16(2) + le16(4)
    out += le32(0) + le32(0)
    out += le32(snapLength) + le32(linkType)
    for record in records {
      out += le32(record.seconds) + le32(record.fraction)
      out += le32(UInt32(record.data.count)) + le32(UInt32(record.originalLength ?? record.data.count))
      out += record.data
    }
    return out
  }

  func write() throws -> String {
    try TemporaryFile.write(bytes, suffix: ".pcap")
  }
}

/// Files the tests write, in one directory per test process that is
/// removed when the process exits (they used to stay in the temporary
/// directory, some 250 per run).
enum TemporaryFile {
  static let directory: URL = {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-tests-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: TemporaryFile.directory) }
    return url
  }()

  static func write(_ bytes: [UInt8], suffix: String) throws -> String {
    let url = directory.appendingPathComponent("pktbench-capture-\(UUID().uuidString)\(suffix)")
    try Data(bytes).write(to: url)
    return url.path
  }
}

func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

/// Writes little-endian pcapng (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-02.html):
/// a section header, interface descriptions and enhanced packet blocks.
struct PcapngBuilder {
  private(set) var bytes: [UInt8] = []

  init() {
    block(type: 0x0A0D_0D0A, body: le32(0x1A2B_3C4D) + le16(1) + le16(0) + [UInt8](repeating: 0xFF, count: 8))
  }

  /// `nanoseconds` adds the if_tsresol option (code 9) with value 9.
  mutating func interface(linkType: UInt16, nanoseconds: Bool = false, snapLength: UInt32 = 65_535) {
    let options: [UInt8] = nanoseconds ? le16(9) + le16(1) + [9, 0, 0, 0] + le16(0) + le16(0) : []
    block(type: 1, body: le16(linkType) + le16(0) + le32(snapLength) + options)
  }

  mutating func packet(interface: UInt32, _ data: [UInt8], stamp: UInt64 = 0) {
    let padded = data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
    let stampFields = le32(UInt32(stamp >> 32)) + le32(UInt32(stamp & 0xFFFF_FFFF))
    let lengths = le32(UInt32(data.count)) + le32(UInt32(data.count))
    block(type: 6, body: le32(interface) + stampFields + lengths + padded)
  }

  /// A simple packet block: interface 0, no timestamp.
  mutating func simplePacket(_ data: [UInt8]) {
    let padded = data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4)
    block(type: 3, body: le32(UInt32(data.count)) + padded)
  }

  /// A block of any type and body, as given (lengths written around it).
  mutating func raw(type: UInt32, body: [UInt8]) {
    block(type: type, body: body)
  }

  /// A block pktbench has no use for (an empty name resolution block), to be skipped.
  mutating func nameResolution() {
    block(type: 4, body: le16(0) + le16(0))
  }

  private mutating func block(type: UInt32, body: [UInt8]) {
    let length = le32(UInt32(12 + body.count))
    bytes += le32(type) + length + body + length
  }
}
