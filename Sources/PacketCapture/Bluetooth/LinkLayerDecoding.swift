/// BLE Link Layer packets from sniffers (Core specification Vol 6 Part B,
/// 2.3 and 2.4): advertising PDUs are counted (CONNECT_IND opens a
/// connection), data PDUs carry L2CAP (LLID 2 start or complete, LLID 1
/// continuation or empty), control PDUs are counted (LL_TERMINATE_IND closes
/// the connection). A sniffed connection is keyed by its access address and
/// given a handle of its own.
extension BluetoothDecoder {
  static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

  enum LinkLayerEncryption {
    case clear
    /// Decrypted by the sniffer; the 4-byte MIC is still at the end.
    case decryptedWithMIC
    /// Encrypted and not (or wrongly) decrypted.
    case undecryptable
  }

  /// pcap 256: RF channel, signal, noise, access address offenses,
  /// reference access address (u32 LE), flags (u16 LE), then the packet.
  func decodeLinkLayerWithPseudoHeader(
    _ data: UnsafeRawBufferPointer, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    guard data.count >= 10 else {
      damaged(record, "ll", 0, "LE LL pseudo-header needs 10 bytes, record has \(data.count)", emit)
      return
    }
    let flags = data.btLE16(8)
    // Flags bits 7–9: 2 data central→peripheral, 3 data peripheral→central.
    let side: LinkSide =
      switch (flags >> 7) & 0x7 {
      case 2: .a
      case 3: .b
      default: .unknown
      }
    let crcFailed = flags & 0x0400 != 0 && flags & 0x0800 == 0
    let encryption: LinkLayerEncryption =
      if flags & 0x1000 != 0 {
        flags & 0x2000 != 0 ? .decryptedWithMIC : .undecryptable
      } else if flags & 0x0008 != 0 {
        .decryptedWithMIC
      } else {
        .clear
      }
    decodeLinkLayerPacket(
      data, at: 10, side: side, crcFailed: crcFailed, encryption: encryption, isAdvertising: nil, record, emit
    )
  }

  /// pcap 272: board id, nRF Sniffer UART header (legacy `BE EF` form,
  /// version 1, or version 2/3 with a 16-bit payload length), the event
  /// packet header (length, flags, channel, RSSI, event counter, time), then
  /// the packet from its access address.
  func decodeNordicSniffer(
    _ data: UnsafeRawBufferPointer, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    let legacy = data.count >= 2 && data.btU8(0) == 0xBE && data.btU8(1) == 0xEF
    let packetStart = 17
    guard data.count >= packetStart else {
      damaged(
        record, "ll", 0, "nRF Sniffer headers need \(packetStart) bytes, record has \(data.count)", emit)
      return
    }
    let version = legacy ? 0 : Int(data.btU8(3))
    let packetID = legacy ? data.btU8(2) : data.btU8(6)
    if version >= 2 {
      let payloadLength = Int(data.btLE16(1))
      guard 7 + payloadLength == data.count else {
        damaged(
          record, "ll", 1,
          "nRF Sniffer payload length says \(payloadLength) bytes but the record has \(data.count - 7) "
            + "after the header", emit)
        return
      }
    } else if version == 1 {
      let total = Int(data.btU8(1)) + 1 + Int(data.btU8(2))
      guard total == data.count else {
        damaged(
          record, "ll", 1,
          "nRF Sniffer header and payload lengths add to \(total) bytes; record has \(data.count)",
          emit)
        return
      }
    }
    // EVENT_PACKET (0x06) carries every air packet before version 3; from
    // version 3, 0x06 is data and 0x02 advertising.
    let isAdvertising: Bool?
    switch (packetID, version >= 3) {
    case (0x06, false): isAdvertising = nil
    case (0x06, true): isAdvertising = false
    case (0x02, true): isAdvertising = true
    default:
      undecoded(
        record,
        "nRF Sniffer packet id \(BluetoothText.hex8(packetID)) is a sniffer message, not an air packet",
        emit)
      return
    }
    let flags = data.btU8(8)
    let encryption: LinkLayerEncryption =
      flags & 0x04 == 0 ? .clear : flags & 0x08 != 0 ? .decryptedWithMIC : .undecryptable
    decodeLinkLayerPacket(
      data, at: packetStart, side: flags & 0x02 != 0 ? .a : .b, crcFailed: flags & 0x01 == 0,
      encryption: encryption, isAdvertising: isAdvertising, record, emit)
  }

  /// Access address, PDU header, payload (CRC after it, not checked here).
  func decodeLinkLayerPacket(
    _ data: UnsafeRawBufferPointer, at base: Int, side: LinkSide, crcFailed: Bool,
    encryption: LinkLayerEncryption, isAdvertising: Bool?, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    guard data.count - base >= 6 else {
      damaged(
        record, "ll", base,
        "LL packet needs a 4-byte access address and a 2-byte header, \(max(data.count - base, 0)) bytes remain",
        emit)
      return
    }
    if crcFailed {
      statistics.llCRCErrors += 1
      damaged(record, "ll", base, "LL packet failed its CRC check at capture; ignored", emit)
      return
    }
    let accessAddress = data.btLE32(base)
    if isAdvertising ?? (accessAddress == Self.advertisingAccessAddress) {
      statistics.advertisingPDUs += 1
      advertisingPDU(data, at: base + 4, record, emit)
      return
    }
    let header = data.btU8(base + 4)
    let length = Int(data.btU8(base + 5))
    // CP (bit 5) adds a CTEInfo byte to the header.
    let payloadStart = base + 6 + (header & 0x20 != 0 ? 1 : 0)
    guard data.count - payloadStart >= length else {
      damaged(
        record, "ll", base + 5,
        "LL length says \(length) bytes but \(max(data.count - payloadStart, 0)) remain", emit)
      return
    }
    statistics.llDataPDUs += 1
    var payloadLength = length
    if length > 0 {
      switch encryption {
      case .clear: break
      case .undecryptable:
        undecoded(record, "encrypted LL data PDU the sniffer could not decrypt", emit)
        return
      case .decryptedWithMIC:
        guard length >= 4 else {
          damaged(
            record, "ll", base + 5, "decrypted LL PDU of \(length) bytes is too short for its MIC", emit)
          return
        }
        payloadLength -= 4
      }
    }
    guard let connection = sniffedConnection(accessAddress, record, emit) else { return }
    if side != .unknown {
      let sequence = (header >> 3) & 1
      let digest = Self.digest(header & 0x03, data.btSlice(payloadStart, payloadLength))
      if let last = connection.lastLinkLayerPDU[side.rawValue], last.sequence == sequence,
        last.digest == digest
      {
        statistics.llRetransmissions += 1
        return
      }
      connection.lastLinkLayerPDU[side.rawValue] = (sequence, digest)
    }
    let payload = data.btSlice(payloadStart, payloadLength)
    switch header & 0x03 {
    case 0x03:
      statistics.llControlPDUs += 1
      if payload.count >= 2, payload.btU8(0) == 0x02 {
        terminated(connection, reason: payload.btU8(1), record, emit)
      }
    case 0x02:
      l2capFragment(
        payload, recordOffset: payloadStart, isStart: true, connection: connection, side: side, record, emit)
    case 0x01:
      if payload.isEmpty {
        statistics.llEmptyPDUs += 1
      } else {
        l2capFragment(
          payload, recordOffset: payloadStart, isStart: false, connection: connection, side: side, record,
          emit)
      }
    default:
      damaged(record, "ll", base + 4, "LL data PDU has the reserved LLID 0", emit)
    }
  }

  /// CONNECT_IND (PDU type 5): InitA, AdvA, then LLData starting with the
  /// connection's access address.
  private func advertisingPDU(
    _ data: UnsafeRawBufferPointer, at header: Int, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    let first = data.btU8(header)
    let length = Int(data.btU8(header + 1))
    guard first & 0x0F == 0x05, length >= 34, data.count - (header + 2) >= 34 else { return }
    let initiator = data.btSlice(header + 2, 6)
    let advertiser = data.btSlice(header + 8, 6)
    let accessAddress = data.btLE32(header + 14)
    if let handle = sniffedHandles[accessAddress],
      let stale = connections[BluetoothConnectionKey(adapter: 0, handle: handle)]
    {
      release(stale, because: "a new CONNECT_IND reused its access address", emit)
    }
    guard let connection = sniffedConnection(accessAddress, record, announce: false, emit) else { return }
    let advertiserType: UInt8 = first & 0x80 != 0 ? 1 : 0
    let initiatorType: UInt8 = first & 0x40 != 0 ? 1 : 0
    emit(
      .connection(
        BluetoothConnectionEvent(
          frame: record.frame, time: record.time, connectionHandle: connection.key.handle,
          accessAddress: accessAddress,
          change: .opened(
            localRole: .unknown, peerAddress: BluetoothText.address(advertiser),
            peerAddressType: advertiserType),
          summary: "sniffed connection \(BluetoothText.hex16(connection.key.handle)) (access address "
            + "\(BluetoothText.hex32(accessAddress))) opened: central \(BluetoothText.address(initiator)) "
            + "(\(BluetoothText.addressType(initiatorType))), peripheral "
            + "\(BluetoothText.address(advertiser)) (\(BluetoothText.addressType(advertiserType)))")))
  }

  /// The state for a sniffed access address; nil once it has terminated.
  private func sniffedConnection(
    _ accessAddress: UInt32, _ record: BluetoothRecordContext, announce: Bool = true,
    _ emit: (BluetoothEvent) -> Void
  ) -> BluetoothConnectionState? {
    if let handle = sniffedHandles[accessAddress],
      let state = connections[BluetoothConnectionKey(adapter: 0, handle: handle)]
    {
      state.lastActivity = record.frame
      return state.terminated ? nil : state
    }
    var handle = nextSniffedHandle
    while connections[BluetoothConnectionKey(adapter: 0, handle: handle)] != nil {
      handle = handle >= 0x0EFF ? 1 : handle + 1
    }
    nextSniffedHandle = handle >= 0x0EFF ? 1 : handle + 1
    let state = connection(BluetoothConnectionKey(adapter: 0, handle: handle), record, isSniffed: true, emit)
    state.accessAddress = accessAddress
    sniffedHandles[accessAddress] = handle
    if announce {
      emit(
        .connection(
          BluetoothConnectionEvent(
            frame: record.frame, time: record.time, connectionHandle: handle, accessAddress: accessAddress,
            change: .opened(localRole: .unknown, peerAddress: nil, peerAddressType: nil),
            summary: "sniffed connection \(BluetoothText.hex16(handle)) (access address "
              + "\(BluetoothText.hex32(accessAddress))) already open when the capture began")))
    }
    return state
  }

  private func terminated(
    _ connection: BluetoothConnectionState, reason: UInt8, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    drain(connection, because: "the connection was terminated", emit)
    connection.terminated = true
    emit(
      .connection(
        BluetoothConnectionEvent(
          frame: record.frame, time: record.time, connectionHandle: connection.key.handle,
          accessAddress: connection.accessAddress, change: .closed(reason: reason),
          summary: "sniffed connection \(BluetoothText.hex16(connection.key.handle)) terminated: "
            + HCINames.reason(reason))))
  }

  /// FNV-1a over the LLID and payload: equal for a retransmission whatever
  /// its NESN bit.
  static func digest(_ llid: UInt8, _ payload: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    hash = (hash ^ UInt64(llid)) &* 0x0000_0100_0000_01B3
    hash = (hash ^ UInt64(payload.count)) &* 0x0000_0100_0000_01B3
    for byte in payload {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return hash
  }
}
