import PacketCapture
import Testing

@Suite struct IPv6Tests {
  static let udp = Packets.udp(source: Packets.hostA6, destination: Packets.hostB6, payload: "hi".bytes)

  /// UDP checksum of 2001:db8::1:40000 → 2001:db8::2:5005 "hi", by Python:
  ///   src = ipaddress.IPv6Address('2001:db8::1').packed; dst = ...('2001:db8::2').packed
  ///   cs(src + dst + struct.pack('!IxxxB', 10, 17) + struct.pack('!HHHH', 40000, 5005, 10, 0) + b'hi')  # 0x8c2e
  @Test func builderAgreesWithPython() {
    #expect(Array(Self.udp[6..<8]) == [0x8C, 0x2E])
  }

  @Test func extensionHeadersAreSkipped() {
    // Hop-by-hop (8 bytes, PadN), destination options (8), routing (type 0, 0 addresses, 8), AH (16) then UDP.
    let hopByHop: [UInt8] = [60, 0, 1, 4, 0, 0, 0, 0]
    let destination: [UInt8] = [43, 0, 1, 4, 0, 0, 0, 0]
    let routing: [UInt8] = [51, 0, 0, 0, 0, 0, 0, 0]
    let authentication: [UInt8] = [17, 2, 0, 0] + be32(0x100) + be32(1) + be32(0)
    let packet = Packets.ipv6(
      nextHeader: 0, payload: hopByHop + destination + routing + authentication + Self.udp)
    let events = decodeAll([packet], linkType: 229)
    #expect(
      events == [
        .datagram(
          frame: 1, source: "[2001:db8::1]:40000", destination: "[2001:db8::2]:5005", payload: "hi".bytes,
          codes: [])
      ])
  }

  @Test func truncatedExtensionHeaderIsDamaged() {
    let packet = Packets.ipv6(nextHeader: 0, payload: [60, 5, 1, 4])  // claims 48 bytes
    guard case .damaged(1, "ipv6", 40, let text)? = decodeAll([packet], linkType: 229).first else {
      Issue.record("expected damage at offset 40")
      return
    }
    #expect(text.contains("needs 48 bytes"))
  }

  @Test func noNextHeaderIsUndecoded() {
    #expect(
      decodeAll([Packets.ipv6(nextHeader: 59, payload: [])], linkType: 229) == [
        .undecoded(frame: 1, reason: "IPv6 packet with no next header")
      ])
  }

  @Test func atomicFragmentIsAWholePacket() {
    let packet = Packets.ipv6(
      nextHeader: 44,
      payload: Packets.fragmentHeader(nextHeader: 17, offset: 0, more: false, identification: 9) + Self.udp)
    #expect(decodeAll([packet], linkType: 229).datagrams.map(\.payload) == ["hi".bytes])
  }

  static let bigPayload = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
  static let bigUDP = Packets.udp(source: Packets.hostA6, destination: Packets.hostB6, payload: bigPayload)

  static func fragments() -> [[UInt8]] {
    let sizes = [1232, 1232, bigUDP.count - 2464]
    var offset = 0
    return sizes.enumerated().map { index, size in
      defer { offset += size }
      return Packets.ipv6(
        nextHeader: 44,
        payload: Packets.fragmentHeader(
          nextHeader: 17, offset: offset, more: index < 2, identification: 0xDEAD_BEEF)
          + Array(bigUDP[offset..<offset + size]))
    }
  }

  @Test func fragmentsInOrder() {
    let events = decodeAll(Self.fragments(), linkType: 229)
    #expect(events.datagrams.map(\.payload) == [Self.bigPayload])
    #expect(events.datagrams.first?.codes == [])
  }

  @Test func fragmentsOutOfOrder() {
    let parts = Self.fragments()
    let events = decodeAll([parts[1], parts[2], parts[0]], linkType: 229)
    #expect(events.datagrams.map(\.payload) == [Self.bigPayload])
    if case .datagram(let frame, _, _, _, _)? = events.first { #expect(frame == 1) }
  }

  @Test func destinationOptionsAfterTheFragmentHeader() {
    // The fragmentable part starts with a destination options header, then UDP.
    let fragmentable: [UInt8] = [17, 0, 1, 4, 0, 0, 0, 0] + Self.udp
    let first = Packets.ipv6(
      nextHeader: 44,
      payload: Packets.fragmentHeader(nextHeader: 60, offset: 0, more: true, identification: 5)
        + Array(fragmentable[0..<16]))
    let second = Packets.ipv6(
      nextHeader: 44,
      payload: Packets.fragmentHeader(nextHeader: 60, offset: 16, more: false, identification: 5)
        + Array(fragmentable[16...]))
    #expect(decodeAll([second, first], linkType: 229).datagrams.map(\.payload) == ["hi".bytes])
  }

  @Test func zeroPayloadLengthUsesTheCapturedLengthWithANote() {
    let packet = Packets.ipv6(nextHeader: 17, payload: Self.udp, payloadLength: 0)
    let datagrams = decodeAll([packet], linkType: 229).datagrams
    #expect(datagrams.map(\.payload) == ["hi".bytes])
    #expect(datagrams.first?.codes == ["ipv6-length-zero"])
  }

  @Test func jumboPayloadLength() {
    // Hop-by-hop with the Jumbo Payload option (RFC 2675) giving 8 + 10 bytes.
    let hopByHop: [UInt8] = [17, 0, 0xC2, 4] + be32(18)
    let packet = Packets.ipv6(nextHeader: 0, payload: hopByHop + Self.udp, payloadLength: 0)
    #expect(decodeAll([packet], linkType: 229).datagrams.map(\.payload) == ["hi".bytes])
  }
}

@Suite struct IPAddressTests {
  @Test(
    arguments: [
      ("2001:db8::1", [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]),
      ("::1", [UInt8](repeating: 0, count: 15) + [1]),
      ("::", [UInt8](repeating: 0, count: 16)),
      ("fe80::1:0:0:1", [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]),
      ("2001:db8:0:1:1:1:1:1", [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]),
      ("2001:0:0:1::1", [0x20, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1]),
    ] as [(String, [UInt8])])
  func ipv6TextFollowsRFC5952(text: String, bytes: [UInt8]) {
    let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    #expect(IPAddress.v6(high, low).description == text)
    #expect(IPAddress.v6(high, low).bytes == bytes)
  }

  @Test func endpointText() {
    #expect(Endpoint(address: .v4(0x0A00_0001), port: 5005).description == "10.0.0.1:5005")
    #expect(Endpoint(address: .v6(0, 1), port: 5005).description == "[::1]:5005")
  }
}
