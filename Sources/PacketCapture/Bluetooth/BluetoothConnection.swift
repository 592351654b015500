/// A connection as the decoder tracks it: HCI connection handle on one
/// adapter (or, for sniffer captures, a handle assigned per access address).
struct BluetoothConnectionKey: Hashable {
  var adapter: UInt16
  var handle: UInt16
}

/// Which end sent a PDU. For HCI, `a` is this host (host→controller); for a
/// sniffer, `a` is the central. `unknown` when the capture does not say.
enum LinkSide: Int, CaseIterable {
  case a = 0
  case b = 1
  case unknown = 2

  var opposite: LinkSide {
    switch self {
    case .a: .b
    case .b: .a
    case .unknown: .unknown
    }
  }
}

/// An L2CAP frame being put together from ACL or LL fragments.
struct L2CAPFlow {
  var frame: Int
  var time: Double
  /// Header plus payload bytes, once the header has been seen.
  var expectedLength: Int?
  var channel: UInt16?
  /// Bytes kept (header included) for channels that are decoded; empty
  /// while skipping a channel that is only counted.
  var bytes: [UInt8]
  var skipping: Bool
  var received: Int
}

/// The most recent request a client sent, to read its response by.
enum ATTRequest {
  case read(handle: UInt16)
  case readBlob(handle: UInt16, offset: Int)
  case readByType(type: String)
  case readByGroupType(type: String)
  case findByTypeValue(type: UInt16, value: [UInt8])
  case other(opcode: UInt8)
}

/// A read response held back because a Read Blob may continue it.
struct PendingRead {
  var frame: Int
  var time: Double
  var handle: UInt16
  var value: [UInt8]
  var offsetInRecord: Int?
  var direction: BluetoothDirection
  var serverSide: LinkSide
}

struct PreparedWrite {
  var frame: Int
  var time: Double
  var handle: UInt16
  var offset: Int
  var value: [UInt8]
}

/// ATT state kept per client end of a connection.
struct ATTClientState {
  var lastRequest: ATTRequest?
  var pendingRead: PendingRead?
  var prepared: [PreparedWrite] = []
  var preparedBytes = 0
}

struct GATTEntry {
  var uuid: String
  /// Learnt from a characteristic declaration (wins over Find Information).
  var fromDeclaration: Bool
}

struct GATTService {
  var start: UInt16
  var end: UInt16
  var uuid: String
}

final class BluetoothConnectionState {
  let key: BluetoothConnectionKey
  @exclusivity(unchecked) var localRole: BluetoothRole
  /// Sniffed over the air: side `a` is the central.
  let isSniffed: Bool
  @exclusivity(unchecked) var accessAddress: UInt32?
  /// A sniffed connection that sent LL_TERMINATE_IND: later PDUs on its
  /// access address are ignored until a new CONNECT_IND reuses it.
  @exclusivity(unchecked) var terminated = false
  @exclusivity(unchecked) var lastActivity: Int
  /// ATT_MTU; 23 until an Exchange MTU says otherwise.
  @exclusivity(unchecked) var mtu = 23
  @exclusivity(unchecked) var clientMTU: Int?
  @exclusivity(unchecked) var flows: [L2CAPFlow?] = [nil, nil, nil]
  @exclusivity(unchecked) var clients = [ATTClientState](repeating: ATTClientState(), count: 3)
  /// Handle → UUID per server end.
  @exclusivity(unchecked) var handles: [[UInt16: GATTEntry]] = [[:], [:], [:]]
  @exclusivity(unchecked) var services: [[GATTService]] = [[], [], []]
  /// Last sequence number and a digest of the bytes per sender, to drop
  /// sniffed retransmissions.
  @exclusivity(unchecked) var lastLinkLayerPDU: [(sequence: UInt8, digest: UInt64)?] = [nil, nil, nil]

  init(key: BluetoothConnectionKey, localRole: BluetoothRole, isSniffed: Bool, frame: Int) {
    self.key = key
    self.localRole = localRole
    self.isSniffed = isSniffed
    self.lastActivity = frame
  }

  func direction(_ side: LinkSide) -> BluetoothDirection {
    switch (side, isSniffed ? BluetoothRole.central : localRole) {
    case (.unknown, _): .unknown
    case (.a, .central), (.b, .peripheral): .centralToPeripheral
    case (.b, .central), (.a, .peripheral): .peripheralToCentral
    case (.a, .unknown): .hostToController
    case (.b, .unknown): .controllerToHost
    }
  }

  /// Bytes this connection holds in reassembly and long values.
  var bufferedBytes: Int {
    var total = 0
    for flow in flows { total += flow?.bytes.count ?? 0 }
    for client in clients {
      total += client.preparedBytes + (client.pendingRead?.value.count ?? 0)
    }
    return total
  }

  func service(containing handle: UInt16, serverSide: LinkSide) -> GATTService? {
    services[serverSide.rawValue].first { $0.start <= handle && handle <= $0.end }
  }
}
