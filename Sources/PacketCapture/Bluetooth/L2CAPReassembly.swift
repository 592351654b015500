/// L2CAP basic frames (length u16 LE, channel u16 LE, payload) put together
/// from ACL or Link Layer fragments, one frame in progress per connection
/// and direction. Only ATT frames keep their bytes; frames on channels that
/// are only counted are followed by length and skipped.
extension BluetoothDecoder {
  static let attChannel: UInt16 = 0x0004

  func l2capFragment(
    _ fragment: UnsafeRawBufferPointer, recordOffset: Int, isStart: Bool,
    connection: BluetoothConnectionState, side: LinkSide, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) {
    if isStart {
      l2capStart(fragment, recordOffset: recordOffset, connection: connection, side: side, record, emit)
    } else {
      l2capContinuation(
        fragment, recordOffset: recordOffset, connection: connection, side: side, record, emit)
    }
  }

  private func l2capStart(
    _ fragment: UnsafeRawBufferPointer, recordOffset: Int, connection: BluetoothConnectionState,
    side: LinkSide, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    if connection.flows[side.rawValue] != nil {
      discardFlow(connection, side: side, because: "a new L2CAP frame started", record, emit)
    }
    guard fragment.count >= 4 else {
      guard !fragment.isEmpty else {
        damaged(record, "l2cap", recordOffset, "empty L2CAP start fragment", emit)
        return
      }
      // The basic header itself is split across fragments (legal, rare).
      var flow = L2CAPFlow(
        frame: record.frame, time: record.time, expectedLength: nil, channel: nil, bytes: [],
        skipping: false, received: fragment.count)
      if reserve(fragment.count, for: connection, record, emit) {
        flow.bytes = Array(fragment)
      } else {
        flow.skipping = true
      }
      connection.flows[side.rawValue] = flow
      return
    }
    let length = Int(fragment.btLE16(0))
    let channel = fragment.btLE16(2)
    let total = 4 + length
    if fragment.count >= total {
      if fragment.count > total {
        damaged(
          record, "l2cap", recordOffset + total,
          "fragment carries \(fragment.count - total) bytes beyond the L2CAP length \(length); "
            + "they are ignored", emit)
      }
      deliverL2CAP(
        channel: channel, payload: fragment.btSlice(4, length), recordOffset: recordOffset + 4,
        frame: record.frame, time: record.time, connection: connection, side: side, emit)
      return
    }
    var flow = L2CAPFlow(
      frame: record.frame, time: record.time, expectedLength: total, channel: channel, bytes: [],
      skipping: channel != Self.attChannel, received: fragment.count)
    if !flow.skipping {
      if length > limits.maxL2CAPPayload {
        damaged(
          record, "l2cap", recordOffset,
          "L2CAP length \(length) is over the \(limits.maxL2CAPPayload)-byte limit; frame skipped", emit)
        flow.skipping = true
      } else if reserve(fragment.count, for: connection, record, emit) {
        flow.bytes.reserveCapacity(min(total, 4096))
        flow.bytes.append(contentsOf: fragment)
      } else {
        flow.skipping = true
      }
    }
    connection.flows[side.rawValue] = flow
  }

  private func l2capContinuation(
    _ fragment: UnsafeRawBufferPointer, recordOffset: Int, connection: BluetoothConnectionState,
    side: LinkSide, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    guard var flow = connection.flows[side.rawValue] else {
      damaged(
        record, "l2cap", recordOffset,
        "continuation fragment of \(fragment.count) bytes on connection "
          + "\(BluetoothText.hex16(connection.key.handle)) (\(connection.direction(side))) "
          + "with no L2CAP frame started; dropped", emit)
      return
    }
    if let expected = flow.expectedLength, flow.received + fragment.count > expected {
      connection.flows[side.rawValue] = nil
      bufferedBytes -= flow.bytes.count
      damaged(
        record, "l2cap", recordOffset,
        "continuation brings the L2CAP frame started in frame \(flow.frame) to "
          + "\(flow.received + fragment.count) bytes, past its length \(expected); frame dropped", emit)
      return
    }
    flow.received += fragment.count
    // Reserve while the stored flow still counts towards the connection,
    // then clear the stored copy so the append below does not copy.
    let fits = flow.skipping || reserve(fragment.count, for: connection, record, emit)
    connection.flows[side.rawValue] = nil
    if !flow.skipping {
      if fits {
        flow.bytes.append(contentsOf: fragment)
      } else {
        bufferedBytes -= flow.bytes.count
        flow.bytes = []
        flow.skipping = true
      }
    }
    if flow.expectedLength == nil, flow.bytes.count >= 4 {
      let header = flow.bytes.withUnsafeBytes { (Int($0.btLE16(0)), $0.btLE16(2)) }
      flow.expectedLength = 4 + header.0
      flow.channel = header.1
      if header.1 != Self.attChannel || header.0 > limits.maxL2CAPPayload {
        bufferedBytes -= flow.bytes.count
        flow.bytes = []
        flow.skipping = true
      }
      if flow.received > 4 + header.0 {
        damaged(
          record, "l2cap", recordOffset,
          "L2CAP frame started in frame \(flow.frame) has \(flow.received) bytes, past its length "
            + "\(4 + header.0); frame dropped", emit)
        bufferedBytes -= flow.bytes.count
        return
      }
    }
    guard let expected = flow.expectedLength, flow.received == expected else {
      connection.flows[side.rawValue] = flow
      return
    }
    if flow.skipping {
      countChannel(flow.channel)
      return
    }
    bufferedBytes -= flow.bytes.count
    flow.bytes.withUnsafeBytes { bytes in
      deliverL2CAP(
        channel: flow.channel ?? 0, payload: bytes.btSlice(from: 4), recordOffset: nil, frame: flow.frame,
        time: flow.time, connection: connection, side: side, emit)
    }
  }

  /// Drops the frame in progress for one direction, saying why.
  func discardFlow(
    _ connection: BluetoothConnectionState, side: LinkSide, because reason: String,
    _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    guard let flow = connection.flows[side.rawValue] else { return }
    connection.flows[side.rawValue] = nil
    bufferedBytes -= flow.bytes.count
    let channel = flow.channel.map { " on channel \(BluetoothText.hex16($0))" } ?? ""
    damaged(
      record, "l2cap", 0,
      "L2CAP frame\(channel) started in frame \(flow.frame) was incomplete (\(flow.received) of "
        + "\(flow.expectedLength.map(String.init) ?? "?") bytes) when \(reason); dropped", emit)
  }

  /// Claims `count` more buffered bytes within the per-connection and total
  /// limits, or reports that the frame is dropped.
  func reserve(
    _ count: Int, for connection: BluetoothConnectionState, _ record: BluetoothRecordContext,
    _ emit: (BluetoothEvent) -> Void
  ) -> Bool {
    let perConnection = connection.bufferedBytes + count
    guard perConnection <= limits.maxBufferedBytesPerConnection,
      bufferedBytes + count <= limits.maxBufferedBytes
    else {
      damaged(
        record, "l2cap", 0,
        "holding \(count) more bytes for connection \(BluetoothText.hex16(connection.key.handle)) would "
          + "pass the buffering limit (\(limits.maxBufferedBytesPerConnection) per connection, "
          + "\(limits.maxBufferedBytes) in all); frame dropped", emit)
      return false
    }
    bufferedBytes += count
    return true
  }

  func deliverL2CAP(
    channel: UInt16, payload: UnsafeRawBufferPointer, recordOffset: Int?, frame: Int, time: Double,
    connection: BluetoothConnectionState, side: LinkSide, _ emit: (BluetoothEvent) -> Void
  ) {
    countChannel(channel)
    guard channel == Self.attChannel else { return }
    decodeATT(
      payload, recordOffset: recordOffset, frame: frame, time: time, connection: connection, side: side,
      emit)
  }

  private func countChannel(_ channel: UInt16?) {
    switch channel {
    case Self.attChannel: statistics.l2capATT += 1
    case 0x0001, 0x0005: statistics.l2capSignalling += 1
    case 0x0006, 0x0007: statistics.l2capSMP += 1
    default: statistics.l2capOther += 1
    }
  }
}
