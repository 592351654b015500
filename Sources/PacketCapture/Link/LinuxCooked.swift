/// Linux "cooked" capture headers, written when capturing on "any" or on
/// devices without a link-layer header.
enum LinuxCooked {
  /// ARPHRD_NETLINK: the payload is a netlink message, whatever the protocol field says.
  static let netlinkHardwareType: UInt16 = 824

  /// SLL (link type 113): packet type 2, ARPHRD type 2, address length 2,
  /// address 8, protocol 2.
  static func decodeSLL(_ input: LayerInput) throws(LayerFailure) -> LinkFrame {
    try input.require(16, at: 0, for: "Linux cooked (SLL) header", layer: "sll")
    if input.uInt16(2) == netlinkHardwareType { throw .undecoded("Linux netlink message") }
    return LinkFrame(network: try network(input.uInt16(14)), offset: 16)
  }

  /// SLL2 (link type 276): protocol 2, reserved 2, interface index 4,
  /// ARPHRD type 2, packet type 1, address length 1, address 8.
  static func decodeSLL2(_ input: LayerInput) throws(LayerFailure) -> LinkFrame {
    try input.require(20, at: 0, for: "Linux cooked (SLL2) header", layer: "sll2")
    if input.uInt16(8) == netlinkHardwareType { throw .undecoded("Linux netlink message") }
    return LinkFrame(network: try network(input.uInt16(0)), offset: 20)
  }

  /// The protocol field is an EtherType, or below 0x0600 one of Linux's
  /// ETH_P_ pseudo-protocols (802.2 LLC, 802.3, CAN, …), none of them IP.
  private static func network(_ protocolType: UInt16) throws(LayerFailure) -> NetworkProtocol {
    guard protocolType >= 0x0600 else {
      throw .undecoded("Linux cooked protocol 0x\(String(protocolType, radix: 16)) (not IP)")
    }
    return try EtherType.network(protocolType)
  }
}
