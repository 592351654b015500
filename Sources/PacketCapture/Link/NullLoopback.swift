/// BSD loopback (NULL, link type 0) and OpenBSD LOOP (108): a 4-byte address
/// family before the IP packet. NULL stores it in the capturing host's byte
/// order and LOOP in network order, but files from the wrong side of either
/// convention exist, so both orders are accepted.
enum NullLoopback {
  static let afInet: UInt32 = 2
  /// AF_INET6 differs by system: Linux 10, NetBSD/OpenBSD 24, FreeBSD 28, Darwin 30.
  static let afInet6: Set<UInt32> = [10, 24, 28, 30]

  static func decode(_ input: LayerInput) throws(LayerFailure) -> LinkFrame {
    try input.require(4, at: 0, for: "loopback address family", layer: "loopback")
    var family = input.uInt32(0)
    // Families are small numbers: one with only high bits set was written little-endian.
    if family & 0xFFFF_0000 != 0 {
      family = family.byteSwapped
    }
    if family == afInet { return LinkFrame(network: .ipv4, offset: 4) }
    if afInet6.contains(family) { return LinkFrame(network: .ipv6, offset: 4) }
    throw .undecoded("loopback address family \(family) (not IP)")
  }
}
