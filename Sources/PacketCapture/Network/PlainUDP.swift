import PacketKit

/// The packet most captures are full of, read without the general layer
/// machinery: an untagged Ethernet II frame holding an IPv4 packet with a
/// 20-byte header, a right header checksum and no fragmentation, holding a
/// UDP datagram whose length fills the packet and whose checksum is right
/// or absent. Link-layer padding after the packet is allowed: the general
/// path trims it silently too.
///
/// Such a packet has no diagnostics at any layer, so the general path would
/// hand up exactly the datagram this returns. Anything else — VLAN tags,
/// options, fragments, padding, a checksum to explain, a cut frame — is nil
/// and goes to the general path, which says what is unusual about it.
enum PlainUDP {
  static let ethernetHeader = 14
  static let ipv4Header = 20
  static let udpHeader = 8

  struct Datagram {
    var source: Endpoint
    var destination: Endpoint
    var payload: UnsafeRawBufferPointer
  }

  @inline(__always)
  static func read(_ record: CaptureRecord) -> Datagram? {
    guard record.linkType == LinkType.ethernet, record.capturedLength == record.originalLength else {
      return nil
    }
    let frame = record.data
    let captured = min(record.capturedLength, frame.count)
    guard captured >= ethernetHeader + ipv4Header + udpHeader, let base = frame.baseAddress else {
      return nil
    }
    @inline(__always) func u16(_ offset: Int) -> UInt16 {
      UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    @inline(__always) func u32(_ offset: Int) -> UInt32 {
      UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    let ip = ethernetHeader
    // EtherType IPv4, version 4 with a 20-byte header, not a fragment (DF may be set), UDP.
    guard u16(12) == 0x0800, base.load(fromByteOffset: ip, as: UInt8.self) == 0x45,
      u16(ip + 6) & 0x3FFF == 0,
      base.load(fromByteOffset: ip + 9, as: UInt8.self) == UDPDatagram.protocolNumber
    else { return nil }
    let totalLength = Int(u16(ip + 2))
    guard totalLength >= ipv4Header + udpHeader, ip + totalLength <= captured else { return nil }
    let header = UnsafeRawBufferPointer(start: base + ip, count: ipv4Header)
    guard InternetChecksum.finish(InternetChecksum.sum(header)) == 0 else { return nil }
    let udp = ip + ipv4Header
    let udpLength = Int(u16(udp + 4))
    guard udpLength == totalLength - ipv4Header else { return nil }
    let source = u32(ip + 12)
    let destination = u32(ip + 16)
    if u16(udp + 6) != 0 {
      let pseudo =
        UInt64(UDPDatagram.protocolNumber) + UInt64(udpLength) + UInt64(source >> 16)
        + UInt64(source & 0xFFFF) + UInt64(destination >> 16) + UInt64(destination & 0xFFFF)
      let datagram = UnsafeRawBufferPointer(start: base + udp, count: udpLength)
      guard InternetChecksum.finish(InternetChecksum.sum(datagram, initial: pseudo)) == 0 else {
        return nil
      }
    }
    return Datagram(
      source: Endpoint(address: .v4(source), port: u16(udp)),
      destination: Endpoint(address: .v4(destination), port: u16(udp + 2)),
      payload: UnsafeRawBufferPointer(start: base + udp + udpHeader, count: udpLength - udpHeader))
  }
}
