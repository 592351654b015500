import PacketKit

/// Values longer than one ATT PDU. A long read is a Read Response that
/// fills the PDU followed by Read Blob Responses at growing offsets; a long
/// write is a queue of Prepare Write Requests applied by Execute Write
/// (flags 01) or cancelled (flags 00). Both are held within the limits and
/// reported as one value with the frame of their first byte.
extension BluetoothDecoder {
  func readResponse(_ pdu: UnsafeRawBufferPointer, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void) {
    let connection = context.connection
    let client = context.clientSide.rawValue
    let value = pdu.btSlice(from: 1)
    guard case .read(let handle)? = connection.clients[client].lastRequest else {
      // The request was not captured: the handle is unknown.
      reportValue(context, 0x0B, "read-response", handle: 0, bytes: .borrowed(value), offsetInPDU: 1, emit)
      return
    }
    connection.clients[client].lastRequest = nil
    // A response longer than the MTU we assumed shows the MTU was exchanged
    // before the capture began.
    if value.count > connection.mtu - 1 { connection.mtu = value.count + 1 }
    if value.count == connection.mtu - 1, value.count < limits.maxLongValueLength,
      reserveQuietly(value.count, for: connection)
    {
      connection.clients[client].pendingRead = PendingRead(
        frame: context.frame, time: context.time, handle: handle, value: [UInt8](value),
        offsetInRecord: context.recordOffset.map { $0 + 1 }, direction: context.direction,
        serverSide: context.serverSide)
      return
    }
    reportValue(context, 0x0B, "read-response", handle: handle, bytes: .borrowed(value), offsetInPDU: 1, emit)
  }

  func readBlobRequest(handle: UInt16, offset: Int, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void) {
    let client = context.clientSide.rawValue
    if let pending = context.connection.clients[client].pendingRead,
      pending.handle != handle || pending.value.count != offset
    {
      flushPendingRead(context.connection, clientSide: context.clientSide, emit)
    }
    context.connection.clients[client].lastRequest = .readBlob(handle: handle, offset: offset)
  }

  func readBlobResponse(
    _ pdu: UnsafeRawBufferPointer, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) {
    let connection = context.connection
    let client = context.clientSide.rawValue
    let part = pdu.btSlice(from: 1)
    guard case .readBlob(let handle, let offset)? = connection.clients[client].lastRequest else {
      reportValue(
        context, 0x0D, "read-blob-response", handle: 0, bytes: .borrowed(part), offsetInPDU: 1, emit)
      return
    }
    connection.clients[client].lastRequest = nil
    if part.count > connection.mtu - 1 { connection.mtu = part.count + 1 }
    let continues = part.count == connection.mtu - 1
    if var pending = connection.clients[client].pendingRead, pending.handle == handle,
      pending.value.count == offset
    {
      guard pending.value.count + part.count <= limits.maxLongValueLength,
        reserveQuietly(part.count, for: connection)
      else {
        flushPendingRead(connection, clientSide: context.clientSide, emit)
        emit(
          countedDamage(
            frame: context.frame, time: context.time, layer: "att", offset: context.recordOffset ?? 0,
            text: "long read of handle \(BluetoothText.hex16(handle)) passes the buffering limit at "
              + "offset \(offset); the rest is reported separately"))
        reportValue(
          context, 0x0D, "read-blob-response", handle: handle, bytes: .borrowed(part), offsetInPDU: 1, emit)
        return
      }
      connection.clients[client].pendingRead = nil
      pending.value.append(contentsOf: part)
      pending.offsetInRecord = nil
      connection.clients[client].pendingRead = pending
      if !continues { flushPendingRead(connection, clientSide: context.clientSide, emit) }
      return
    }
    // A long read begun with Read Blob at offset 0 (the Read was skipped or
    // not captured) is held the same way.
    if offset == 0, continues, reserveQuietly(part.count, for: connection) {
      connection.clients[client].pendingRead = PendingRead(
        frame: context.frame, time: context.time, handle: handle, value: [UInt8](part),
        offsetInRecord: context.recordOffset.map { $0 + 1 }, direction: context.direction,
        serverSide: context.serverSide)
      return
    }
    reportValue(
      context, 0x0D, "read-blob-response", handle: handle, bytes: .borrowed(part), offsetInPDU: 1, emit)
  }

  /// Reports a held long read as one Read Response value.
  func flushPendingRead(
    _ connection: BluetoothConnectionState, clientSide: LinkSide, _ emit: (BluetoothEvent) -> Void
  ) {
    guard let pending = connection.clients[clientSide.rawValue].pendingRead else { return }
    connection.clients[clientSide.rawValue].pendingRead = nil
    bufferedBytes -= pending.value.count
    statistics.attValues += 1
    emit(
      .attValue(
        ATTValue(
          frame: pending.frame, time: pending.time, connectionHandle: connection.key.handle,
          adapterIndex: connection.key.adapter, accessAddress: connection.accessAddress,
          direction: pending.direction, opcode: 0x0B, operation: "read-response",
          attributeHandle: pending.handle,
          characteristicUUID: lookup(connection, serverSide: pending.serverSide, handle: pending.handle),
          serviceUUID: serviceUUID(connection, serverSide: pending.serverSide, handle: pending.handle),
          value: pending.value, valueOffsetInRecord: pending.offsetInRecord)))
  }

  func prepareWrite(
    handle: UInt16, offset: Int, part: [UInt8], _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) {
    let connection = context.connection
    let client = context.clientSide.rawValue
    let queuedCount = connection.clients[client].prepared.count
    let queuedBytes = connection.clients[client].preparedBytes
    guard queuedCount < limits.maxPreparedWrites, queuedBytes + part.count <= limits.maxLongValueLength,
      reserveQuietly(part.count, for: connection)
    else {
      bufferedBytes -= queuedBytes
      connection.clients[client].prepared = []
      connection.clients[client].preparedBytes = 0
      emit(
        countedDamage(
          frame: context.frame, time: context.time, layer: "att", offset: context.recordOffset ?? 0,
          text: "prepared write queue on connection \(BluetoothText.hex16(connection.key.handle)) passes "
            + "the limit (\(limits.maxPreparedWrites) writes, \(limits.maxLongValueLength) bytes); "
            + "queue dropped"))
      return
    }
    connection.clients[client].prepared.append(
      PreparedWrite(frame: context.frame, time: context.time, handle: handle, offset: offset, value: part))
    connection.clients[client].preparedBytes += part.count
  }

  func executeWrite(flags: UInt8, trailing: Int, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void) {
    let connection = context.connection
    let client = context.clientSide.rawValue
    let queue = connection.clients[client].prepared
    bufferedBytes -= connection.clients[client].preparedBytes
    connection.clients[client].prepared = []
    connection.clients[client].preparedBytes = 0
    let flagText = BluetoothText.hex8(flags)
    let trailingNote = trailing > 0 ? "\(trailing) trailing byte(s) after the flags" : nil
    guard flags == 0x01 else {
      let note =
        flags == 0x00
        ? trailingNote : "flags \(flagText) are reserved (00 cancels, 01 writes); the queue is dropped"
      report(
        context, 0x18,
        [ATTField("flags", flags == 0 ? "0x00 cancel" : flagText), ATTField("discarded", "\(queue.count)")],
        ByteReader(UnsafeRawBufferPointer(start: nil, count: 0)), diagnostic: note, emit)
      return
    }
    guard !queue.isEmpty else {
      report(
        context, 0x18, [ATTField("flags", "0x01 write")],
        ByteReader(UnsafeRawBufferPointer(start: nil, count: 0)),
        diagnostic: "no Prepare Write Request was captured before this Execute Write", emit)
      return
    }
    // One value per handle, in the order the handles were first prepared.
    var order: [UInt16] = []
    var values: [UInt16: (first: PreparedWrite, value: [UInt8], gap: String?)] = [:]
    for write in queue {
      var entry = values[write.handle] ?? (first: write, value: [], gap: nil)
      if values[write.handle] == nil { order.append(write.handle) }
      if write.offset <= entry.value.count {
        let end = min(entry.value.count, write.offset + write.value.count)
        entry.value.replaceSubrange(write.offset..<end, with: write.value)
      } else if entry.gap == nil {
        entry.gap = "offset \(write.offset) in frame \(write.frame) follows only \(entry.value.count) bytes"
      }
      values[write.handle] = entry
    }
    for handle in order {
      guard let entry = values[handle] else { continue }
      if let gap = entry.gap {
        emit(
          countedDamage(
            frame: context.frame, time: context.time, layer: "att", offset: context.recordOffset ?? 0,
            text: "prepared writes for handle \(BluetoothText.hex16(handle)) leave a gap (\(gap)); "
              + "value dropped"))
        continue
      }
      reportValue(
        context, 0x18, "execute-write", handle: handle, bytes: .owned(entry.value), offsetInPDU: nil,
        frame: entry.first.frame, time: entry.first.time, emit)
    }
  }

  /// Claims buffered bytes if they fit, without reporting anything.
  func reserveQuietly(_ count: Int, for connection: BluetoothConnectionState) -> Bool {
    guard connection.bufferedBytes + count <= limits.maxBufferedBytesPerConnection,
      bufferedBytes + count <= limits.maxBufferedBytes
    else { return false }
    bufferedBytes += count
    return true
  }
}
