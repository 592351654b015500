import Testing

@testable import PacketLive

/// The small parsers behind the live limits: sizes as typed, and the
/// kernel's UDP table. The tables are as this machine's /proc/net/udp and
/// udp6 printed them (two sockets bound to port 9000), with drops set.
@Suite struct LiveLimitsUnitTests {
  @Test(arguments: [
    ("64MB", 64 << 20), ("512KB", 512 << 10), ("1GB", 1 << 30), ("4k", 4096), ("2m", 2 << 20), ("1000", 1000),
    ("12B", 12),
  ])
  func sizesAsTyped(text: String, bytes: Int) {
    #expect(ByteCountArgument(argument: text)?.bytes == bytes)
  }

  @Test(arguments: ["", "MB", "-1KB", "1.5MB", "ten", "99999999999999GB"])
  func sizesRefused(text: String) {
    #expect(ByteCountArgument(argument: text) == nil)
  }

  @Test func sizesPrintInTheLargestEvenUnit() {
    #expect(ByteCountArgument.text(64 << 20) == "64MB")
    #expect(ByteCountArgument.text(1536) == "1536 bytes")
    #expect(ByteCountArgument.text(3 << 10) == "3KB")
    #expect(ByteCountArgument.text(1000) == "1000 bytes")
  }

  static let udp = """
       sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            
    13075: 0100007F:2328 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2371742 2 00000000984fdd7b 17       
    13076: 0100007F:2329 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2371744 2 00000000984fdd7c 5       
    """

  static let udp6 = """
      sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
    13075: 00000000000000000000000001000000:2328 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2371743 2 00000000390b5ba9 3
    """

  @Test func dropsOfOwnSocketsOnThePortOnly() {
    // Port 9000 is 0x2328; 2371744 is on port 9001.
    let inodes: Set<UInt64> = [2_371_742, 2_371_743, 2_371_744]
    #expect(UDPKernelDrops.drops(in: Self.udp, ports: [9000], inodes: inodes) == 17)
    #expect(UDPKernelDrops.drops(in: Self.udp6, ports: [9000], inodes: inodes) == 3)
    #expect(UDPKernelDrops.drops(in: Self.udp, ports: [9000, 9001], inodes: inodes) == 22)
    // Another process's socket on the same port is not counted.
    #expect(UDPKernelDrops.drops(in: Self.udp, ports: [9000], inodes: [2_371_744]) == 0)
  }
}
