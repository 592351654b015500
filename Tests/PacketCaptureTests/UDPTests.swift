import PacketCapture
import Testing

@Suite struct UDPTests {
  /// The datagram of IPv4ChecksumTests.goodPacket: its checksum 0xd3a0 comes from Python.
  static let good: [UInt8] = hex("9c40138d 000ad3a0 6869")

  func decode(_ udp: [UInt8], v6: Bool = false) -> [(payload: [UInt8], codes: [String])] {
    let packet =
      v6 ? Packets.ipv6(nextHeader: 17, payload: udp) : Packets.ipv4(protocol: 17, payload: udp)
    return decodeAll([packet], linkType: v6 ? 229 : 228).datagrams
  }

  @Test func rightChecksum() {
    #expect(Packets.udp(payload: "hi".bytes) == Self.good)
    let datagrams = decode(Self.good)
    #expect(datagrams.map(\.payload) == ["hi".bytes])
    #expect(datagrams.first?.codes == [])
  }

  @Test func wrongChecksumIsAWarning() {
    var udp = Self.good
    udp[7] ^= 0xFF
    let datagrams = decode(udp)
    #expect(datagrams.map(\.payload) == ["hi".bytes])
    #expect(datagrams.first?.codes == ["udp-checksum"])
  }

  @Test func zeroChecksumIsAllowedOnIPv4() {
    var udp = Self.good
    udp[6] = 0
    udp[7] = 0
    #expect(decode(udp).first?.codes == [])
  }

  @Test func zeroChecksumIsAWarningOnIPv6() {
    var udp = Packets.udp(source: Packets.hostA6, destination: Packets.hostB6, payload: "hi".bytes)
    #expect(decode(udp, v6: true).first?.codes == [])
    udp[6] = 0
    udp[7] = 0
    #expect(decode(udp, v6: true).first?.codes == ["udp-checksum-zero"])
  }

  @Test func ipv6ChecksumIsVerified() {
    var udp = Packets.udp(source: Packets.hostA6, destination: Packets.hostB6, payload: "hi".bytes)
    udp[9] ^= 1
    #expect(decode(udp, v6: true).first?.codes == ["udp-checksum"])
  }

  @Test func shorterLengthTrimsThePayload() {
    // UDP length 10 but the IP packet carries 4 more bytes: the checksum still covers only the 10.
    let datagrams = decode(Self.good + [0xAA, 0xBB, 0xCC, 0xDD])
    #expect(datagrams.map(\.payload) == ["hi".bytes])
    #expect(datagrams.first?.codes == ["udp-length"])
  }

  @Test func longerLengthUsesWhatIsThere() {
    let udp = Packets.udp(payload: "hi".bytes, length: 50)
    let datagrams = decode(udp)
    #expect(datagrams.map(\.payload) == ["hi".bytes])
    #expect(datagrams.first?.codes == ["udp-length"])
  }

  @Test func lengthBelowTheHeaderIsAWarning() {
    let datagrams = decode(Packets.udp(payload: "hi".bytes, length: 3))
    #expect(datagrams.map(\.payload) == ["hi".bytes])
    #expect(datagrams.first?.codes == ["udp-length"])
  }

  @Test func shortHeaderIsDamaged() {
    let events = decodeAll([Packets.ipv4(protocol: 17, payload: [1, 2, 3])], linkType: 228)
    #expect(
      events == [
        .damaged(
          frame: 1, layer: "udp", offset: 20, text: "UDP header needs 8 bytes at offset 20, but only 3 remain"
        )
      ])
  }
}
