/// The records that carried a message put together from several (a
/// WebSocket message over TCP segments, an ATT value over ACL fragments),
/// for writing out the records behind messages. The layers below name only a message's first (and, for
/// WebSocket, last) record; the records between are noted here per flow,
/// and forgotten once a message has taken them (TCP) or the next L2CAP
/// frame starts (ACL), so each list holds at most one message's records.
struct CarrierFrames {
  private struct StreamKey: Hashable {
    var connection: TCPConnectionID
    var direction: StreamDirection
  }
  private var streams: [StreamKey: [Int]] = [:]
  /// Per ACL connection handle, the records since its L2CAP frame started.
  private var acl: [UInt16: [Int]] = [:]
  /// Link Layer captures have no connection handle: only the records of
  /// one message's range are known, not whose they are.
  private(set) var lastFrame = 0

  /// A TCP segment of a WebSocket connection delivered its bytes.
  mutating func streamData(_ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int) {
    let key = StreamKey(connection: connection, direction: direction)
    if streams[key]?.last != frame { streams[key, default: []].append(frame) }
  }

  /// The segments from `first` to `last` of this flow; those before `last`
  /// are done with (the last may start the next message).
  mutating func streamFrames(
    _ connection: TCPConnectionID, _ direction: StreamDirection, first: Int, last: Int
  ) -> [Int] {
    let key = StreamKey(connection: connection, direction: direction)
    guard let frames = streams[key] else { return [] }
    let taken = frames.filter { $0 >= first && $0 <= last }
    streams[key] = frames.filter { $0 >= last }
    return taken
  }

  mutating func closed(_ connection: TCPConnectionID) {
    streams[StreamKey(connection: connection, direction: .clientToServer)] = nil
    streams[StreamKey(connection: connection, direction: .serverToClient)] = nil
  }

  /// A Bluetooth record: an ACL packet's handle and whether it starts an
  /// L2CAP frame are read from its header (see `BluetoothACLHeader`).
  mutating func bluetooth(
    _ linkType: BluetoothLinkType, frame: Int, flags: UInt32, data: UnsafeRawBufferPointer
  ) {
    lastFrame = frame
    guard let header = BluetoothACLHeader(linkType, flags: flags, data: data) else { return }
    if header.startsFrame {
      acl[header.handle] = [frame]
    } else {
      acl[header.handle, default: []].append(frame)
    }
  }

  /// The ACL records from `first` on that carried connection `handle`'s
  /// PDU (kept until the next starts: one PDU may make an ATT operation
  /// and a value both); for captures without handles, every record from
  /// `first` on.
  func aclFrames(handle: UInt16, first: Int) -> [Int] {
    guard let frames = acl[handle] else {
      return first < lastFrame ? Array(first...lastFrame) : []
    }
    return frames.filter { $0 >= first }
  }
}

/// The handle and packet-boundary flag of an HCI ACL data packet, as each
/// Bluetooth link type wraps it; nil for anything else.
struct BluetoothACLHeader {
  var handle: UInt16
  /// Packet boundary 0b00 or 0b10: the first fragment of an L2CAP frame.
  var startsFrame: Bool

  init?(_ linkType: BluetoothLinkType, flags: UInt32, data: UnsafeRawBufferPointer) {
    let start: Int
    switch linkType {
    case .hciH4, .hciH4WithoutDirection:
      guard data.first == 0x02 else { return nil }
      start = 1
    case .hciH4WithDirectionHeader:
      guard data.count > 4, data[4] == 0x02 else { return nil }
      start = 5
    case .hciUnencapsulated:
      guard flags & 0b10 == 0 else { return nil }
      start = 0
    case .linuxMonitorBtsnoop:
      // Opcodes 5 and 6: ACL data sent and received.
      guard flags & 0xFFFF == 5 || flags & 0xFFFF == 6 else { return nil }
      start = 0
    case .linuxMonitorPcap:
      guard data.count > 4, data[2] == 0, data[3] == 5 || data[3] == 6 else { return nil }
      start = 4
    case .packetLogger:
      // Types 02 and 03: ACL data sent and received, after the type byte.
      guard let type = data.first, type == 0x02 || type == 0x03 else { return nil }
      start = 1
    case .leLinkLayerWithPseudoHeader, .nordicBLESniffer:
      return nil
    }
    guard data.count >= start + 4 else { return nil }
    let field = UInt16(data[start]) | UInt16(data[start + 1]) << 8
    handle = field & 0x0FFF
    startsFrame = (field >> 12) & 0b11 != 0b01
  }
}
