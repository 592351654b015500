import PacketCapture
import Testing

/// Sniffer captures: LL packets with the pcap 256 RF pseudo-header and the
/// nRF Sniffer (pcap 272) header, down to ATT.
@Suite struct BluetoothLinkLayerTests {
  /// pcap 256 pseudo-header; flags: dewhitened 0x0001, signal valid 0x0002,
  /// reference access address valid 0x0010, CRC checked 0x0400, CRC valid
  /// 0x0800, plus the PDU type in bits 7–9.
  static func rfHeader(pduType: UInt16) -> [UInt8] {
    let flags: UInt16 = 0x0C13 | pduType << 7
    return [
      0x25,  // RF channel
      0xC4,  // signal power −60 dBm
      0x00,  // noise power
      0x00,  // access address offenses
      0xD6, 0xBE, 0x89, 0x8E,  // reference access address
      UInt8(flags & 0xFF), UInt8(flags >> 8),  // flags, little-endian
    ]
  }

  static let connectIndication: [UInt8] =
    rfHeader(pduType: 0) + [
      0xD6, 0xBE, 0x89, 0x8E,  // advertising access address 0x8E89BED6
      0x45,  // PDU type 5 CONNECT_IND, TxAdd 1 (initiator random)
      0x22,  // length 34
      0x01, 0x02, 0x03, 0x04, 0x05, 0xC6,  // InitA C6:05:04:03:02:01
      0x55, 0x44, 0x33, 0x22, 0x11, 0xC0,  // AdvA C0:11:22:33:44:55
      0x21, 0x43, 0x65, 0x50,  // access address 0x50654321
      0xAA, 0xBB, 0xCC,  // CRC init
      0x02,  // window size
      0x00, 0x00,  // window offset
      0x18, 0x00,  // interval
      0x00, 0x00,  // latency
      0xC8, 0x00,  // timeout
      0xFF, 0xFF, 0xFF, 0xFF, 0x1F,  // channel map
      0x05,  // hop increment, sleep clock accuracy
      0x00, 0x00, 0x00,  // CRC
    ]

  /// A data PDU central→peripheral carrying the whole Write Command.
  static func writeCommand(header: UInt8) -> [UInt8] {
    rfHeader(pduType: 2) + [
      0x21, 0x43, 0x65, 0x50,  // access address 0x50654321
      header,  // LLID 2 (start/complete) | NESN << 2 | SN << 3
      0x0D,  // length 13
      0x09, 0x00, 0x04, 0x00,  // L2CAP length 9, CID ATT
      0x52, 0x0C, 0x00,  // Write Command, handle 0x000C
      0x01, 0x03, 0x02, 0x00, 0xDC, 0x05,  // LegCtrl SET_SERVO_CH0 1500 µs
      0x00, 0x00, 0x00,  // CRC
    ]
  }

  @Test func sniffedWriteCommandWithConnectIndication() throws {
    let decoder = BluetoothDecoder()
    decoder.mapHandle(0x000C, connection: nil, to: LegCtrlSession.command)
    let events = decodeBluetooth(
      decoder, .leLinkLayerWithPseudoHeader,
      [
        (0, Self.connectIndication),
        (0, Self.writeCommand(header: 0x02)),  // SN 0
        (0, Self.writeCommand(header: 0x06)),  // SN 0 again, NESN 1: a retransmission
        (0, Self.writeCommand(header: 0x0A)),  // SN 1: a new PDU
      ])
    #expect(events.damages.isEmpty)
    let opened = try #require(events.connectionEvents.first)
    #expect(opened.accessAddress == 0x5065_4321)
    #expect(
      opened.change == .opened(localRole: .unknown, peerAddress: "C0:11:22:33:44:55", peerAddressType: 0))
    let values = events.values
    #expect(values.count == 2)
    #expect(values.map(\.frame) == [2, 4])
    let write = try #require(values.first)
    #expect(write.direction == .centralToPeripheral)
    #expect(write.accessAddress == 0x5065_4321)
    #expect(write.connectionHandle == opened.connectionHandle)
    #expect(write.characteristicUUID == LegCtrlSession.command)
    #expect(write.value == LegCtrlSession.servo1500)
    #expect(write.valueOffsetInRecord == 10 + 4 + 2 + 4 + 3)
    #expect(decoder.statistics.advertisingPDUs == 1)
    #expect(decoder.statistics.llRetransmissions == 1)
  }

  @Test func sniffedNotificationInTwoLLFragments() throws {
    let events = decodeBluetooth(
      BluetoothDecoder(), .leLinkLayerWithPseudoHeader,
      [
        (
          0,
          Self.rfHeader(pduType: 3) + [
            0x21, 0x43, 0x65, 0x50,  // access address
            0x02,  // LLID 2: start of an L2CAP frame
            0x08,  // length 8
            0x0F, 0x00, 0x04, 0x00,  // L2CAP length 15, CID ATT
            0x1B, 0x0E, 0x00,  // Handle Value Notification, handle 0x000E
            0x01,
            0x00, 0x00, 0x00,  // CRC
          ]
        ),
        (
          0,
          Self.rfHeader(pduType: 2) + [
            0x21, 0x43, 0x65, 0x50,
            0x01,  // LLID 1, length 0: an empty PDU the other way
            0x00,
            0x00, 0x00, 0x00,
          ]
        ),
        (
          0,
          Self.rfHeader(pduType: 3) + [
            0x21, 0x43, 0x65, 0x50,
            0x09,  // LLID 1: continuation, SN 1
            0x0B,  // length 11
            0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00,
            0x00, 0x00, 0x00,
          ]
        ),
      ])
    #expect(events.damages.isEmpty)
    let value = try #require(events.values.first)
    #expect(value.direction == .peripheralToCentral)
    #expect(value.operation == "notification")
    #expect(value.frame == 1)
    #expect(value.value == LegCtrlSession.telemetryDisarmed)
  }

  @Test func badCRCAndTerminate() throws {
    var bad = Self.writeCommand(header: 0x02)
    bad[9] = 0x04  // flags high byte: CRC checked, not valid
    let terminate: [UInt8] =
      Self.rfHeader(pduType: 2) + [
        0x21, 0x43, 0x65, 0x50,
        0x0B,  // LLID 3 (control), SN 1
        0x02,  // length 2
        0x02,  // LL_TERMINATE_IND
        0x13,  // error code: Remote User Terminated Connection
        0x00, 0x00, 0x00,
      ]
    let events = decodeBluetooth(
      BluetoothDecoder(), .leLinkLayerWithPseudoHeader,
      [(0, bad), (0, Self.writeCommand(header: 0x02)), (0, terminate)])
    #expect(events.damages.map(\.layer) == ["ll"])
    #expect(events.values.count == 1)
    #expect(events.connectionEvents.last?.change == .closed(reason: 0x13))
  }

  @Test func nordicSnifferVersion3DataPacket() throws {
    let record: [UInt8] = [
      0x00,  // board id
      0x20, 0x00,  // payload length 32 (event packet header 10 + LL packet 22)
      0x03,  // protocol version 3
      0x01, 0x00,  // packet counter
      0x06,  // packet id: EVENT_PACKET_DATA
      0x0A,  // event packet header length
      0x03,  // flags: CRC OK (bit 0), central→peripheral (bit 1)
      0x05,  // channel 5
      0x3C,  // RSSI sample (−60 dBm)
      0x01, 0x00,  // event counter
      0x00, 0x00, 0x00, 0x00,  // firmware timestamp
      0x21, 0x43, 0x65, 0x50,  // access address
      0x02, 0x0D,  // LLID 2, length 13
      0x09, 0x00, 0x04, 0x00,  // L2CAP length 9, CID ATT
      0x52, 0x0C, 0x00,  // Write Command, handle 0x000C
      0x01, 0x03, 0x02, 0x00, 0xDC, 0x05,  // SET_SERVO_CH0 1500 µs
      0x00, 0x00, 0x00,  // CRC
    ]
    let events = decodeBluetooth(BluetoothDecoder(), .nordicBLESniffer, [(0, record)])
    #expect(events.damages.isEmpty)
    let value = try #require(events.values.first)
    #expect(value.direction == .centralToPeripheral)
    #expect(value.accessAddress == 0x5065_4321)
    #expect(value.value == LegCtrlSession.servo1500)
    #expect(value.valueOffsetInRecord == 17 + 6 + 4 + 3)

    // The payload length must match the record.
    var short = record
    short.removeLast()
    let damaged = decodeBluetooth(BluetoothDecoder(), .nordicBLESniffer, [(0, short)])
    #expect(damaged.damages.map(\.layer) == ["ll"])
    #expect(damaged.values.isEmpty)
  }

  @Test func linkTypeNumbers() {
    #expect(BluetoothLinkType.forPcapLinkType(187) == .hciH4WithoutDirection)
    #expect(BluetoothLinkType.forPcapLinkType(201) == .hciH4WithDirectionHeader)
    #expect(BluetoothLinkType.forPcapLinkType(254) == .linuxMonitorPcap)
    #expect(BluetoothLinkType.forPcapLinkType(Int32(256)) == .leLinkLayerWithPseudoHeader)
    #expect(BluetoothLinkType.forPcapLinkType(UInt32(272)) == .nordicBLESniffer)
    #expect(BluetoothLinkType.forPcapLinkType(1) == nil)
    #expect(BluetoothLinkType.forBtsnoopDatalink(1001) == .hciUnencapsulated)
    #expect(BluetoothLinkType.forBtsnoopDatalink(UInt32(1002)) == .hciH4)
    #expect(BluetoothLinkType.forBtsnoopDatalink(2001) == .linuxMonitorBtsnoop)
    #expect(BluetoothLinkType.forBtsnoopDatalink(1003) == nil)
  }
}
