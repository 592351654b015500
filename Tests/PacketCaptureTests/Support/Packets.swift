import PacketKit

/// Packet builders for tests, written from the RFCs independently of the
/// decoder (their checksum is checked against Python-computed values in
/// IPv4Tests and UDPTests).
enum Packets {
  static let hostA: [UInt8] = [10, 0, 0, 1]
  static let hostB: [UInt8] = [10, 0, 0, 2]
  /// 2001:db8::1 and 2001:db8::2.
  static let hostA6: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]
  static let hostB6: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [2]

  /// RFC 1071 checksum, the textbook loop.
  static func checksum(_ bytes: [UInt8]) -> UInt16 {
    var sum: UInt32 = 0
    var index = 0
    while index < bytes.count {
      let high = UInt32(bytes[index])
      let low = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
      sum += high << 8 | low
      index += 2
    }
    while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
    return ~UInt16(sum)
  }

  static func ipv4(
    source: [UInt8] = hostA, destination: [UInt8] = hostB, protocol number: UInt8, payload: [UInt8],
    identification: UInt16 = 1, moreFragments: Bool = false, fragmentOffset: Int = 0, options: [UInt8] = [],
    totalLength: Int? = nil, checksum: UInt16? = nil
  ) -> [UInt8] {
    let headerLength = 20 + options.count
    var header: [UInt8] = [0x40 | UInt8(headerLength / 4), 0]
    header += be16(UInt16(totalLength ?? headerLength + payload.count))
    header += be16(identification)
    header += be16((moreFragments ? 0x2000 : 0) | UInt16(fragmentOffset / 8))
    header += [64, number, 0, 0] + source + destination + options
    let sum = checksum ?? Self.checksum(header)
    header[10] = UInt8(sum >> 8)
    header[11] = UInt8(sum & 0xFF)
    return header + payload
  }

  static func ipv6(
    source: [UInt8] = hostA6, destination: [UInt8] = hostB6, nextHeader: UInt8, payload: [UInt8],
    payloadLength: Int? = nil
  ) -> [UInt8] {
    [0x60, 0, 0, 0] + be16(UInt16(payloadLength ?? payload.count)) + [nextHeader, 64] + source + destination
      + payload
  }

  /// An IPv6 fragment header (RFC 8200 §4.5).
  static func fragmentHeader(nextHeader: UInt8, offset: Int, more: Bool, identification: UInt32) -> [UInt8] {
    [nextHeader, 0] + be16(UInt16(offset / 8) << 3 | (more ? 1 : 0)) + be32(identification)
  }

  /// A UDP datagram with its checksum computed over the pseudo-header.
  static func udp(
    source: [UInt8] = hostA, destination: [UInt8] = hostB, sourcePort: UInt16 = 40_000,
    destinationPort: UInt16 = 5005, payload: [UInt8], length: Int? = nil, checksum: UInt16? = nil
  ) -> [UInt8] {
    let udpLength = 8 + payload.count
    var datagram =
      be16(sourcePort) + be16(destinationPort) + be16(UInt16(length ?? udpLength)) + [0, 0] + payload
    let pseudo: [UInt8] =
      source.count == 4
      ? source + destination + [0, 17] + be16(UInt16(udpLength))
      : source + destination + be32(UInt32(udpLength)) + [0, 0, 0, 17]
    var sum = checksum ?? Self.checksum(pseudo + datagram)
    if checksum == nil, sum == 0 { sum = 0xFFFF }
    datagram[6] = UInt8(sum >> 8)
    datagram[7] = UInt8(sum & 0xFF)
    return datagram
  }

  static let fin: UInt8 = 0x01
  static let syn: UInt8 = 0x02
  static let rst: UInt8 = 0x04
  static let ack: UInt8 = 0x10

  /// A TCP segment (checksum left zero: the decoder does not check it).
  static func tcp(
    sourcePort: UInt16 = 40_000, destinationPort: UInt16 = 8000, sequence: UInt32, flags: UInt8 = 0x18,
    payload: [UInt8] = []
  ) -> [UInt8] {
    be16(sourcePort) + be16(destinationPort) + be32(sequence) + be32(0) + [0x50, flags] + be16(65_535)
      + [0, 0, 0, 0] + payload
  }

  static func ethernet(type: UInt16, _ payload: [UInt8], tags: [UInt16] = []) -> [UInt8] {
    var frame: [UInt8] = [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]
    for tag in tags { frame += be16(tag) + be16(0x0064) }
    return frame + be16(type) + payload
  }
}

/// Bytes from hex text; an empty array (failing the test's comparison) on a typo.
func hex(_ text: String) -> [UInt8] {
  (try? Hex.parse(text)) ?? []
}

extension String {
  var bytes: [UInt8] { Array(utf8) }
}
