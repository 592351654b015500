/// How a capture record's bytes reach HCI or the Link Layer. Each case is
/// named for what its first bytes are; `forPcapLinkType` and
/// `forBtsnoopDatalink` map the numbers capture files carry.
public enum BluetoothLinkType: Sendable, Hashable, CustomStringConvertible {
  /// btsnoop 1001: an HCI packet without the H4 type byte; the record flags
  /// say command, event or data (bit 1) and direction (bit 0).
  case hciUnencapsulated
  /// btsnoop 1002: H4 type byte (01 command, 02 ACL, 03 SCO, 04 event,
  /// 05 ISO) then the packet; direction in the record flags (bit 0).
  case hciH4
  /// pcap 187 (BLUETOOTH_HCI_H4): H4 with no direction, so ACL data is
  /// labelled "direction unknown".
  case hciH4WithoutDirection
  /// pcap 201 (BLUETOOTH_HCI_H4_WITH_PHDR): 4-byte big-endian direction
  /// (0 sent, 1 received) then H4.
  case hciH4WithDirectionHeader
  /// btsnoop 2001 (`btmon -w`): Linux monitor; the record flags hold
  /// `adapter index << 16 | opcode`.
  case linuxMonitorBtsnoop
  /// pcap 254 (BLUETOOTH_LINUX_MONITOR): 4-byte header, adapter index and
  /// opcode, both big-endian u16.
  case linuxMonitorPcap
  /// pcap 256 (BLUETOOTH_LE_LL_WITH_PHDR): 10-byte RF pseudo-header, then
  /// access address, LL PDU and CRC.
  case leLinkLayerWithPseudoHeader
  /// pcap 272 (NORDIC_BLE): nRF Sniffer board id and UART header, event
  /// packet header, then access address, LL PDU and CRC.
  case nordicBLESniffer
  /// Apple PacketLogger (`.pklg`): the record's type byte (00 command, 01
  /// event, 02 ACL sent, 03 ACL received, 08/09 SCO, 0A/0B LMP, F7–FE text)
  /// then the packet or text; the type says the direction.
  case packetLogger

  @inlinable
  public static func forPcapLinkType<T: BinaryInteger>(_ linkType: T) -> BluetoothLinkType? {
    switch Int(truncatingIfNeeded: linkType) {
    case 187: .hciH4WithoutDirection
    case 201: .hciH4WithDirectionHeader
    case 254: .linuxMonitorPcap
    case 256: .leLinkLayerWithPseudoHeader
    case 272: .nordicBLESniffer
    default: nil
    }
  }

  /// nil for datalinks the reader accepts but nothing decodes (1003 BCSP,
  /// 1004 three-wire: their reliable-transport framing is not parsed).
  @inlinable
  public static func forBtsnoopDatalink<T: BinaryInteger>(_ datalink: T) -> BluetoothLinkType? {
    switch Int(truncatingIfNeeded: datalink) {
    case 1001: .hciUnencapsulated
    case 1002: .hciH4
    case 2001: .linuxMonitorBtsnoop
    default: nil
    }
  }

  public var description: String {
    switch self {
    case .hciUnencapsulated: "btsnoop HCI (1001)"
    case .hciH4: "btsnoop HCI H4 (1002)"
    case .hciH4WithoutDirection: "pcap BLUETOOTH_HCI_H4 (187)"
    case .hciH4WithDirectionHeader: "pcap BLUETOOTH_HCI_H4_WITH_PHDR (201)"
    case .linuxMonitorBtsnoop: "btsnoop Linux monitor (2001)"
    case .linuxMonitorPcap: "pcap BLUETOOTH_LINUX_MONITOR (254)"
    case .leLinkLayerWithPseudoHeader: "pcap BLUETOOTH_LE_LL_WITH_PHDR (256)"
    case .nordicBLESniffer: "pcap NORDIC_BLE (272)"
    case .packetLogger: "Apple PacketLogger"
    }
  }
}
