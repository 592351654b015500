import PacketCapture
import PacketKit

/// ATT values are routed to codecs by the characteristic UUID learnt from
/// discovery, then `--ble-map`, then probes; the rest of Bluetooth as
/// records of events.
extension PayloadRecords {
  package func attValue(_ value: ATTValue, bytes: UnsafeRawBufferPointer) {
    attValue(value, bytes, context: nil)
  }

  package func attValue(_ value: ATTValue, bytes: UnsafeRawBufferPointer, context: CarrierContext) {
    attValue(value, bytes, context: context)
  }

  /// A nil context costs no copy of one on every value.
  @inline(__always)
  private func attValue(_ value: ATTValue, _ bytes: UnsafeRawBufferPointer, context: CarrierContext?) {
    let key = BLEHandleKey(connection: value.connectionHandle, handle: value.attributeHandle)
    let choice = bleCodec(value, bytes) ?? bleCodecs.choice(for: key)
    if !wantsRecords, let choice, let kind = codecs.cleanKind(choice.index, bytes) {
      let flow = BLEFlow(connection: value.connectionHandle, direction: value.direction)
      if let slot = recentBLEFlows.slot(flow, codec: choice.index, kind: kind) {
        stats.countClean(slot: slot, bytes: bytes.count, time: value.time)
      } else {
        let (source, destination) = bleNames.endpoints(value.connectionHandle, value.direction)
        if let slot = stats.flows.cleanSlot(
          source: source, destination: destination, codec: codecs.names[choice.index],
          message: codecs.messageNames[choice.index][kind],
          kind: .init(codec: choice.index, kind: kind, transport: .bleATT))
        {
          recentBLEFlows.remember(flow, codec: choice.index, kind: kind, slot: slot)
          stats.countClean(slot: slot, bytes: bytes.count, time: value.time)
        } else {
          stats.countClean(
            codec: choice.index, kind: kind, bytes: bytes.count, time: value.time, transport: .bleATT)
        }
      }
      bleCodecs.learn(key, choice, decoded: true)
      return
    }
    var record = bleRecord(value.connectionHandle, value.direction, frame: value.frame, time: value.time)
    record.payloadLength = bytes.count
    let carrier = bleNames.carrier(value)
    record.extra = carrier.extra
    record.carrierNote = carrier.note
    decode(bytes, choice: choice, into: &record)
    bleCodecs.learn(key, choice, decoded: record.decodedByCodec)
    deliver(record, context: context)
  }

  func attOperation(_ operation: ATTOperation, context: CarrierContext) {
    var record = bleRecord(
      operation.connectionHandle, operation.direction, frame: operation.frame, time: operation.time)
    record.event = (
      Self.eventName(operation.name), operation.fields.map { .init($0.name, .string($0.value)) }
    )
    if let diagnostic = operation.diagnostic {
      record.layerDiagnostics = [.warning("att", diagnostic)]
    }
    deliver(record, context: context)
  }

  package func bluetoothConnection(_ change: BluetoothConnectionEvent, context: CarrierContext) {
    // Named from the capturing host's side, so the event joins its connection's flow.
    var role = bleRoles[change.connectionHandle] ?? .unknown
    if case .opened(let localRole, _, _) = change.change { role = localRole }
    let direction: BluetoothDirection =
      role == .central ? .centralToPeripheral : role == .peripheral ? .peripheralToCentral : .unknown
    var record = bleRecord(change.connectionHandle, direction, frame: change.frame, time: change.time)
    switch change.change {
    case .opened(let role, let peer, _):
      var fields: [FieldValue.Member] = [.init("role", .string(role.description))]
      if let peer { fields.append(.init("peer", .string(peer))) }
      record.event = ("ble.connected", fields)
      bleRoles[change.connectionHandle] = role
    case .closed(let reason):
      record.event = ("ble.disconnected", [.init("reason", .string("0x\(Hex.compact([reason]))"))])
    }
    deliver(record, context: context)
  }

  /// The capturing host's own words (PacketLogger notes, syslog lines):
  /// shown where they fell among the packets, belonging to no connection.
  func bluetoothLog(_ entry: BluetoothLogEntry, context: CarrierContext) {
    var record = DecodedRecord(
      frame: entry.frame, time: entry.time, transport: "packetlogger", payloadLength: 0)
    var fields: [FieldValue.Member] = [.init("message", .string(entry.message))]
    if let syslog = entry.syslog {
      fields += [
        .init("process_id", .integer(Int64(syslog.processID))),
        .init("message_type", .integer(Int64(syslog.messageType))),
        .init("process", .string(syslog.process)), .init("sender", .string(syslog.sender)),
        .init("subsystem", .string(syslog.subsystem)), .init("category", .string(syslog.category)),
      ]
    }
    record.event = ("packetlogger.\(entry.kind)", fields)
    deliver(record, context: context)
  }

  private func bleCodec(_ value: ATTValue, _ bytes: UnsafeRawBufferPointer) -> PayloadRouter.Choice? {
    if let forced = router.forcedIndex { return PayloadRouter.Choice(index: forced, why: .forced) }
    let handle = value.attributeHandle
    for rule in bleMap where rule.handle == handle && rule.connection == value.connectionHandle {
      if let index = codecs.index(named: rule.codec) { return .init(index: index, why: .bleMap) }
    }
    for rule in bleMap where rule.handle == handle && rule.connection == nil {
      if let index = codecs.index(named: rule.codec) { return .init(index: index, why: .bleMap) }
    }
    if let uuid = value.characteristicUUID, let choice = bleNames.gattChoice(uuid, router: router) {
      return choice
    }
    return router.probe(bytes)
  }

  /// src/dst name the connection and the side: `ble 0x0040 central`.
  private func bleRecord(
    _ connection: UInt16, _ direction: BluetoothDirection, frame: Int, time: Double
  ) -> DecodedRecord {
    let (source, destination) = bleNames.endpoints(connection, direction)
    return DecodedRecord(
      frame: frame, time: time, transport: "ble-att", source: source, destination: destination,
      payloadLength: 0)
  }

  /// "Read By Type Request" → "att.read-by-type-request".
  package static func eventName(_ operation: String) -> String {
    "att." + String(operation.lowercased().map { $0 == " " ? "-" : $0 })
  }
}
