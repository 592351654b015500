import PacketCapture

/// One HCI packet as a test writes it: the packet bytes without any framing
/// (no H4 type byte, no pseudo-header), and what kind it is.
enum BluetoothTestPacket {
  case command([UInt8])
  case event([UInt8])
  /// ACL data host→controller.
  case aclSent([UInt8])
  /// ACL data controller→host.
  case aclReceived([UInt8])

  var bytes: [UInt8] {
    switch self {
    case .command(let bytes), .event(let bytes), .aclSent(let bytes), .aclReceived(let bytes): bytes
    }
  }

  /// The record bytes and btsnoop flags that carry this packet on a link type.
  func framed(for linkType: BluetoothLinkType) -> (flags: UInt32, data: [UInt8]) {
    // H4 packet type, btsnoop 1001/1002 flags (bit 0 received, bit 1 command
    // or event), Linux monitor opcode.
    let (h4, flags, monitorOpcode): (UInt8, UInt32, UInt8) =
      switch self {
      case .command: (0x01, 0b10, 2)
      case .event: (0x04, 0b11, 3)
      case .aclSent: (0x02, 0b00, 4)
      case .aclReceived: (0x02, 0b01, 5)
      }
    switch linkType {
    case .hciUnencapsulated: return (flags, bytes)
    case .hciH4: return (flags, [h4] + bytes)
    case .hciH4WithoutDirection: return (0, [h4] + bytes)
    case .hciH4WithDirectionHeader:
      // Direction u32 big-endian: 0 sent, 1 received.
      return (0, [0x00, 0x00, 0x00, UInt8(flags & 1), h4] + bytes)
    case .linuxMonitorBtsnoop: return (UInt32(monitorOpcode), bytes)
    case .linuxMonitorPcap:
      // Adapter index u16 BE (0), opcode u16 BE.
      return (0, [0x00, 0x00, 0x00, monitorOpcode] + bytes)
    case .leLinkLayerWithPseudoHeader, .nordicBLESniffer: return (0, bytes)
    case .packetLogger:
      // The record type byte: 00 command, 01 event, 02 ACL sent, 03 ACL received.
      let type: UInt8 =
        switch self {
        case .command: 0x00
        case .event: 0x01
        case .aclSent: 0x02
        case .aclReceived: 0x03
        }
      return (0, [type] + bytes)
    }
  }
}

/// Feeds records to a decoder one at a time, as a capture reader would, and
/// collects every event (including those `finish` reports).
func decodeBluetooth(
  _ decoder: BluetoothDecoder, _ linkType: BluetoothLinkType, _ records: [(flags: UInt32, data: [UInt8])],
  firstFrame: Int = 1, finish: Bool = true
) -> [BluetoothEvent] {
  var events: [BluetoothEvent] = []
  for (index, record) in records.enumerated() {
    record.data.withUnsafeBytes { data in
      decoder.decode(
        linkType, frame: firstFrame + index, time: Double(firstFrame + index) / 10, flags: record.flags,
        data: data
      ) { events.append($0) }
    }
  }
  if finish { decoder.finish { events.append($0) } }
  return events
}

func decodeBluetooth(
  _ decoder: BluetoothDecoder, _ linkType: BluetoothLinkType, packets: [BluetoothTestPacket],
  finish: Bool = true
) -> [BluetoothEvent] {
  decodeBluetooth(decoder, linkType, packets.map { $0.framed(for: linkType) }, finish: finish)
}

extension Array where Element == BluetoothEvent {
  var values: [ATTValue] {
    compactMap { if case .attValue(let value) = $0 { value } else { nil } }
  }

  var operations: [ATTOperation] {
    compactMap { if case .att(let operation) = $0 { operation } else { nil } }
  }

  var connectionEvents: [BluetoothConnectionEvent] {
    compactMap { if case .connection(let event) = $0 { event } else { nil } }
  }

  var damages: [(frame: Int, layer: String, offset: Int, text: String)] {
    compactMap {
      if case .damaged(let frame, _, let layer, let offset, let text) = $0 {
        (frame, layer, offset, text)
      } else {
        nil
      }
    }
  }

  var hciKinds: [String] {
    compactMap { if case .hci(_, _, let kind) = $0 { kind } else { nil } }
  }
}

/// The LegCtrl BLE session of docs/protocols.md §2 as HCI packets, this host
/// (the app) central on connection handle 0x0040: connection, MTU exchange,
/// discovery of service …789abc with characteristics …789abd (write) and
/// …789abe (notify), a SET_SERVO_CH0 write command, a TELEMETRY notification.
enum LegCtrlSession {
  static let service = "12345678-1234-1234-1234-123456789abc"
  static let command = "12345678-1234-1234-1234-123456789abd"
  static let telemetry = "12345678-1234-1234-1234-123456789abe"
  /// docs/protocols.md §2 golden vectors.
  static let servo1500: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
  static let telemetryDisarmed: [UInt8] = [
    0x01, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00,
  ]

  static let leConnectionComplete = BluetoothTestPacket.event([
    0x3E,  // event code: LE Meta
    0x13,  // parameter length 19
    0x01,  // subevent: LE Connection Complete
    0x00,  // status: success
    0x40, 0x00,  // connection handle 0x0040
    0x00,  // role: central (this host)
    0x01,  // peer address type: random
    0x55, 0x44, 0x33, 0x22, 0x11, 0xC0,  // peer address C0:11:22:33:44:55
    0x18, 0x00,  // connection interval 24 × 1.25 ms
    0x00, 0x00,  // peripheral latency
    0xC8, 0x00,  // supervision timeout 200 × 10 ms
    0x00,  // central clock accuracy
  ])

  static let exchangeMTURequest = BluetoothTestPacket.aclSent([
    0x40, 0x00,  // handle 0x0040, PB 00 (first non-flushable), BC 00
    0x07, 0x00,  // ACL data length 7
    0x03, 0x00,  // L2CAP length 3
    0x04, 0x00,  // CID 0x0004 ATT
    0x02,  // Exchange MTU Request
    0xF7, 0x00,  // client Rx MTU 247
  ])

  static let exchangeMTUResponse = BluetoothTestPacket.aclReceived([
    0x40, 0x20,  // handle 0x0040, PB 10 (first automatically flushable)
    0x07, 0x00,  // ACL data length 7
    0x03, 0x00,  // L2CAP length 3
    0x04, 0x00,  // CID ATT
    0x03,  // Exchange MTU Response
    0xF7, 0x00,  // server Rx MTU 247
  ])

  static let readByGroupTypeRequest = BluetoothTestPacket.aclSent([
    0x40, 0x00,  // handle 0x0040, PB 00
    0x0B, 0x00,  // ACL data length 11
    0x07, 0x00,  // L2CAP length 7
    0x04, 0x00,  // CID ATT
    0x10,  // Read By Group Type Request
    0x01, 0x00,  // starting handle 0x0001
    0xFF, 0xFF,  // ending handle 0xFFFF
    0x00, 0x28,  // attribute group type 0x2800 «Primary Service»
  ])

  static let readByGroupTypeResponse = BluetoothTestPacket.aclReceived([
    0x40, 0x20,  // handle 0x0040, PB 10
    0x1A, 0x00,  // ACL data length 26
    0x16, 0x00,  // L2CAP length 22
    0x04, 0x00,  // CID ATT
    0x11,  // Read By Group Type Response
    0x14,  // length of each entry: 20
    0x0A, 0x00,  // attribute handle 0x000A
    0x10, 0x00,  // end group handle 0x0010
    // service UUID 12345678-1234-1234-1234-123456789abc, little-endian
    0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
  ])

  static let readByTypeRequest = BluetoothTestPacket.aclSent([
    0x40, 0x00,  // handle 0x0040, PB 00
    0x0B, 0x00,  // ACL data length 11
    0x07, 0x00,  // L2CAP length 7
    0x04, 0x00,  // CID ATT
    0x08,  // Read By Type Request
    0x0A, 0x00,  // starting handle 0x000A
    0x10, 0x00,  // ending handle 0x0010
    0x03, 0x28,  // attribute type 0x2803 «Characteristic»
  ])

  static let readByTypeResponse = BluetoothTestPacket.aclReceived([
    0x40, 0x20,  // handle 0x0040, PB 10
    0x30, 0x00,  // ACL data length 48
    0x2C, 0x00,  // L2CAP length 44
    0x04, 0x00,  // CID ATT
    0x09,  // Read By Type Response
    0x15,  // length of each entry: 21
    0x0B, 0x00,  // declaration handle 0x000B
    0x0C,  // properties: write without response (0x04) | write (0x08)
    0x0C, 0x00,  // value handle 0x000C
    // characteristic UUID …789abd, little-endian
    0xBD, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
    0x0D, 0x00,  // declaration handle 0x000D
    0x10,  // properties: notify
    0x0E, 0x00,  // value handle 0x000E
    // characteristic UUID …789abe, little-endian
    0xBE, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12,
  ])

  static let servoWriteCommand = BluetoothTestPacket.aclSent([
    0x40, 0x00,  // handle 0x0040, PB 00
    0x0D, 0x00,  // ACL data length 13
    0x09, 0x00,  // L2CAP length 9
    0x04, 0x00,  // CID ATT
    0x52,  // Write Command
    0x0C, 0x00,  // attribute handle 0x000C
    0x01, 0x03, 0x02, 0x00, 0xDC, 0x05,  // LegCtrl SET_SERVO_CH0 1500 µs
  ])

  static let telemetryNotification = BluetoothTestPacket.aclReceived([
    0x40, 0x20,  // handle 0x0040, PB 10
    0x13, 0x00,  // ACL data length 19
    0x0F, 0x00,  // L2CAP length 15
    0x04, 0x00,  // CID ATT
    0x1B,  // Handle Value Notification
    0x0E, 0x00,  // attribute handle 0x000E
    0x01, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00,  // LegCtrl TELEMETRY
  ])

  static let disconnectionComplete = BluetoothTestPacket.event([
    0x05,  // event code: Disconnection Complete
    0x04,  // parameter length 4
    0x00,  // status: success
    0x40, 0x00,  // connection handle 0x0040
    0x13,  // reason: Remote User Terminated Connection
  ])

  static let discovery: [BluetoothTestPacket] = [
    leConnectionComplete, exchangeMTURequest, exchangeMTUResponse, readByGroupTypeRequest,
    readByGroupTypeResponse, readByTypeRequest, readByTypeResponse,
  ]

  static let session: [BluetoothTestPacket] = discovery + [servoWriteCommand, telemetryNotification]
}
