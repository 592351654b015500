import PacketCapture
import Testing

@Suite struct IPv4ChecksumTests {
  /// 10.0.0.1:40000 → 10.0.0.2:5005 UDP "hi", identification 1, TTL 64. Checksums by Python:
  ///   def cs(b):
  ///       s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
  ///       while s >> 16: s = (s & 0xffff) + (s >> 16)
  ///       return ~s & 0xffff
  ///   cs(bytes.fromhex('4500001e00010000401100000a0000010a000002'))  # 0x66cc
  ///   cs(bytes([10,0,0,1,10,0,0,2]) + struct.pack('!BBH', 0, 17, 10)
  ///      + struct.pack('!HHHH', 40000, 5005, 10, 0) + b'hi')            # 0xd3a0
  static let goodPacket = hex(
    "4500001e 00010000 401166cc 0a000001 0a000002" + "9c40138d 000ad3a0 6869")

  @Test func builderAgreesWithPython() {
    #expect(Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "hi".bytes)) == Self.goodPacket)
  }

  @Test func rightChecksumHasNoDiagnostics() {
    let events = decodeAll([Self.goodPacket], linkType: 228)
    #expect(
      events == [
        .datagram(
          frame: 1, source: "10.0.0.1:40000", destination: "10.0.0.2:5005", payload: "hi".bytes, codes: [])
      ])
  }

  @Test func wrongChecksumIsAWarningNamingTheExpectedValue() throws {
    var packet = Self.goodPacket
    packet[10] = 0x12
    packet[11] = 0x34
    let decoder = PacketDecoder()
    var diagnostics: [String] = []
    var payloads: [[UInt8]] = []
    packet.withUnsafeBytes { bytes in
      decoder.decode(CaptureRecord(frame: 1, time: 0, linkType: 228, data: bytes)) { event in
        if case .datagram(_, _, _, _, let payload, let found) = event {
          payloads.append(Array(payload))
          diagnostics += found.map { "\($0.severity) \($0.code): \($0.text)" }
        }
      }
    }
    #expect(payloads == ["hi".bytes])
    #expect(
      diagnostics == [
        "warning ipv4-checksum: IPv4 header checksum 0x1234 at offset 10 is wrong; expected 0x66cc"
      ])
  }

  @Test func shortHeaderLengthIsDamaged() {
    var packet = Self.goodPacket
    packet[0] = 0x41
    let events = decodeAll([Packets.ethernet(type: 0x0800, packet)], linkType: 1)
    #expect(
      events == [
        .damaged(
          frame: 1, layer: "ipv4", offset: 14, text: "IPv4 header length 4 at offset 14; expected ≥ 20")
      ])
  }

  @Test func totalLengthPastTheFrameIsDamaged() {
    let packet = Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "hi".bytes), totalLength: 100)
    let events = decodeAll([packet], linkType: 228)
    guard case .damaged(1, "ipv4", 0, let text)? = events.first else {
      Issue.record("expected damage, got \(events)")
      return
    }
    #expect(text == "IPv4 packet of total length 100 needs 100 bytes at offset 0, but only 30 remain")
  }

  /// A record the snap length cut inside the UDP header: the IPv4 header is
  /// whole and decodes; the UDP header is what is damaged, at its offset.
  @Test func snapLengthCutInsideTheUDPHeaderIsDamageThere() {
    let frame = Packets.ethernet(
      type: 0x0800,
      Packets.ipv4(protocol: 17, payload: Packets.udp(payload: [UInt8](repeating: 7, count: 100))))
    let events = Self.decodeCut(frame, keeping: 40)
    guard case .damaged(1, "udp", 34, let text)? = events.first, events.count == 1 else {
      Issue.record("expected one damage event, got \(events)")
      return
    }
    #expect(text.hasSuffix("(the capture kept 40 of \(frame.count) bytes)"))
  }

  /// `editcap -s 60`: the headers are whole, the payload is not. The
  /// datagram comes up with its ends and what is left of the payload, and
  /// says how much the capture kept (14 + 20 + 8 header bytes of 60: 18 of
  /// the 100 payload bytes).
  @Test func snapLengthCutPayloadKeepsTheHeaders() {
    let payload = [UInt8](repeating: 7, count: 100)
    let frame = Packets.ethernet(
      type: 0x0800, Packets.ipv4(protocol: 17, payload: Packets.udp(payload: payload)))
    let events = Self.decodeCut(frame, keeping: 60)
    guard case .datagram(1, "10.0.0.1:40000", "10.0.0.2:5005", let kept, ["capture-cut"])? = events.first,
      events.count == 1
    else {
      Issue.record("expected the cut datagram, got \(events)")
      return
    }
    #expect(kept == Array(payload.prefix(18)))
  }

  static func decodeCut(_ frame: [UInt8], keeping captured: Int) -> [Event] {
    let decoder = PacketDecoder()
    var events: [Event] = []
    frame.withUnsafeBytes { bytes in
      let cut = UnsafeRawBufferPointer(rebasing: bytes[0..<captured])
      decoder.decode(
        CaptureRecord(
          frame: 1, time: 0, linkType: 1, capturedLength: captured, originalLength: frame.count, data: cut)
      ) { events.append(Event($0)) }
    }
    return events
  }

  @Test func otherProtocolsAreUndecoded() {
    let events = decodeAll([Packets.ipv4(protocol: 1, payload: [8, 0, 0, 0])], linkType: 228)
    #expect(events == [.undecoded(frame: 1, reason: "IP protocol 1 (ICMP)")])
  }

  @Test func optionsAreSkipped() {
    let packet = Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "hi".bytes), options: [1, 1, 1, 0])
    #expect(decodeAll([packet], linkType: 228).datagrams.map(\.payload) == ["hi".bytes])
  }
}

@Suite struct IPv4FragmentTests {
  /// A 2000-byte UDP payload split at 8-byte-aligned offsets.
  static let payload = (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
  static let datagram = Packets.udp(payload: payload)

  static func fragments(identification: UInt16 = 42, sizes: [Int] = [600, 800, 608]) -> [[UInt8]] {
    var offset = 0
    return sizes.enumerated().map { index, size in
      let piece = Array(datagram[offset..<min(datagram.count, offset + size)])
      defer { offset += size }
      return Packets.ipv4(
        protocol: 17, payload: piece, identification: identification,
        moreFragments: index < sizes.count - 1, fragmentOffset: offset)
    }
  }

  @Test func inOrder() {
    let events = decodeAll(Self.fragments(), linkType: 228)
    #expect(events.datagrams.map(\.payload) == [Self.payload])
    #expect(events.datagrams.first?.codes == [])
    if case .datagram(let frame, _, _, _, _)? = events.first { #expect(frame == 1) }
  }

  @Test func outOfOrderReportsTheFirstRecord() {
    let parts = Self.fragments()
    let events = decodeAll([parts[2], parts[0], parts[1]], linkType: 228)
    #expect(events.datagrams.map(\.payload) == [Self.payload])
    #expect(events.count == 1)
    if case .datagram(let frame, _, _, _, _)? = events.first { #expect(frame == 1) }
  }

  @Test func duplicatesAndOverlapsKeepFirstBytesAndWarn() {
    let parts = Self.fragments()
    let overlapping = Packets.ipv4(
      protocol: 17, payload: Array(Self.datagram[400..<1000]), identification: 42, moreFragments: true,
      fragmentOffset: 400)
    let events = decodeAll([parts[0], overlapping, parts[1], parts[2]], linkType: 228)
    #expect(events.datagrams.map(\.payload) == [Self.payload])
    #expect(events.datagrams.first?.codes == ["fragment-overlap"])
  }

  @Test func interleavedDatagramsAreKeptApart() {
    let a = Self.fragments(identification: 1)
    let b = Self.fragments(identification: 2)
    let events = decodeAll([a[0], b[1], b[0], a[2], a[1], b[2]], linkType: 228)
    #expect(events.datagrams.count == 2)
    #expect(events.datagrams.allSatisfy { $0.payload == Self.payload })
  }

  @Test func incompleteDatagramTimesOutInCaptureTime() {
    let parts = Self.fragments()
    let later = Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "x".bytes))
    let limits = CaptureLimits(fragmentTimeout: 30)
    let events = decodeAll(
      [parts[0], later, parts[1], parts[2]], linkType: 228, times: [0, 100, 101, 102], limits: limits)
    // The first fragment expired before the others came: no whole datagram but "x".
    #expect(events.datagrams.map(\.payload) == ["x".bytes])
    #expect(events.notices(.fragmentsDropped).map(\.frame) == [1, 3])
    #expect(events.notices(.fragmentsDropped).map(\.reason) == ["expired", "end"])
    #expect(
      events.notices(.fragmentsDropped).first?.text.hasPrefix("IPv4 datagram 0x002a (1 fragment, 600 bytes)")
        == true)
  }

  @Test func incompleteAtEndIsReported() {
    let events = decodeAll(Array(Self.fragments().prefix(2)), linkType: 228)
    #expect(events.count == 1)
    #expect(events.notices(.fragmentsDropped).map(\.reason) == ["end"])
  }

  @Test func fragmentPastTheMaximumIsDamaged() {
    let packet = Packets.ipv4(
      protocol: 17, payload: [UInt8](repeating: 0, count: 100), moreFragments: true, fragmentOffset: 65_528)
    guard case .damaged(1, "ipv4", _, let text)? = decodeAll([packet], linkType: 228).first else {
      Issue.record("expected damage")
      return
    }
    #expect(text.contains("ends past 65535"))
  }

  @Test func floodOfFragmentsStaysWithinTheLimit() {
    let limits = CaptureLimits(maxFragmentBytes: 64 * 1024, maxPendingFragmentedDatagrams: 10_000)
    let decoder = PacketDecoder(limits: limits)
    var peak = 0
    var dropped = 0
    for id in 0..<3000 {
      let packet = Packets.ipv4(
        protocol: 17, payload: [UInt8](repeating: 1, count: 200), identification: UInt16(id),
        moreFragments: true)
      packet.withUnsafeBytes { bytes in
        decoder.decode(CaptureRecord(frame: id + 1, time: 0, linkType: 228, data: bytes)) { event in
          if case .notice(let notice) = event, notice.kind == .fragmentsDropped { dropped += 1 }
        }
      }
      peak = max(peak, decoder.bufferedBytes)
    }
    #expect(peak <= 64 * 1024)
    #expect(dropped > 2000)
  }
}
