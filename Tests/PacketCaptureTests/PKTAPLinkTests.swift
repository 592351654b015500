import PacketCapture
import Testing

/// Apple's PKTAP header (net/pktap.h): the packet after it goes to the link
/// layer its DLT names; the process it names is read; a header shorter
/// than its fields is damage.
@Suite struct PKTAPLinkTests {
  /// A PKTAP header as net/pktap.h lays it out, little-endian: length,
  /// record type, DLT, interface name (24), flags, protocol family, link
  /// header and trailer lengths, PID, process name (17 + 3 padding),
  /// service class, interface type and unit, effective PID and name.
  static func header(
    dlt: UInt32, pid: Int32 = 412, process: String = "HawkSight", effectivePID: Int32? = nil,
    effectiveProcess: String? = nil, recordType: UInt32 = 1, length: Int = 156
  ) -> [UInt8] {
    func name(_ text: String, _ size: Int) -> [UInt8] {
      Array(text.utf8) + [UInt8](repeating: 0, count: size - text.utf8.count)
    }
    var out = le32(UInt32(length)) + le32(recordType) + le32(dlt) + name("pktap0", 24)
    out += le32(2) + le32(2) + le32(14) + le32(0) + le32(UInt32(bitPattern: pid)) + name(process, 20)
    out += le32(0) + [6, 0, 0, 0] + le32(UInt32(bitPattern: effectivePID ?? pid))
    out += name(effectiveProcess ?? process, 20)
    return out + [UInt8](repeating: 0, count: max(0, length - out.count))
  }

  static let ip4 = LinkLayerTests.ip4
  static let ip6 = LinkLayerTests.ip6

  static let cases: [(String, Int32, [UInt8], String)] = [
    ("PKTAP Ethernet", 258, header(dlt: 1) + Packets.ethernet(type: 0x0800, ip4), "10.0.0.1:40000"),
    ("PKTAP 149 Ethernet", 149, header(dlt: 1) + Packets.ethernet(type: 0x86DD, ip6), "[2001:db8::1]:40000"),
    ("PKTAP raw IPv4", 258, header(dlt: 12) + ip4, "10.0.0.1:40000"),
    ("PKTAP 149 raw IPv6", 149, header(dlt: 12) + ip6, "[2001:db8::1]:40000"),
    ("PKTAP NULL", 258, header(dlt: 0) + le32(2) + ip4, "10.0.0.1:40000"),
    ("PKTAP short header", 258, header(dlt: 101, length: 108) + ip4, "10.0.0.1:40000"),
  ]

  @Test(arguments: cases)
  func decodesThePacketInside(name: String, linkType: Int32, frame: [UInt8], source: String) {
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

  /// Through libpcap from a file, which hands 258 and 149 over as they are.
  @Test(arguments: cases)
  func decodesFromAFile(name: String, linkType: Int32, frame: [UInt8], source: String) throws {
    var file = PcapBuilder(linkType: UInt32(linkType))
    file.add(frame)
    let reader = try PcapFileReader(path: try file.write())
    #expect(reader.linkType == linkType)
    let decoder = PacketDecoder()
    var payloads: [[UInt8]] = []
    _ = reader.read { record in
      decoder.decode(record) { event in
        if case .datagram(_, _, _, _, let payload, _) = event { payloads.append(Array(payload)) }
      }
    }
    #expect(payloads == ["hi".bytes], "\(name)")
  }

  @Test func headerShorterThanItsFieldsIsDamaged() {
    var frame = Self.header(dlt: 1) + Packets.ethernet(type: 0x0800, Self.ip4)
    frame[0] = 100
    #expect(
      decodeAll([frame], linkType: 258) == [
        .damaged(
          frame: 1, layer: "pktap", offset: 0,
          text: "PKTAP header length is 100, less than the 108 bytes of its fields")
      ])
  }

  @Test func recordCutInsideTheHeaderIsDamaged() {
    let frame = Array(Self.header(dlt: 1).prefix(120))
    #expect(
      decodeAll([frame], linkType: 258) == [
        .damaged(
          frame: 1, layer: "pktap", offset: 0,
          text: "PKTAP header needs 156 bytes at offset 0, but only 120 remain")
      ])
  }

  /// Damage inside the packet is placed in the whole record: an Ethernet
  /// header cut after 10 bytes starts at the end of the 156-byte header.
  @Test func damageInsideIsAtTheRecordsOffset() {
    let frame = Self.header(dlt: 1) + [UInt8](repeating: 2, count: 10)
    #expect(
      decodeAll([frame], linkType: 258) == [
        .damaged(
          frame: 1, layer: "ethernet", offset: 156,
          text: "Ethernet header needs 14 bytes at offset 156, but only 10 remain")
      ])
  }

  @Test func otherRecordsAndLinkTypesAreUndecoded() {
    let notPacket = Self.header(dlt: 1, recordType: 2) + Packets.ethernet(type: 0x0800, Self.ip4)
    let nested = Self.header(dlt: 258) + Self.header(dlt: 1) + Packets.ethernet(type: 0x0800, Self.ip4)
    let wifi = Self.header(dlt: 105) + [1, 2, 3]
    #expect(
      decodeAll([notPacket, nested, wifi], linkType: 258) == [
        .undecoded(frame: 1, reason: "PKTAP record type 2 (not a packet)"),
        .undecoded(frame: 2, reason: "PKTAP packet of link type 258 (PKTAP)"),
        .undecoded(frame: 3, reason: "PKTAP packet of link type 105 (IEEE802_11)"),
      ])
  }

  @Test func readsTheProcess() {
    func process(_ bytes: [UInt8]) -> PKTAP.Process? { bytes.withUnsafeBytes { PKTAP.process($0) } }
    #expect(process(Self.header(dlt: 1)) == PKTAP.Process(name: "HawkSight", pid: 412))
    #expect(
      process(
        Self.header(
          dlt: 1, pid: 88, process: "nsurlsessiond", effectivePID: 412, effectiveProcess: "HawkSight"))
        == PKTAP.Process(name: "nsurlsessiond", pid: 88, effectiveName: "HawkSight", effectivePID: 412))
    // A 16-character name fills the field but its NUL.
    #expect(process(Self.header(dlt: 1, process: "ABCDEFGHIJKLMNOP"))?.name == "ABCDEFGHIJKLMNOP")
    // No name: the kernel's packets, or none matched to a socket.
    #expect(process(Self.header(dlt: 1, pid: -1, process: "")) == nil)
    #expect(process(Array(Self.header(dlt: 1).prefix(107))) == nil)
  }
}
