import PacketCapture
import Testing

/// Damaged input never traps: valid packets of every link type, truncated
/// at every length and with random bytes flipped, go through one decoder.
@Suite struct PanicSafetyTests {
  static let samples: [(Int32, [UInt8])] = {
    let udp = Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "payload".bytes))
    let tcp = Packets.ipv4(protocol: 6, payload: Packets.tcp(sequence: 7, payload: "stream".bytes))
    let fragment = Packets.ipv4(
      protocol: 17, payload: [UInt8](repeating: 3, count: 48), moreFragments: true, fragmentOffset: 64)
    let udp6 = Packets.ipv6(
      nextHeader: 0,
      payload: [44, 0, 1, 4, 0, 0, 0, 0]
        + Packets.fragmentHeader(nextHeader: 17, offset: 0, more: true, identification: 1)
        + Packets.udp(
          source: Packets.hostA6, destination: Packets.hostB6, payload: [UInt8](repeating: 1, count: 16)))
    return [
      (1, Packets.ethernet(type: 0x0800, udp, tags: [0x8100])),
      (1, Packets.ethernet(type: 0x86DD, udp6)),
      (113, [0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0] + be16(0x0800) + tcp),
      (276, be16(0x0800) + [0, 0] + be32(2) + be16(1) + [0, 6, 2, 0, 0, 0, 0, 1, 0, 0] + fragment),
      (0, le32(2) + tcp),
      (108, be32(30) + udp6),
      (101, udp),
      (228, fragment),
      (229, udp6),
    ]
  }()

  @Test func everyTruncation() {
    let decoder = PacketDecoder()
    var frame = 0
    for (linkType, packet) in Self.samples {
      for length in 0...packet.count {
        frame += 1
        Array(packet[0..<length]).withUnsafeBytes { bytes in
          decoder.decode(
            CaptureRecord(
              frame: frame, time: Double(frame), linkType: linkType, capturedLength: length,
              originalLength: packet.count, data: bytes)
          ) { #expect($0.frame <= frame) }
        }
      }
    }
    decoder.finish { _ in }
    #expect(decoder.bufferedBytes == 0)
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func randomMutations(seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    let limits = CaptureLimits(
      maxFragmentBytes: 16 * 1024, maxBufferedBytesPerDirection: 4096, maxBufferedBytesTotal: 16 * 1024,
      maxConnections: 64)
    let decoder = PacketDecoder(limits: limits)
    var peak = 0
    for frame in 1...20_000 {
      let (linkType, original) = Self.samples[Int.random(in: 0..<Self.samples.count, using: &generator)]
      var packet = original
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let index = Int.random(in: 0..<packet.count, using: &generator)
        packet[index] = UInt8.random(in: 0...255, using: &generator)
      }
      if Bool.random(using: &generator) {
        packet.removeLast(Int.random(in: 0..<packet.count, using: &generator))
      }
      packet.withUnsafeBytes { bytes in
        decoder.decode(
          CaptureRecord(frame: frame, time: Double(frame) / 100, linkType: linkType, data: bytes)
        ) {
          _ in
        }
      }
      peak = max(peak, decoder.bufferedBytes)
    }
    decoder.finish { _ in }
    #expect(peak <= 16 * 1024 + 16 * 1024)
    #expect(decoder.bufferedBytes == 0)
  }
}
