/// Ethernet II and 802.3 framing, with any number (up to a limit) of 802.1Q,
/// 802.1ad and legacy QinQ tags before the EtherType.
enum Ethernet {
  static let maxTags = 8

  static func decode(_ input: LayerInput) throws(LayerFailure) -> LinkFrame {
    try input.require(14, at: 0, for: "Ethernet header", layer: "ethernet")
    var offset = 12
    var type = input.uInt16(offset)
    var tags = 0
    while type == EtherType.vlan || type == EtherType.providerBridging
      || type == EtherType.qinqLegacy
    {
      tags += 1
      guard tags <= maxTags else {
        throw input.damaged(
          "ethernet", at: offset, "more than \(maxTags) VLAN tags; the frame looks malformed")
      }
      try input.require(6, at: offset, for: "802.1Q tag", layer: "ethernet")
      offset += 4
      type = input.uInt16(offset)
    }
    offset += 2
    if type <= 1500 {
      return try llc(input, at: offset)
    }
    return LinkFrame(network: try EtherType.network(type), offset: offset)
  }

  /// An 802.3 length field instead of an EtherType: IP only rides in SNAP.
  static func llc(_ input: LayerInput, at offset: Int) throws(LayerFailure) -> LinkFrame {
    guard input.count - offset >= 8, input.uInt8(offset) == 0xAA, input.uInt8(offset + 1) == 0xAA,
      input.uInt8(offset + 2) == 0x03
    else {
      throw .undecoded("802.3 LLC frame (not SNAP)")
    }
    let type = input.uInt16(offset + 6)
    return LinkFrame(network: try EtherType.network(type), offset: offset + 8)
  }
}
