/// HCI framing (H4, Linux monitor) and HCI commands and events: the events
/// that open and close connections are tracked, the rest are named.
extension BluetoothDecoder {
  func decodeH4(
    _ data: UnsafeRawBufferPointer, at base: Int, side: LinkSide, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    guard base < data.count else {
      damaged(record, "hci", base, "record has no H4 packet type byte", emit)
      return
    }
    switch data.btU8(base) {
    case 0x01: decodeCommand(data, at: base + 1, record, emit)
    case 0x02: decodeACL(data, at: base + 1, side: side, record, emit)
    case 0x03: statistics.scoPackets += 1
    case 0x04: decodeEvent(data, at: base + 1, record, emit)
    case 0x05: statistics.isoPackets += 1
    default:
      damaged(
        record, "hci", base,
        "unknown H4 packet type \(BluetoothText.hex8(data.btU8(base))) (01 command, 02 ACL, 03 SCO, "
          + "04 event, 05 ISO)", emit)
    }
  }

  /// Linux monitor opcodes (BlueZ btsnoop/monitor format).
  func decodeMonitor(
    _ data: UnsafeRawBufferPointer, at base: Int, adapter: UInt16, opcode: UInt16,
    _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    var record = record
    record.adapter = adapter
    switch opcode {
    case 0:
      // New Index: type, bus, address, 8-byte name.
      var kind = "Monitor New Index hci\(adapter)"
      if data.count - base >= 16 {
        let name = data.btSlice(base + 8, 8).prefix { $0 != 0 }
        kind += " \(BluetoothText.address(data.btSlice(base + 2, 6)))"
        kind += " \(String(decoding: name, as: UTF8.self))"
      }
      emit(.hci(frame: record.frame, time: record.time, kind: kind))
    case 1:
      let removed = connections.values.filter { $0.key.adapter == adapter && !$0.isSniffed }
      for state in removed {
        release(state, because: "adapter hci\(adapter) was removed", emit)
      }
      emit(.hci(frame: record.frame, time: record.time, kind: "Monitor Delete Index hci\(adapter)"))
    case 2: decodeCommand(data, at: base, record, emit)
    case 3: decodeEvent(data, at: base, record, emit)
    case 4: decodeACL(data, at: base, side: .a, record, emit)
    case 5: decodeACL(data, at: base, side: .b, record, emit)
    case 6, 7: statistics.scoPackets += 1
    case 18, 19: statistics.isoPackets += 1
    default: statistics.monitorOther += 1
    }
  }

  func decodeCommand(
    _ data: UnsafeRawBufferPointer, at base: Int, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    statistics.hciCommands += 1
    let available = data.count - base
    guard available >= 3 else {
      damaged(record, "hci", base, "HCI command header needs 3 bytes, \(max(available, 0)) remain", emit)
      return
    }
    let opcode = data.btLE16(base)
    let parameterLength = Int(data.btU8(base + 2))
    let kind = HCINames.command(opcode)
    guard available - 3 >= parameterLength else {
      damaged(
        record, "hci", base + 2,
        "\(kind): parameter length says \(parameterLength) bytes but \(available - 3) remain", emit)
      return
    }
    emit(.hci(frame: record.frame, time: record.time, kind: kind))
  }

  func decodeEvent(
    _ data: UnsafeRawBufferPointer, at base: Int, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    statistics.hciEvents += 1
    let available = data.count - base
    guard available >= 2 else {
      damaged(record, "hci", base, "HCI event header needs 2 bytes, \(max(available, 0)) remain", emit)
      return
    }
    let code = data.btU8(base)
    let parameterLength = Int(data.btU8(base + 1))
    guard available - 2 >= parameterLength else {
      damaged(
        record, "hci", base + 1,
        "\(HCINames.event(code)): parameter length says \(parameterLength) bytes but "
          + "\(available - 2) remain", emit)
      return
    }
    let start = base + 2
    let parameters = data.btSlice(start, parameterLength)
    if let minimum = Self.eventMinimumLengths[code], parameters.count < minimum {
      damaged(
        record, "hci", base + 1,
        "\(HCINames.event(code)) has \(parameters.count) parameter bytes; at least \(minimum) expected", emit)
      return
    }
    switch code {
    case 0x05:
      disconnectionComplete(parameters, record, emit)
    case 0x03:
      // Connection Complete (BR/EDR): status, handle, address, link type, encryption.
      let status = parameters.btU8(0)
      guard status == 0 else { break }
      let handle = parameters.btLE16(1) & 0x0FFF
      opened(
        handle: handle, role: .unknown, peer: parameters.btSlice(3, 6), peerType: nil,
        kind: "BR/EDR", record, emit)
      return
    case 0x3E:
      if leMetaEvent(parameters, record, emit) { return }
    case 0x0E:
      let command = HCINames.commandName(parameters.btLE16(1))
      emit(.hci(frame: record.frame, time: record.time, kind: "HCI event Command Complete (\(command))"))
      return
    case 0x0F:
      let command = HCINames.commandName(parameters.btLE16(2))
      let status = parameters.btU8(0)
      let outcome = status == 0 ? "" : ", status \(BluetoothText.hex8(status))"
      emit(
        .hci(frame: record.frame, time: record.time, kind: "HCI event Command Status (\(command)\(outcome))"))
      return
    default:
      break
    }
    let kind =
      code == 0x3E ? HCINames.leSubevent(parameters.btU8(0)) : HCINames.event(code)
    emit(.hci(frame: record.frame, time: record.time, kind: kind))
  }

  /// LE Meta: the connection-complete subevents open a connection. Returns
  /// whether it reported the event itself.
  private func leMetaEvent(
    _ parameters: UnsafeRawBufferPointer, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) -> Bool {
    let subevent = parameters.btU8(0)
    // 0x01: status, handle, role, peer address type, peer address, ...
    // 0x0A/0x29 (enhanced, v2): the same first fields, then resolvable addresses.
    let minimum: Int
    switch subevent {
    case 0x01: minimum = 19
    case 0x0A: minimum = 31
    case 0x29: minimum = 34
    default: return false
    }
    guard parameters.count >= minimum else {
      damaged(
        record, "hci", 0,
        "\(HCINames.leSubevent(subevent)) has \(parameters.count) parameter bytes; \(minimum) expected", emit)
      return true
    }
    let status = parameters.btU8(1)
    guard status == 0 else {
      emit(
        .hci(
          frame: record.frame, time: record.time,
          kind: "\(HCINames.leSubevent(subevent)) (failed, status \(BluetoothText.hex8(status)))"))
      return true
    }
    let handle = parameters.btLE16(2) & 0x0FFF
    let role: BluetoothRole =
      switch parameters.btU8(4) {
      case 0: .central
      case 1: .peripheral
      default: .unknown
      }
    opened(
      handle: handle, role: role, peer: parameters.btSlice(6, 6), peerType: parameters.btU8(5),
      kind: "LE", record, emit)
    return true
  }

  private func opened(
    handle: UInt16, role: BluetoothRole, peer: UnsafeRawBufferPointer, peerType: UInt8?, kind: String,
    _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    let key = BluetoothConnectionKey(adapter: record.adapter, handle: handle)
    if let stale = connections[key] {
      release(stale, because: "the handle was reused by a new connection", emit)
    }
    let state = connection(key, record, emit)
    state.localRole = role
    let peerAddress = BluetoothText.address(peer)
    var summary = "\(kind) connection \(BluetoothText.hex16(handle)) opened"
    switch role {
    case .central: summary += ", this host central"
    case .peripheral: summary += ", this host peripheral"
    case .unknown: break
    }
    summary += ", peer \(peerAddress)"
    if let peerType { summary += " (\(BluetoothText.addressType(peerType)))" }
    emit(
      .connection(
        BluetoothConnectionEvent(
          frame: record.frame, time: record.time, connectionHandle: handle, adapterIndex: record.adapter,
          change: .opened(localRole: role, peerAddress: peerAddress, peerAddressType: peerType),
          summary: summary)))
  }

  private func disconnectionComplete(
    _ parameters: UnsafeRawBufferPointer, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    let status = parameters.btU8(0)
    let handle = parameters.btLE16(1) & 0x0FFF
    let reason = parameters.btU8(3)
    guard status == 0 else {
      emit(
        .hci(
          frame: record.frame, time: record.time,
          kind: "HCI event Disconnection Complete (failed, status \(BluetoothText.hex8(status)))"))
      return
    }
    let key = BluetoothConnectionKey(adapter: record.adapter, handle: handle)
    if let state = connections[key] {
      release(state, because: "the connection closed", emit)
    }
    emit(
      .connection(
        BluetoothConnectionEvent(
          frame: record.frame, time: record.time, connectionHandle: handle, adapterIndex: record.adapter,
          change: .closed(reason: reason),
          summary: "connection \(BluetoothText.hex16(handle)) closed: \(HCINames.reason(reason))")))
  }

  /// Parameter bytes the events this decoder reads need.
  static let eventMinimumLengths: [UInt8: Int] = [0x03: 11, 0x05: 4, 0x0E: 3, 0x0F: 4, 0x3E: 1]

  /// ACL data: handle, packet boundary flag, length, then an L2CAP fragment.
  func decodeACL(
    _ data: UnsafeRawBufferPointer, at base: Int, side: LinkSide, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    statistics.aclPackets += 1
    let available = data.count - base
    guard available >= 4 else {
      damaged(record, "acl", base, "ACL header needs 4 bytes, \(max(available, 0)) remain", emit)
      return
    }
    let handleAndFlags = data.btLE16(base)
    let handle = handleAndFlags & 0x0FFF
    let boundary = (handleAndFlags >> 12) & 0x3
    let length = Int(data.btLE16(base + 2))
    let key = BluetoothConnectionKey(adapter: record.adapter, handle: handle)
    guard available - 4 >= length else {
      damaged(
        record, "acl", base + 2,
        "ACL data length says \(length) bytes but \(available - 4) remain "
          + "(connection \(BluetoothText.hex16(handle)))", emit)
      if let state = connections[key] {
        discardFlow(state, side: side, because: "a damaged ACL packet broke it", record, emit)
      }
      return
    }
    if available - 4 > length {
      damaged(
        record, "acl", base + 4 + length,
        "ACL data length says \(length) bytes but the record carries \(available - 4); "
          + "the extra bytes are ignored", emit)
    }
    let state = connection(key, record, emit)
    let fragment = data.btSlice(base + 4, length)
    l2capFragment(
      fragment, recordOffset: base + 4, isStart: boundary != 0b01, connection: state, side: side,
      record, emit)
  }
}
