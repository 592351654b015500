import PacketCapture
import Testing

/// Every supported link type carries the same UDP datagram 10.0.0.1:40000 → 10.0.0.2:5005 "hi".
@Suite struct LinkLayerTests {
  static let ip4 = Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "hi".bytes))
  static let ip6 = Packets.ipv6(
    nextHeader: 17,
    payload: Packets.udp(source: Packets.hostA6, destination: Packets.hostB6, payload: "hi".bytes))

  static let cases: [(String, Int32, [UInt8], String)] = [
    ("ethernet", 1, Packets.ethernet(type: 0x0800, ip4), "10.0.0.1:40000"),
    ("ethernet padded", 1, Packets.ethernet(type: 0x0800, ip4 + [0, 0, 0, 0]), "10.0.0.1:40000"),
    ("802.1Q", 1, Packets.ethernet(type: 0x0800, ip4, tags: [0x8100]), "10.0.0.1:40000"),
    ("QinQ 802.1ad", 1, Packets.ethernet(type: 0x0800, ip4, tags: [0x88A8, 0x8100]), "10.0.0.1:40000"),
    ("QinQ legacy", 1, Packets.ethernet(type: 0x86DD, ip6, tags: [0x9100, 0x8100]), "[2001:db8::1]:40000"),
    ("ethernet IPv6", 1, Packets.ethernet(type: 0x86DD, ip6), "[2001:db8::1]:40000"),
    ("SLL", 113, [0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0] + be16(0x0800) + ip4, "10.0.0.1:40000"),
    (
      "SLL2", 276, be16(0x86DD) + [0, 0] + be32(2) + be16(1) + [0, 6, 2, 0, 0, 0, 0, 1, 0, 0] + ip6,
      "[2001:db8::1]:40000"
    ),
    ("NULL little-endian AF_INET", 0, le32(2) + ip4, "10.0.0.1:40000"),
    ("NULL big-endian AF_INET", 0, be32(2) + ip4, "10.0.0.1:40000"),
    ("NULL AF_INET6 24", 0, le32(24) + ip6, "[2001:db8::1]:40000"),
    ("NULL AF_INET6 28", 0, le32(28) + ip6, "[2001:db8::1]:40000"),
    ("NULL AF_INET6 30", 0, be32(30) + ip6, "[2001:db8::1]:40000"),
    ("LOOP", 108, be32(2) + ip4, "10.0.0.1:40000"),
    ("LOOP little-endian", 108, le32(30) + ip6, "[2001:db8::1]:40000"),
    ("RAW 101", 101, ip4, "10.0.0.1:40000"),
    ("RAW 12", 12, ip6, "[2001:db8::1]:40000"),
    ("RAW 14", 14, ip4, "10.0.0.1:40000"),
    ("IPv4 228", 228, ip4, "10.0.0.1:40000"),
    ("IPv6 229", 229, ip6, "[2001:db8::1]:40000"),
  ]

  @Test(arguments: cases)
  func decodesUDPFromEveryLinkType(name: String, linkType: Int32, frame: [UInt8], source: String) {
    let events = decodeAll([frame], linkType: linkType)
    guard case .datagram(1, let from, _, let payload, let codes)? = events.first else {
      Issue.record("\(name): expected a datagram, got \(events)")
      return
    }
    #expect(from == source, "\(name)")
    #expect(payload == "hi".bytes, "\(name)")
    #expect(codes.isEmpty, "\(name): \(codes)")
    #expect(events.count == 1)
  }

  /// The same cases through a real file and libpcap, which maps link type 101 to DLT_RAW.
  @Test(arguments: cases)
  func decodesFromAFile(name: String, linkType: Int32, frame: [UInt8], source: String) throws {
    var file = PcapBuilder(linkType: UInt32(linkType))
    file.add(frame)
    let reader = try PcapFileReader(path: try file.write())
    let decoder = PacketDecoder()
    var payloads: [[UInt8]] = []
    _ = reader.read { record in
      decoder.decode(record) { event in
        if case .datagram(_, _, _, _, let payload, _) = event { payloads.append(Array(payload)) }
      }
    }
    #expect(payloads == ["hi".bytes], "\(name) (pcap_datalink \(reader.linkType))")
  }

  @Test func nonIPEtherTypeIsUndecoded() {
    let events = decodeAll([Packets.ethernet(type: 0x0806, [UInt8](repeating: 0, count: 28))], linkType: 1)
    #expect(events == [.undecoded(frame: 1, reason: "ethertype 0x0806 (ARP)")])
  }

  @Test func unsupportedLinkTypeIsUndecoded() {
    let events = decodeAll([[1, 2, 3]], linkType: 105)
    #expect(events == [.undecoded(frame: 1, reason: "link type 105 (IEEE802_11)")])
  }

  @Test func shortEthernetHeaderIsDamaged() {
    let events = decodeAll([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], linkType: 1)
    #expect(
      events == [
        .damaged(
          frame: 1, layer: "ethernet", offset: 0,
          text: "Ethernet header needs 14 bytes at offset 0, but only 10 remain")
      ])
  }

  @Test func endlessVLANTagsAreDamaged() {
    let frame = [UInt8](repeating: 2, count: 12) + (0..<20).flatMap { _ in [0x81, 0x00, 0x00, 0x64] }
    let events = decodeAll([frame], linkType: 1)
    guard case .damaged(1, "ethernet", _, let text)? = events.first else {
      Issue.record("expected damage, got \(events)")
      return
    }
    #expect(text.contains("VLAN tags"))
  }

  @Test func nullWithUnknownFamilyIsUndecoded() {
    #expect(
      decodeAll([le32(7) + Self.ip4], linkType: 0) == [
        .undecoded(frame: 1, reason: "loopback address family 7 (not IP)")
      ])
  }

  @Test func rawWithWrongVersionIsDamaged() {
    let events = decodeAll([[0x50] + Self.ip4.dropFirst()], linkType: 101)
    #expect(
      events == [
        .damaged(frame: 1, layer: "raw", offset: 0, text: "raw IP packet has IP version 5; expected 4 or 6")
      ])
  }
}
