/// The passive Bluetooth decoder: capture records in, events out.
///
/// Feed it every record of one capture in order with `decode`, then call
/// `finish`. It keeps per-connection state (role, L2CAP reassembly, the GATT
/// handle map learnt from discovery, long writes and reads) within
/// `BluetoothLimits`. No input traps: every length is checked, and damage at
/// any layer becomes a `damaged` event while later records still decode.
public final class BluetoothDecoder {
  public let limits: BluetoothLimits
  @exclusivity(unchecked) public internal(set) var statistics = BluetoothStatistics()
  /// Bytes held across all connections (reassembly and long values).
  @exclusivity(unchecked) public internal(set) var bufferedBytes = 0

  var connections: [BluetoothConnectionKey: BluetoothConnectionState] = [:] {
    didSet { lastConnection = nil }  // any change: the next lookup hashes again
  }
  /// The connection found last: a capture is mostly runs of records on one
  /// connection, so most lookups skip hashing the key.
  @exclusivity(unchecked) private var lastConnection: BluetoothConnectionState?
  @exclusivity(unchecked) var sniffedHandles: [UInt32: UInt16] = [:]
  @exclusivity(unchecked) var nextSniffedHandle: UInt16 = 1
  /// Every handle → UUID learnt on any connection, for captures that start
  /// after discovery on a later connection to the same device.
  @exclusivity(unchecked) var globalHandles: [UInt16: GATTEntry] = [:]
  @exclusivity(unchecked) var userHandles: [UInt16: String] = [:]
  @exclusivity(unchecked) var userConnectionHandles: [UInt16: [UInt16: String]] = [:]

  public init(limits: BluetoothLimits = .default) {
    self.limits = limits
  }

  /// Connections currently tracked.
  public var trackedConnectionCount: Int { connections.count }

  /// Decodes one capture record. `flags` are the btsnoop record flags (0 for
  /// pcap records). The events own their bytes: they may be kept.
  public func decode(
    _ linkType: BluetoothLinkType, frame: Int, time: Double, flags: UInt32,
    data: UnsafeRawBufferPointer, emit: (BluetoothEvent) -> Void
  ) {
    decodeBorrowing(linkType, frame: frame, time: time, flags: flags, data: data) { event in
      guard case .attValue(var value) = event, case .borrowed = value.bytes else { return emit(event) }
      value.bytes = value.bytes.owning
      emit(.attValue(value))
    }
  }

  /// `decode` without copying ATT values: a value that came whole in this
  /// record is a view of `data`, valid only while `emit` handles its event.
  /// A handler that keeps a value keeps a copy (`ATTValue.value`).
  public func decodeBorrowing(
    _ linkType: BluetoothLinkType, frame: Int, time: Double, flags: UInt32,
    data: UnsafeRawBufferPointer, emit: (BluetoothEvent) -> Void
  ) {
    statistics.records += 1
    let record = BluetoothRecordContext(frame: frame, time: time, adapter: 0)
    switch linkType {
    case .hciUnencapsulated:
      let received = flags & 1 != 0
      if flags & 2 != 0 {
        if received {
          decodeEvent(data, at: 0, record, emit)
        } else {
          decodeCommand(data, at: 0, record, emit)
        }
      } else {
        decodeACL(data, at: 0, side: received ? .b : .a, record, emit)
      }
    case .hciH4:
      decodeH4(data, at: 0, side: flags & 1 == 0 ? .a : .b, record, emit)
    case .hciH4WithoutDirection:
      decodeH4(data, at: 0, side: .unknown, record, emit)
    case .hciH4WithDirectionHeader:
      guard data.count >= 4 else {
        damaged(record, "hci", 0, "H4 direction header needs 4 bytes, record has \(data.count)", emit)
        return
      }
      decodeH4(data, at: 4, side: data.btBE32(0) & 1 == 0 ? .a : .b, record, emit)
    case .linuxMonitorBtsnoop:
      decodeMonitor(
        data, at: 0, adapter: UInt16(truncatingIfNeeded: flags >> 16),
        opcode: UInt16(truncatingIfNeeded: flags), record, emit)
    case .linuxMonitorPcap:
      guard data.count >= 4 else {
        damaged(record, "hci", 0, "monitor header needs 4 bytes, record has \(data.count)", emit)
        return
      }
      decodeMonitor(data, at: 4, adapter: data.btBE16(0), opcode: data.btBE16(2), record, emit)
    case .leLinkLayerWithPseudoHeader:
      decodeLinkLayerWithPseudoHeader(data, record, emit)
    case .nordicBLESniffer:
      decodeNordicSniffer(data, record, emit)
    }
  }

  /// Reports what is still held at the end of the capture: long reads are
  /// delivered, unfinished L2CAP frames and unexecuted prepared writes are
  /// reported as damaged. The decoder is empty afterwards.
  public func finish(_ emit: (BluetoothEvent) -> Void) {
    let open = connections.values.sorted { ($0.key.adapter, $0.key.handle) < ($1.key.adapter, $1.key.handle) }
    for connection in open {
      release(connection, because: "the capture ended", emit)
    }
    connections.removeAll()
    sniffedHandles.removeAll()
    bufferedBytes = 0
  }

  // MARK: Handle maps

  /// The characteristic UUID (or user-mapped name) for an attribute handle:
  /// the user's mapping for this connection, what discovery on this
  /// connection showed, the user's mapping for any connection, then what
  /// discovery on any connection showed.
  public func characteristicUUID(connection: UInt16, handle: UInt16) -> String? {
    if let mapped = userConnectionHandles[connection]?[handle] { return mapped }
    let candidates = connections.values.filter { $0.key.handle == connection }
      .sorted { $0.key.adapter < $1.key.adapter }
    for state in candidates {
      for side in [LinkSide.b, .a, .unknown] {
        if let entry = state.handles[side.rawValue][handle] { return entry.uuid }
      }
    }
    return userHandles[handle] ?? globalHandles[handle]?.uuid
  }

  /// Records that `handle` carries `uuidOrName` on one connection, or on
  /// every connection when `connection` is nil. A UUID is stored in
  /// canonical form; anything else (a codec name) as written.
  public func mapHandle(_ handle: UInt16, connection: UInt16?, to uuidOrName: String) {
    let stored = BluetoothUUID.parse(uuidOrName) ?? uuidOrName
    if let connection {
      userConnectionHandles[connection, default: [:]][handle] = stored
    } else {
      userHandles[handle] = stored
    }
  }

  func lookup(_ connection: BluetoothConnectionState, serverSide: LinkSide, handle: UInt16) -> String? {
    if let mapped = userConnectionHandles[connection.key.handle]?[handle] { return mapped }
    if let entry = connection.handles[serverSide.rawValue][handle] { return entry.uuid }
    if serverSide == .unknown {
      if let entry = connection.handles[LinkSide.b.rawValue][handle]
        ?? connection.handles[LinkSide.a.rawValue][handle]
      {
        return entry.uuid
      }
    } else if let entry = connection.handles[LinkSide.unknown.rawValue][handle] {
      return entry.uuid
    }
    return userHandles[handle] ?? globalHandles[handle]?.uuid
  }

  // MARK: Connections

  /// The state for a connection, made on first sight (a capture that began
  /// mid-connection), dropping the least recently active one past the limit.
  func connection(
    _ key: BluetoothConnectionKey, _ record: BluetoothRecordContext, isSniffed: Bool = false,
    _ emit: (BluetoothEvent) -> Void
  ) -> BluetoothConnectionState {
    if let last = lastConnection, last.key == key {
      last.lastActivity = record.frame
      return last
    }
    if let state = connections[key] {
      state.lastActivity = record.frame
      lastConnection = state
      return state
    }
    if connections.count >= max(limits.maxConnections, 1) {
      if let oldest = connections.values.min(by: { $0.lastActivity < $1.lastActivity }) {
        damaged(
          record, "hci", 0,
          "more than \(limits.maxConnections) connections at once: dropped the state of connection "
            + "\(BluetoothText.hex16(oldest.key.handle)), idle since frame \(oldest.lastActivity)", emit)
        release(oldest, because: "its state was dropped", emit)
      }
    }
    let state = BluetoothConnectionState(
      key: key, localRole: .unknown, isSniffed: isSniffed, frame: record.frame)
    connections[key] = state
    return state
  }

  /// Forgets a connection: a long read in progress is delivered, anything
  /// unfinished is reported.
  func release(
    _ connection: BluetoothConnectionState, because reason: String, _ emit: (BluetoothEvent) -> Void
  ) {
    drain(connection, because: reason, emit)
    connections[connection.key] = nil
    if let accessAddress = connection.accessAddress, sniffedHandles[accessAddress] == connection.key.handle {
      sniffedHandles[accessAddress] = nil
    }
  }

  /// Empties a connection's buffers: delivers a held long read, reports
  /// unfinished L2CAP frames and unexecuted prepared writes.
  func drain(
    _ connection: BluetoothConnectionState, because reason: String, _ emit: (BluetoothEvent) -> Void
  ) {
    for side in LinkSide.allCases {
      if let flow = connection.flows[side.rawValue] {
        connection.flows[side.rawValue] = nil
        bufferedBytes -= flow.bytes.count
        emit(
          countedDamage(
            frame: flow.frame, time: flow.time, layer: "l2cap", offset: 0,
            text: "L2CAP frame on connection \(BluetoothText.hex16(connection.key.handle)) "
              + "(\(connection.direction(side))) never completed: \(flow.received) of "
              + "\(flow.expectedLength.map(String.init) ?? "?") bytes when \(reason)"))
      }
      flushPendingRead(connection, clientSide: side, emit)
      let client = connection.clients[side.rawValue]
      if let first = client.prepared.first {
        emit(
          countedDamage(
            frame: first.frame, time: first.time, layer: "att", offset: 0,
            text: "\(client.prepared.count) prepared write(s) on connection "
              + "\(BluetoothText.hex16(connection.key.handle)) never executed when \(reason)"))
        bufferedBytes -= client.preparedBytes
        connection.clients[side.rawValue].prepared = []
        connection.clients[side.rawValue].preparedBytes = 0
      }
    }
  }

  // MARK: Reporting

  func damaged(
    _ record: BluetoothRecordContext, _ layer: String, _ offset: Int, _ text: String,
    _ emit: (BluetoothEvent) -> Void
  ) {
    emit(countedDamage(frame: record.frame, time: record.time, layer: layer, offset: offset, text: text))
  }

  func countedDamage(frame: Int, time: Double, layer: String, offset: Int, text: String) -> BluetoothEvent {
    statistics.damaged += 1
    return .damaged(frame: frame, time: time, layer: layer, offset: offset, text: text)
  }

  func undecoded(_ record: BluetoothRecordContext, _ reason: String, _ emit: (BluetoothEvent) -> Void) {
    statistics.undecoded += 1
    emit(.undecoded(frame: record.frame, time: record.time, reason: reason))
  }
}

/// Where the record being decoded sits in the capture.
struct BluetoothRecordContext {
  var frame: Int
  var time: Double
  var adapter: UInt16
}
