import Foundation

/// Writes Apple PacketLogger files (`.pklg`) byte by byte, from the layout
/// Apple's PacketLogger writes and Wireshark's reader (wiretap/packetlogger.c)
/// describes, so the tests of pktbench's reader do not make their inputs
/// with it: records of a 4-byte length (of the rest of the record), 4-byte
/// seconds, 4-byte microseconds, a type byte and the data, in either byte
/// order and with no file header.
struct PacketLoggerWriter {
  enum ByteOrder: String, CaseIterable, Sendable {
    case big, little
  }

  struct Record {
    var seconds: UInt32
    var microseconds: UInt32
    var type: UInt8
    var data: [UInt8]

    var time: Double { Double(seconds) + Double(microseconds) / 1e6 }
  }

  var records: [Record] = []

  func bytes(_ order: ByteOrder) -> [UInt8] {
    func u32(_ value: UInt32) -> [UInt8] {
      let big = [
        UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
      ]
      return order == .big ? big : big.reversed()
    }
    var out: [UInt8] = []
    for record in records {
      out += u32(UInt32(8 + 1 + record.data.count)) + u32(record.seconds) + u32(record.microseconds)
      out += [record.type] + record.data
    }
    return out
  }

  /// A btsnoop v1 log with datalink 1002 (H4) as PacketLogger would have
  /// recorded the same packets: H4 01 (command) is type 00, 04 (event) 01,
  /// ACL 02 sent or 03 received and SCO 08/09 by the record's direction
  /// flag; the timestamp (microseconds since 0 AD, big-endian) moves to
  /// the Unix epoch.
  static func fromBtsnoop(_ bytes: [UInt8]) -> [Record] {
    func be32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
    precondition(Array(bytes[0..<8]) == Array("btsnoop\0".utf8) && be32(12) == 1002)
    // Microseconds from 0 AD to 1970, as Wireshark's btsnoop reader has it.
    let epoch: Int64 = 0x00DC_DDB3_0F2F_8000
    var records: [Record] = []
    var at = 16
    while at + 24 <= bytes.count {
      let included = Int(be32(at + 4))
      let received = be32(at + 8) & 1 != 0
      let stamp = Int64(be32(at + 16)) << 32 | Int64(be32(at + 20))
      let packet = Array(bytes[(at + 24)..<(at + 24 + included)])
      let type: UInt8 =
        switch packet[0] {
        case 0x01: 0x00
        case 0x04: 0x01
        case 0x02: received ? 0x03 : 0x02
        case 0x03: received ? 0x09 : 0x08
        default: preconditionFailure("H4 type \(packet[0])")
        }
      let micros = stamp - epoch
      records.append(
        Record(
          seconds: UInt32(micros / 1_000_000), microseconds: UInt32(micros % 1_000_000), type: type,
          data: Array(packet.dropFirst())))
      at += 24 + included
    }
    return records
  }
}

/// Apple's PKTAP header (net/pktap.h; Wireshark's packet-pktap.c reads the
/// same offsets), little-endian as a Mac writes it: length, record type (1
/// packet), DLT, interface name (24), flags, protocol family, link header
/// and trailer lengths, PID, process name (17, padded to 20), service
/// class, interface type and unit, effective PID and name (17, padded to
/// 20) — 108 bytes — then, in macOS's longer header, flow ID, IP protocol,
/// a timeval and two UUIDs: 156.
enum PKTAPWriter {
  static func header(
    dlt: UInt32, interface: String = "en0", pid: Int32, process: String, effectivePID: Int32? = nil,
    effectiveProcess: String? = nil, outgoing: Bool = true, length: Int = 156
  ) -> [UInt8] {
    func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
    func name(_ text: String, _ size: Int) -> [UInt8] {
      Array(Array(text.utf8).prefix(size - 1))
        + [UInt8](repeating: 0, count: size - min(text.utf8.count, size - 1))
    }
    var out = le32(UInt32(length)) + le32(1) + le32(dlt) + name(interface, 24)
    out += le32(outgoing ? 2 : 1) + le32(2) + le32(dlt == 1 ? 14 : 0) + le32(0)
    out += le32(UInt32(bitPattern: pid)) + name(process, 17) + [0, 0, 0]
    out += le32(0) + [6, 0, 0, 0]  // service class; interface type 6 (Ethernet), unit 0
    out += le32(UInt32(bitPattern: effectivePID ?? pid)) + name(effectiveProcess ?? process, 17) + [0, 0, 0]
    precondition(out.count == 108)
    out += [UInt8](repeating: 0, count: length - out.count)
    return out
  }
}

/// IPv4, IPv6 and UDP packets with right checksums (RFC 791, 8200, 768),
/// and the link headers around them.
enum PacketBytes {
  static func checksum(_ bytes: [UInt8], initial: UInt32 = 0) -> UInt16 {
    var sum = initial
    var index = 0
    while index + 1 < bytes.count {
      sum += UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
      index += 2
    }
    if index < bytes.count { sum += UInt32(bytes[index]) << 8 }
    while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
    return ~UInt16(sum)
  }

  static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

  static func udp(
    source: [UInt8], destination: [UInt8], sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8]
  ) -> [UInt8] {
    let length = UInt16(8 + payload.count)
    var datagram = be16(sourcePort) + be16(destinationPort) + be16(length) + [0, 0] + payload
    var pseudo = source + destination + [0, 17] + be16(length)
    if source.count == 16 { pseudo = source + destination + [0, 0] + be16(length) + [0, 0, 0, 17] }
    var sum = checksum(pseudo + datagram)
    if sum == 0 { sum = 0xFFFF }
    datagram[6...7] = be16(sum)[...]
    return datagram
  }

  static func ipv4UDP(
    _ source: [UInt8], _ destination: [UInt8], _ sourcePort: UInt16, _ destinationPort: UInt16,
    _ payload: [UInt8]
  ) -> [UInt8] {
    let datagram = udp(
      source: source, destination: destination, sourcePort: sourcePort, destinationPort: destinationPort,
      payload: payload)
    var header: [UInt8] =
      [0x45, 0] + be16(UInt16(20 + datagram.count)) + [0x12, 0x34, 0x40, 0, 64, 17, 0, 0]
    header += source + destination
    header[10...11] = be16(checksum(header))[...]
    return header + datagram
  }

  static func ipv6UDP(
    _ source: [UInt8], _ destination: [UInt8], _ sourcePort: UInt16, _ destinationPort: UInt16,
    _ payload: [UInt8]
  ) -> [UInt8] {
    let datagram = udp(
      source: source, destination: destination, sourcePort: sourcePort, destinationPort: destinationPort,
      payload: payload)
    return [0x60, 0, 0, 0] + be16(UInt16(datagram.count)) + [17, 64] + source + destination + datagram
  }

  static func ethernet(_ ip: [UInt8], etherType: UInt16 = 0x0800) -> [UInt8] {
    [0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01] + be16(etherType) + ip
  }
}

/// A little-endian pcap file with microsecond times (pcap-savefile(5)).
struct PcapWriter {
  var linkType: UInt32
  var records: [(seconds: UInt32, microseconds: UInt32, data: [UInt8])] = []

  var bytes: [UInt8] {
    func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
    var out = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(262_144) + le32(linkType)
    for record in records {
      out += le32(record.seconds) + le32(record.microseconds)
      out += le32(UInt32(record.data.count)) + le32(UInt32(record.data.count)) + record.data
    }
    return out
  }
}

/// Files these tests write, removed with their directory when the test
/// process exits.
enum WrittenCapture {
  static let directory: URL = {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("pktbench-e2e-captures-\(ProcessInfo.processInfo.processIdentifier)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: WrittenCapture.directory) }
    return url
  }()

  static func write(_ bytes: [UInt8], name: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
  }
}
