import PacketKit
import Testing

@testable import PacketCapture

/// `PacketDecoder` reads plain Ethernet/IPv4/UDP packets through a short
/// path. Whatever it accepts must come out exactly as the layer decoders
/// give it; everything else must fall through to them.
@Suite struct PlainUDPTests {
  /// One frame through each path, as comparable events.
  static func bothPaths(_ frame: [UInt8], captured: Int? = nil) -> (
    fast: [Event], layers: [Event], short: Bool
  ) {
    frame.withUnsafeBytes { bytes in
      let record = CaptureRecord(
        frame: 1, time: 1, linkType: LinkType.ethernet, capturedLength: captured ?? bytes.count,
        originalLength: bytes.count,
        data: UnsafeRawBufferPointer(rebasing: bytes[0..<(captured ?? bytes.count)]))
      var fast: [Event] = []
      var layers: [Event] = []
      PacketDecoder().decode(record) { fast.append(Event($0)) }
      PacketDecoder().decodeLayers(record) { layers.append(Event($0)) }
      return (fast, layers, PlainUDP.read(record) != nil)
    }
  }

  static func udpFrame(_ random: inout SplitMix64) -> [UInt8] {
    let payload = (0..<random.below(120)).map { _ in UInt8.random(in: 0...255, using: &random) }
    var udp = Packets.udp(sourcePort: UInt16(random.below(65_536)), payload: payload)
    if random.chance(1, in: 8) { udp[6] = 0; udp[7] = 0 }  // no checksum
    return Packets.ethernet(type: 0x0800, Packets.ipv4(protocol: 17, payload: udp))
  }

  @Test func plainDatagramsTakeTheShortPathWithTheSameResult() {
    var random = SplitMix64(seed: 3)
    for _ in 0..<500 {
      let frame = Self.udpFrame(&random)
      let result = Self.bothPaths(frame)
      #expect(result.short)
      #expect(result.fast == result.layers)
      #expect(result.fast.count == 1)
    }
  }

  @Test func ethernetPaddingIsTrimmedOnBothPaths() {
    let frame = Packets.ethernet(
      type: 0x0800, Packets.ipv4(protocol: 17, payload: Packets.udp(payload: [1, 2])))
    let result = Self.bothPaths(frame + [UInt8](repeating: 0, count: 60 - frame.count))
    #expect(result.short)
    #expect(result.fast == result.layers)
    #expect(
      result.fast == [
        .datagram(
          frame: 1, source: "10.0.0.1:40000", destination: "10.0.0.2:5005", payload: [1, 2], codes: [])
      ])
  }

  /// Every single-byte change and every cut of plain frames: the fast path
  /// either declines or agrees with the layers, diagnostics included.
  @Test func damagedFramesAgreeOrFallThrough() {
    var random = SplitMix64(seed: 9)
    var declined = 0
    var accepted = 0
    for _ in 0..<300 {
      let frame = Self.udpFrame(&random)
      for _ in 0..<20 {
        var damaged = frame
        let offset = random.below(min(damaged.count, 50))
        damaged[offset] ^= UInt8(1 + random.below(255))
        let result = Self.bothPaths(damaged)
        #expect(result.fast == result.layers, "byte \(offset) of \(Hex.spaced(damaged))")
        if result.short { accepted += 1 } else { declined += 1 }
      }
      let cut = random.below(frame.count)
      let result = Self.bothPaths(frame, captured: cut)
      #expect(!result.short)
      #expect(result.fast == result.layers)
    }
    // Changes to MAC addresses, TTL, ports or payload-free bytes keep a frame plain.
    #expect(accepted > 0)
    #expect(declined > accepted / 4)
  }

  @Test func unusualButValidPacketsTakeTheLayers() {
    let udp = Packets.udp(payload: [7, 7, 7])
    let frames: [[UInt8]] = [
      Packets.ethernet(type: 0x0800, Packets.ipv4(protocol: 17, payload: udp), tags: [0x8100]),
      Packets.ethernet(type: 0x0800, Packets.ipv4(protocol: 17, payload: udp, options: [1, 1, 1, 0])),
      Packets.ethernet(type: 0x0800, Packets.ipv4(protocol: 17, payload: udp, moreFragments: true)),
      Packets.ethernet(type: 0x0800, Packets.ipv4(protocol: 17, payload: udp, totalLength: 0)),
      Packets.ethernet(type: 0x0800, Packets.ipv4(protocol: 17, payload: udp, checksum: 0x1234)),
      Packets.ethernet(
        type: 0x0800, Packets.ipv4(protocol: 17, payload: Packets.udp(payload: [7], checksum: 0x1234))),
      Packets.ethernet(type: 0x86DD, Packets.ipv6(nextHeader: 17, payload: udp)),
    ]
    for frame in frames {
      let result = Self.bothPaths(frame)
      #expect(!result.short, "\(Hex.spaced(frame))")
      #expect(result.fast == result.layers)
    }
  }
}
