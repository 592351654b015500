import CPcap

/// The link types pktbench decodes, as libpcap's `pcap_datalink` reports them.
public enum LinkType {
  public static let null: Int32 = 0
  public static let ethernet: Int32 = 1
  /// DLT_RAW is 12 on most systems and 14 on OpenBSD; files say 101.
  public static let raw: Int32 = 101
  public static let rawDLT: Int32 = 12
  public static let rawOpenBSD: Int32 = 14
  public static let loop: Int32 = 108
  public static let linuxSLL: Int32 = 113
  public static let ipv4: Int32 = 228
  public static let ipv6: Int32 = 229
  public static let linuxSLL2: Int32 = 276
  /// Apple PKTAP: LINKTYPE_PKTAP, and DLT_PKTAP as macOS numbers it.
  public static let pktap: Int32 = PKTAP.linkType
  public static let pktapDarwin: Int32 = PKTAP.darwinDLT

  /// libpcap's name for a link type ("EN10MB"), or its number.
  public static func name(_ linkType: Int32) -> String {
    if let name = pcap_datalink_val_to_name(linkType) { return String(cString: name) }
    return "\(linkType)"
  }
}

/// Which network layer a link-layer header announces.
enum NetworkProtocol {
  case ipv4
  case ipv6
}

/// Where the network layer starts in a frame.
struct LinkFrame {
  var network: NetworkProtocol
  var offset: Int
}

/// Strips the link-layer header of each supported link type.
enum LinkLayer {
  static func supports(_ linkType: Int32) -> Bool {
    switch linkType {
    case LinkType.ethernet, LinkType.linuxSLL, LinkType.linuxSLL2, LinkType.null, LinkType.loop,
      LinkType.raw, LinkType.rawDLT, LinkType.rawOpenBSD, LinkType.ipv4, LinkType.ipv6, LinkType.pktap,
      LinkType.pktapDarwin:
      true
    default: false
    }
  }

  static func decode(_ input: LayerInput, linkType: Int32) throws(LayerFailure) -> LinkFrame {
    switch linkType {
    case LinkType.ethernet: try Ethernet.decode(input)
    case LinkType.linuxSLL: try LinuxCooked.decodeSLL(input)
    case LinkType.linuxSLL2: try LinuxCooked.decodeSLL2(input)
    case LinkType.null, LinkType.loop: try NullLoopback.decode(input)
    case LinkType.raw, LinkType.rawDLT, LinkType.rawOpenBSD: try raw(input)
    case LinkType.ipv4: LinkFrame(network: .ipv4, offset: 0)
    case LinkType.ipv6: LinkFrame(network: .ipv6, offset: 0)
    case LinkType.pktap, LinkType.pktapDarwin: try PKTAP.decode(input)
    default: throw .undecoded("link type \(linkType) (\(LinkType.name(linkType)))")
    }
  }

  /// Raw IP has no header: the version nibble says which IP it is.
  static func raw(_ input: LayerInput) throws(LayerFailure) -> LinkFrame {
    try input.require(1, at: 0, for: "raw IP version", layer: "raw")
    switch input.uInt8(0) >> 4 {
    case 4: return LinkFrame(network: .ipv4, offset: 0)
    case 6: return LinkFrame(network: .ipv6, offset: 0)
    case let version:
      throw input.damaged("raw", at: 0, "raw IP packet has IP version \(version); expected 4 or 6")
    }
  }
}
