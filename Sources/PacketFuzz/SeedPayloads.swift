import PacketKit

/// What the capture parsers' seeds carry: the payloads of the codecs under
/// fuzz, as their protocol references write them (`CodecInfo.vectors`) and
/// as `craft` makes each message from its defaults. A mutated capture then
/// reaches the codecs with something they know, and the fuzzer names no
/// protocol of its own.
struct SeedPayloads: Sendable {
  /// Payloads with the UDP port their codec names (9000 when it names none).
  let udp: [(port: UInt16, bytes: [UInt8])]
  /// Payloads of the codecs that name GATT characteristics.
  let att: [[UInt8]]

  init(_ codecs: CodecSet) {
    var udp: [(UInt16, [UInt8])] = []
    var att: [[UInt8]] = []
    for calls in codecs.calls {
      let info = calls.codec.info
      let crafted = info.messages.compactMap { calls.craft($0.name, values: CraftValues()) }
      let samples = info.vectors.map(\.bytes) + crafted
      let port = info.wellKnown.lazy.compactMap { endpoint -> UInt16? in
        if case .udp(let port) = endpoint { return port }
        return nil
      }.first
      udp += samples.map { (port ?? 9000, $0) }
      if !info.gattCharacteristics.isEmpty { att += samples }
    }
    // No codecs at all: the parsers still get a datagram to carry.
    self.udp = udp.isEmpty ? [(UInt16(9000), Array("pktbench".utf8))] : udp
    self.att = att.isEmpty ? [Array("pktbench".utf8)] : att
  }

  func udp(_ rng: inout SplitMix64) -> (port: UInt16, bytes: [UInt8]) { udp[rng.below(udp.count)] }

  /// An ACL data packet (handle 0x0040, no packet type byte) carrying an
  /// ATT Write Command of one payload to attribute handle 0x0012.
  func attWrite(_ rng: inout SplitMix64) -> [UInt8] {
    let value = att[rng.below(att.count)].prefix(244)
    let l2cap = 3 + value.count
    let acl = 4 + l2cap
    return [
      0x40, 0x00, UInt8(acl & 0xFF), UInt8(acl >> 8), UInt8(l2cap & 0xFF), UInt8(l2cap >> 8), 0x04, 0x00,
    ]
      + [0x52, 0x12, 0x00] + value
  }
}
