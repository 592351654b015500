/// The EtherType values that matter for routing a frame up the stack.
enum EtherType {
  static let ipv4: UInt16 = 0x0800
  static let ipv6: UInt16 = 0x86DD
  static let vlan: UInt16 = 0x8100
  static let providerBridging: UInt16 = 0x88A8
  /// Pre-standard QinQ outer tag, still seen on older switches.
  static let qinqLegacy: UInt16 = 0x9100

  /// An EtherType that is not IP, as the reason it was not decoded.
  static func network(_ type: UInt16) throws(LayerFailure) -> NetworkProtocol {
    switch type {
    case ipv4: return .ipv4
    case ipv6: return .ipv6
    default: throw .undecoded(describe(type))
    }
  }

  static func describe(_ type: UInt16) -> String {
    let digits = String(type, radix: 16, uppercase: true)
    let hex = "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    let name: String? =
      switch type {
      case 0x0806: "ARP"
      case 0x8035: "RARP"
      case 0x809B: "AppleTalk"
      case 0x8137: "IPX"
      case 0x8847, 0x8848: "MPLS"
      case 0x8863: "PPPoE discovery"
      case 0x8864: "PPPoE session"
      case 0x888E: "EAPOL"
      case 0x88CC: "LLDP"
      case 0x88F7: "PTP"
      case 0x8902: "CFM"
      case 0x88E5: "MACsec"
      default: nil
      }
    return "ethertype \(hex)" + (name.map { " (\($0))" } ?? "")
  }
}
