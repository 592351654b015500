import PacketKit

/// GATT discovery responses teach the decoder which characteristic each
/// handle holds (Core specification Vol 3 Part G, 4.4–4.7): services from
/// Read By Group Type and Find By Type Value, characteristic declarations
/// (type 0x2803) from Read By Type, and handle/UUID pairs from Find
/// Information.
extension BluetoothDecoder {
  func findInformationResponse(
    _ reader: inout ByteReader, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) throws(DecodeError) {
    let format = try reader.readUInt8("format")
    let size: Int
    switch format {
    case 1: size = 4
    case 2: size = 18
    default:
      throw DecodeError(code: "bad-format", offset: 1) {
        .init(
          "format at offset 1 is \(BluetoothText.hex8(format)); 01 (16-bit UUIDs) or 02 (128-bit) expected",
          expected: "01 or 02", found: BluetoothText.hex8(format))
      }
    }
    try reader.require(size, for: "information data")
    var fields = [ATTField("format", format == 1 ? "16-bit" : "128-bit")]
    while reader.remaining >= size {
      let handle = try reader.readUInt16LE("handle")
      let uuid = try readUUID(&reader, count: size - 2, "UUID")
      learn(
        context.connection, serverSide: context.serverSide, handle: handle, uuid: uuid, fromDeclaration: false
      )
      fields.append(ATTField(BluetoothText.hex16(handle), BluetoothUUID.shortForm(uuid)))
    }
    report(context, 0x05, fields, reader, diagnostic: leftover(reader, entrySize: size), emit)
  }

  func findByTypeValueResponse(
    _ reader: inout ByteReader, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) throws(DecodeError) {
    try reader.require(4, for: "handles information")
    var service: String?
    if case .findByTypeValue(let type, let value)? = context.connection.clients[context.clientSide.rawValue]
      .lastRequest, type == 0x2800 || type == 0x2801
    {
      service = BluetoothUUID.canonical(littleEndian: value)
    }
    var fields: [ATTField] = []
    while reader.remaining >= 4 {
      let found = try reader.readUInt16LE("found attribute handle")
      let end = try reader.readUInt16LE("group end handle")
      if let service {
        addService(context.connection, serverSide: context.serverSide, start: found, end: end, uuid: service)
      }
      fields.append(
        ATTField(
          "\(BluetoothText.hex16(found))-\(BluetoothText.hex16(end))",
          service.map(BluetoothUUID.shortForm) ?? "group"))
    }
    report(context, 0x07, fields, reader, diagnostic: leftover(reader, entrySize: 4), emit)
  }

  func readByTypeResponse(
    _ reader: inout ByteReader, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) throws(DecodeError) {
    let length = Int(try reader.readUInt8("length"))
    guard length >= 2 else {
      throw DecodeError(code: "bad-length", offset: 1) {
        .init(
          "entry length at offset 1 is \(length); at least 2 (the handle) expected", expected: "≥ 2",
          found: "\(length)")
      }
    }
    try reader.require(length, for: "attribute data")
    var type: String?
    if case .readByType(let requested)? = context.connection.clients[context.clientSide.rawValue].lastRequest
    {
      type = requested
    }
    // Without the request (capture began mid-discovery) a list of 7- or
    // 21-byte entries is taken for characteristic declarations.
    let declarationSized = length == 7 || length == 21
    let declarations = type == BluetoothUUID.characteristic || (type == nil && declarationSized)
    let valueType = type.flatMap { Self.declarationTypes.contains($0) ? nil : $0 }
    var fields: [ATTField] = []
    var note: String?
    while reader.remaining >= length {
      let handle = try reader.readUInt16LE("attribute handle")
      if declarations && declarationSized {
        let properties = try reader.readUInt8("characteristic properties")
        let valueHandle = try reader.readUInt16LE("characteristic value handle")
        let uuid = try readUUID(&reader, count: length - 5, "characteristic UUID")
        learn(
          context.connection, serverSide: context.serverSide, handle: valueHandle, uuid: uuid,
          fromDeclaration: true)
        fields.append(
          ATTField(
            BluetoothText.hex16(valueHandle),
            "\(BluetoothUUID.shortForm(uuid)) \(Self.propertyNames(properties))"))
      } else {
        let start = reader.offset
        let value = try reader.readView(length - 2, "attribute value")
        if let valueType {
          learn(
            context.connection, serverSide: context.serverSide, handle: handle, uuid: valueType,
            fromDeclaration: false)
          reportValue(
            context, 0x09, "read-by-type-response", handle: handle, bytes: .borrowed(value),
            offsetInPDU: start,
            emit)
        }
        fields.append(ATTField(BluetoothText.hex16(handle), Hex.spaced(value.prefix(32))))
      }
    }
    if declarations && !declarationSized {
      note = "characteristic declarations are 7 or 21 bytes; entries here are \(length)"
    }
    report(context, 0x09, fields, reader, diagnostic: note ?? leftover(reader, entrySize: length), emit)
  }

  func readByGroupTypeResponse(
    _ reader: inout ByteReader, _ context: ATTContext, _ emit: (BluetoothEvent) -> Void
  ) throws(DecodeError) {
    let length = Int(try reader.readUInt8("length"))
    guard length == 6 || length == 20 else {
      throw DecodeError(code: "bad-length", offset: 1) {
        .init(
          "entry length at offset 1 is \(length); 6 or 20 expected (handle, end group handle, "
            + "2- or 16-byte UUID)", expected: "6 or 20", found: "\(length)")
      }
    }
    try reader.require(length, for: "attribute data")
    var type: String?
    if case .readByGroupType(let requested)? = context.connection.clients[context.clientSide.rawValue]
      .lastRequest
    {
      type = requested
    }
    let services =
      type == nil || type == BluetoothUUID.primaryService || type == BluetoothUUID.secondaryService
    var fields: [ATTField] = []
    while reader.remaining >= length {
      let handle = try reader.readUInt16LE("attribute handle")
      let end = try reader.readUInt16LE("end group handle")
      let uuid = try readUUID(&reader, count: length - 4, "attribute value")
      if services {
        addService(context.connection, serverSide: context.serverSide, start: handle, end: end, uuid: uuid)
      }
      fields.append(
        ATTField("\(BluetoothText.hex16(handle))-\(BluetoothText.hex16(end))", BluetoothUUID.shortForm(uuid)))
    }
    report(context, 0x11, fields, reader, diagnostic: leftover(reader, entrySize: length), emit)
  }

  // MARK: The handle map

  static let declarationTypes: Set<String> = [
    BluetoothUUID.primaryService, BluetoothUUID.secondaryService, BluetoothUUID.include,
    BluetoothUUID.characteristic,
  ]

  func learn(
    _ connection: BluetoothConnectionState, serverSide: LinkSide, handle: UInt16, uuid: String,
    fromDeclaration: Bool
  ) {
    let entry = GATTEntry(uuid: uuid, fromDeclaration: fromDeclaration)
    let side = serverSide.rawValue
    if let existing = connection.handles[side][handle] {
      if !existing.fromDeclaration || fromDeclaration { connection.handles[side][handle] = entry }
    } else if connection.handles[side].count < limits.maxHandlesPerConnection {
      connection.handles[side][handle] = entry
    }
    if let existing = globalHandles[handle] {
      if !existing.fromDeclaration || fromDeclaration { globalHandles[handle] = entry }
    } else if globalHandles.count < limits.maxHandlesPerConnection {
      globalHandles[handle] = entry
    }
  }

  func addService(
    _ connection: BluetoothConnectionState, serverSide: LinkSide, start: UInt16, end: UInt16, uuid: String
  ) {
    let service = GATTService(start: start, end: end, uuid: uuid)
    let side = serverSide.rawValue
    if let index = connection.services[side].firstIndex(where: { $0.start == start }) {
      connection.services[side][index] = service
    } else if connection.services[side].count < limits.maxServicesPerConnection {
      connection.services[side].append(service)
    }
  }

  func serviceUUID(_ connection: BluetoothConnectionState, serverSide: LinkSide, handle: UInt16) -> String? {
    // The server's side, then the side not yet known; with no side known,
    // any. (No array of sides: this runs for every ATT value.)
    if let service = connection.service(containing: handle, serverSide: serverSide) { return service.uuid }
    if serverSide == .unknown {
      return connection.service(containing: handle, serverSide: .b)?.uuid
        ?? connection.service(containing: handle, serverSide: .a)?.uuid
    }
    return connection.service(containing: handle, serverSide: .unknown)?.uuid
  }

  private func leftover(_ reader: ByteReader, entrySize: Int) -> String? {
    reader.remaining > 0
      ? "\(reader.remaining) byte(s) left over: the list is not a whole number of \(entrySize)-byte entries"
      : nil
  }

  /// `read|notify`, from the characteristic properties bits.
  static func propertyNames(_ properties: UInt8) -> String {
    let names: [(UInt8, String)] = [
      (0x01, "broadcast"), (0x02, "read"), (0x04, "write-without-response"), (0x08, "write"),
      (0x10, "notify"), (0x20, "indicate"), (0x40, "signed-write"), (0x80, "extended"),
    ]
    let set = names.filter { properties & $0.0 != 0 }.map(\.1)
    return set.isEmpty ? "properties=none" : "properties=" + set.joined(separator: "|")
  }
}
