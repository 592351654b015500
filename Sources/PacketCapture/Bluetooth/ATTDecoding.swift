import PacketKit

/// Where an ATT PDU came from, for the events it produces.
struct ATTContext {
  var frame: Int
  var time: Double
  var connection: BluetoothConnectionState
  var side: LinkSide
  var clientSide: LinkSide
  var serverSide: LinkSide
  var direction: BluetoothDirection
  /// Offset of the PDU's opcode in its record, when the PDU came whole in one.
  var recordOffset: Int?
}

/// ATT PDUs (Core specification Vol 3 Part F, 3.4): values become
/// `attValue` events, everything else `att` events; discovery responses
/// teach the handle map.
extension BluetoothDecoder {
  func decodeATT(
    _ pdu: UnsafeRawBufferPointer, recordOffset: Int?, frame: Int, time: Double,
    connection: BluetoothConnectionState, side: LinkSide, _ emit: (BluetoothEvent) -> Void
  ) {
    statistics.attPDUs += 1
    guard !pdu.isEmpty else {
      emit(
        countedDamage(
          frame: frame, time: time, layer: "att", offset: recordOffset ?? 0,
          text: "empty ATT PDU on connection \(BluetoothText.hex16(connection.key.handle))"))
      return
    }
    let opcode = pdu.btU8(0)
    let fromClient = ATTNames.isFromClient(opcode)
    let context = ATTContext(
      frame: frame, time: time, connection: connection, side: side,
      clientSide: fromClient ? side : side.opposite, serverSide: fromClient ? side.opposite : side,
      direction: connection.direction(side), recordOffset: recordOffset)
    // Any other client PDU ends a long read the client was making.
    if fromClient && opcode != 0x0C {
      flushPendingRead(connection, clientSide: context.clientSide, emit)
    }
    do throws(DecodeError) {
      try decodeATTPDU(opcode, pdu, context, emit)
    } catch {
      let offset = error.offset ?? 0
      var text = "\(ATTNames.opcode(opcode)) on connection \(BluetoothText.hex16(connection.key.handle)): "
      text += error.text
      if recordOffset == nil { text += " (offset \(offset) of the reassembled ATT PDU)" }
      emit(
        countedDamage(
          frame: frame, time: time, layer: "att", offset: recordOffset.map { $0 + offset } ?? offset,
          text: text))
    }
  }

  private func decodeATTPDU(
    _ opcode: UInt8, _ pdu: UnsafeRawBufferPointer, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) throws(DecodeError) {
    var reader = ByteReader(pdu, offset: 1)
    let connection = context.connection
    let client = context.clientSide.rawValue
    switch opcode {
    case 0x01:
      let request = try reader.readUInt8("request opcode in error")
      let handle = try reader.readUInt16LE("attribute handle in error")
      let code = try reader.readUInt8("error code")
      if request == 0x0A || request == 0x0C {
        flushPendingRead(connection, clientSide: context.clientSide, emit)
      }
      report(
        context, opcode,
        [
          ATTField("request", "\(ATTNames.opcode(request)) (\(BluetoothText.hex8(request)))"),
          ATTField("handle", BluetoothText.hex16(handle)), ATTField("error", ATTNames.error(code)),
        ], reader, emit)

    case 0x02, 0x03:
      let mtu = Int(try reader.readUInt16LE(opcode == 0x02 ? "client_rx_mtu" : "server_rx_mtu"))
      if opcode == 0x02 {
        connection.clientMTU = mtu
      } else {
        connection.mtu = max(23, min(connection.clientMTU ?? mtu, mtu))
      }
      report(
        context, opcode, [ATTField(opcode == 0x02 ? "client_rx_mtu" : "server_rx_mtu", "\(mtu)")], reader,
        emit)

    case 0x04:
      let range = try readRange(&reader)
      connection.clients[client].lastRequest = .other(opcode: opcode)
      report(context, opcode, range, reader, emit)

    case 0x05: try findInformationResponse(&reader, context, emit)

    case 0x06:
      let range = try readRange(&reader)
      let type = try reader.readUInt16LE("attribute type")
      let value = try reader.readBytes(reader.remaining, "attribute value")
      connection.clients[client].lastRequest = .findByTypeValue(type: type, value: value)
      report(
        context, opcode,
        range + [
          ATTField("type", BluetoothText.hex16(type)), ATTField("value", Hex.spaced(value.prefix(64))),
        ], reader, emit)

    case 0x07: try findByTypeValueResponse(&reader, context, emit)

    case 0x08, 0x10:
      let range = try readRange(&reader)
      let type = try readUUID(&reader, count: reader.remaining, "attribute type")
      connection.clients[client].lastRequest =
        opcode == 0x08 ? .readByType(type: type) : .readByGroupType(type: type)
      report(context, opcode, range + [ATTField("type", BluetoothUUID.shortForm(type))], reader, emit)

    case 0x09: try readByTypeResponse(&reader, context, emit)

    case 0x0A:
      let handle = try reader.readUInt16LE("attribute handle")
      connection.clients[client].lastRequest = .read(handle: handle)
      report(context, opcode, [ATTField("handle", BluetoothText.hex16(handle))], reader, emit)

    case 0x0B: readResponse(pdu, context, emit)

    case 0x0C:
      let handle = try reader.readUInt16LE("attribute handle")
      let offset = Int(try reader.readUInt16LE("value offset"))
      readBlobRequest(handle: handle, offset: offset, context, emit)
      report(
        context, opcode, [ATTField("handle", BluetoothText.hex16(handle)), ATTField("offset", "\(offset)")],
        reader, emit)

    case 0x0D: readBlobResponse(pdu, context, emit)

    case 0x0E, 0x20:
      var handles: [ATTField] = []
      while reader.remaining >= 2 {
        handles.append(ATTField("handle", BluetoothText.hex16(try reader.readUInt16LE("attribute handle"))))
      }
      connection.clients[client].lastRequest = .other(opcode: opcode)
      report(context, opcode, handles, reader, emit)

    case 0x0F, 0x21:
      report(
        context, opcode, [ATTField("length", "\(reader.remaining)")], ByteReader(pdu, offset: pdu.count), emit
      )

    case 0x11: try readByGroupTypeResponse(&reader, context, emit)

    case 0x12, 0x52, 0x1B, 0x1D:
      let handle = try reader.readUInt16LE("attribute handle")
      let start = reader.offset
      let value = try reader.readView(reader.remaining, "attribute value")
      if opcode == 0x12 { connection.clients[client].lastRequest = .other(opcode: opcode) }
      let operation =
        switch opcode {
        case 0x12: "write-request"
        case 0x52: "write-command"
        case 0x1B: "notification"
        default: "indication"
        }
      reportValue(
        context, opcode, operation, handle: handle, bytes: .borrowed(value), offsetInPDU: start, emit)

    case 0xD2:
      let handle = try reader.readUInt16LE("attribute handle")
      try reader.require(12, for: "authentication signature")
      let start = reader.offset
      let value = try reader.readView(reader.remaining - 12, "attribute value")
      reportValue(
        context, opcode, "signed-write-command", handle: handle, bytes: .borrowed(value), offsetInPDU: start,
        emit)

    case 0x16:
      let handle = try reader.readUInt16LE("attribute handle")
      let offset = Int(try reader.readUInt16LE("value offset"))
      let part = try reader.readBytes(reader.remaining, "part attribute value")
      connection.clients[client].lastRequest = .other(opcode: opcode)
      prepareWrite(handle: handle, offset: offset, part: part, context, emit)
      report(
        context, opcode,
        [
          ATTField("handle", BluetoothText.hex16(handle)), ATTField("offset", "\(offset)"),
          ATTField("value", Hex.spaced(part.prefix(64))),
        ], reader, emit)

    case 0x17:
      let handle = try reader.readUInt16LE("attribute handle")
      let offset = Int(try reader.readUInt16LE("value offset"))
      let part = try reader.readBytes(reader.remaining, "part attribute value")
      report(
        context, opcode,
        [
          ATTField("handle", BluetoothText.hex16(handle)), ATTField("offset", "\(offset)"),
          ATTField("value", Hex.spaced(part.prefix(64))),
        ], reader, emit)

    case 0x18:
      let flags = try reader.readUInt8("flags")
      connection.clients[client].lastRequest = .other(opcode: opcode)
      executeWrite(flags: flags, trailing: reader.remaining, context, emit)

    case 0x23: try multipleHandleValueNotification(&reader, context, emit)

    case 0x13, 0x19, 0x1E:
      report(context, opcode, [], reader, emit)

    default:
      report(
        context, opcode, [ATTField("length", "\(pdu.count)")], ByteReader(pdu, offset: pdu.count),
        diagnostic: "opcode \(BluetoothText.hex8(opcode)) is not defined by the Core specification; "
          + "\(pdu.count - 1) parameter bytes not decoded", emit)
    }
  }

  private func multipleHandleValueNotification(
    _ reader: inout ByteReader, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) throws(DecodeError) {
    while !reader.isAtEnd {
      let handle = try reader.readUInt16LE("attribute handle")
      let length = Int(try reader.readUInt16LE("value length"))
      let start = reader.offset
      let value = try reader.readView(length, "attribute value")
      reportValue(
        context, 0x23, "notification", handle: handle, bytes: .borrowed(value), offsetInPDU: start, emit)
    }
  }

  // MARK: Helpers

  func readRange(_ reader: inout ByteReader) throws(DecodeError) -> [ATTField] {
    let start = try reader.readUInt16LE("starting handle")
    let end = try reader.readUInt16LE("ending handle")
    return [
      ATTField("start_handle", BluetoothText.hex16(start)), ATTField("end_handle", BluetoothText.hex16(end)),
    ]
  }

  /// A UUID of 2 or 16 bytes as ATT carries them.
  func readUUID(_ reader: inout ByteReader, count: Int, _ field: String) throws(DecodeError) -> String {
    guard count == 2 || count == 16 else {
      let offset = reader.offset
      throw DecodeError(code: "bad-length", offset: offset) {
        .init(
          "\(field) is \(count) bytes at offset \(offset); 2 or 16 expected", expected: "2 or 16 bytes",
          found: "\(count) bytes")
      }
    }
    try reader.require(count, for: field)
    let uuid = BluetoothUUID.canonical(littleEndian: reader.bytes.btSlice(reader.offset, count)) ?? ""
    try reader.skip(count, field)
    return uuid
  }

  /// Reports a PDU as an `att` event, noting bytes left after its fields.
  func report(
    _ context: ATTContext, _ opcode: UInt8, _ fields: [ATTField], _ reader: ByteReader,
    diagnostic: String? = nil, _ emit: (BluetoothEvent) -> Void
  ) {
    var note = diagnostic
    if note == nil, reader.remaining > 0 {
      note = "\(reader.remaining) trailing byte(s) after the fields at offset \(reader.offset)"
    }
    emit(
      .att(
        ATTOperation(
          frame: context.frame, time: context.time, connectionHandle: context.connection.key.handle,
          adapterIndex: context.connection.key.adapter, direction: context.direction, opcode: opcode,
          name: ATTNames.opcode(opcode), fields: fields, diagnostic: note)))
  }

  /// Reports an application value with what the handle map knows of it.
  /// `bytes` may be a view of the PDU: the event is handled before it returns.
  func reportValue(
    _ context: ATTContext, _ opcode: UInt8, _ operation: String, handle: UInt16, bytes: ATTBytes,
    offsetInPDU: Int?, frame: Int? = nil, time: Double? = nil, _ emit: (BluetoothEvent) -> Void
  ) {
    statistics.attValues += 1
    let connection = context.connection
    let known = handle != 0
    emit(
      .attValue(
        ATTValue(
          frame: frame ?? context.frame, time: time ?? context.time, connectionHandle: connection.key.handle,
          adapterIndex: connection.key.adapter, accessAddress: connection.accessAddress,
          direction: context.direction, opcode: opcode, operation: operation, attributeHandle: handle,
          characteristicUUID: known
            ? lookup(connection, serverSide: context.serverSide, handle: handle) : nil,
          serviceUUID: known ? serviceUUID(connection, serverSide: context.serverSide, handle: handle) : nil,
          bytes: bytes,
          valueOffsetInRecord: offsetInPDU.flatMap { offset in context.recordOffset.map { $0 + offset } })))
  }
}
