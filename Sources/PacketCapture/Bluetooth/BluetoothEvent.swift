/// What the Bluetooth decoder reports, in capture order (a value that needed
/// later records, such as a long write, is reported when it completes but
/// carries the frame of its first byte).
public enum BluetoothEvent: Sendable, Equatable {
  /// An application value: a write, notification, indication or read result.
  case attValue(ATTValue)
  /// Every other ATT PDU, decoded to a short summary and fields.
  case att(ATTOperation)
  /// A connection opened or closed.
  case connection(BluetoothConnectionEvent)
  /// An HCI command or event, or a monitor record, by name.
  case hci(frame: Int, time: Double, kind: String)
  /// Damage at one layer (hci, acl, l2cap, att, btsnoop, ll): `offset` is the
  /// byte offset in the record, or in the reassembled L2CAP frame when the
  /// text says so. Decoding goes on with the next record.
  case damaged(frame: Int, time: Double, layer: String, offset: Int, text: String)
  /// A record that is intact but carries nothing this decoder reads.
  case undecoded(frame: Int, time: Double, reason: String)
  /// A text record of the capturing host (PacketLogger's notes, syslog
  /// lines, kernel, error, power and config messages): part of the log,
  /// shown as it is, not a packet.
  case log(BluetoothLogEntry)
}

/// Which way a PDU went. With the connection's role known (from an LE
/// Connection Complete event, or from a sniffer) it is central/peripheral;
/// otherwise only the HCI direction is known.
public enum BluetoothDirection: Sendable, Hashable, CustomStringConvertible {
  case centralToPeripheral
  case peripheralToCentral
  case hostToController
  case controllerToHost
  case unknown

  public var description: String {
    switch self {
    case .centralToPeripheral: "central→peripheral"
    case .peripheralToCentral: "peripheral→central"
    case .hostToController: "host→controller"
    case .controllerToHost: "controller→host"
    case .unknown: "direction unknown"
    }
  }
}

/// The capturing host's role in a connection (HCI role 0 is central).
public enum BluetoothRole: Sendable, Hashable, CustomStringConvertible {
  case central
  case peripheral
  /// Not seen (the capture began after the connection), BR/EDR, or a
  /// sniffer capture where the capturing device is in neither role.
  case unknown

  public var description: String {
    switch self {
    case .central: "central"
    case .peripheral: "peripheral"
    case .unknown: "unknown"
    }
  }
}

/// One application value carried by ATT.
public struct ATTValue: Sendable, Equatable {
  /// The first record that carried any of its bytes.
  public var frame: Int
  public var time: Double
  public var connectionHandle: UInt16
  /// Linux monitor adapter index (hciN); 0 for other captures.
  public var adapterIndex: UInt16
  /// The Link Layer access address, for sniffer captures (their connection
  /// handles are numbers the decoder assigns, one per access address).
  public var accessAddress: UInt32?
  public var direction: BluetoothDirection
  /// The ATT opcode that delivered the value (0x18 for a long write
  /// completed by Execute Write).
  public var opcode: UInt8
  /// `write-command`, `write-request`, `signed-write-command`,
  /// `notification`, `indication`, `read-response`, `read-blob-response`,
  /// `read-by-type-response`, `execute-write`.
  public var operation: String
  /// 0 when the handle is unknown (a read response whose request was not
  /// captured).
  public var attributeHandle: UInt16
  /// Canonical lower-case 128-bit UUID (16-bit ones expanded with the
  /// Bluetooth base UUID), a user mapping's name, or nil when unknown.
  public var characteristicUUID: String?
  /// The service whose handle range holds `attributeHandle`, when discovery
  /// was captured.
  public var serviceUUID: String?
  /// The value's bytes (a copy, when the event was delivered borrowed).
  public var value: [UInt8] {
    get { bytes.array }
    set { bytes = .owned(newValue) }
  }
  /// The value's bytes as delivered: owned, or borrowed from the record
  /// being decoded (`BluetoothDecoder.decodeBorrowing`).
  var bytes: ATTBytes
  /// Offset of the value in the record's data when all of it came from that
  /// one record; nil when it was reassembled.
  public var valueOffsetInRecord: Int?

  public init(
    frame: Int, time: Double, connectionHandle: UInt16, adapterIndex: UInt16 = 0,
    accessAddress: UInt32? = nil, direction: BluetoothDirection, opcode: UInt8, operation: String,
    attributeHandle: UInt16, characteristicUUID: String?, serviceUUID: String? = nil, value: [UInt8],
    valueOffsetInRecord: Int?
  ) {
    self.init(
      frame: frame, time: time, connectionHandle: connectionHandle, adapterIndex: adapterIndex,
      accessAddress: accessAddress, direction: direction, opcode: opcode, operation: operation,
      attributeHandle: attributeHandle, characteristicUUID: characteristicUUID, serviceUUID: serviceUUID,
      bytes: .owned(value), valueOffsetInRecord: valueOffsetInRecord)
  }

  init(
    frame: Int, time: Double, connectionHandle: UInt16, adapterIndex: UInt16, accessAddress: UInt32?,
    direction: BluetoothDirection, opcode: UInt8, operation: String, attributeHandle: UInt16,
    characteristicUUID: String?, serviceUUID: String?, bytes: ATTBytes, valueOffsetInRecord: Int?
  ) {
    self.frame = frame
    self.time = time
    self.connectionHandle = connectionHandle
    self.adapterIndex = adapterIndex
    self.accessAddress = accessAddress
    self.direction = direction
    self.opcode = opcode
    self.operation = operation
    self.attributeHandle = attributeHandle
    self.characteristicUUID = characteristicUUID
    self.serviceUUID = serviceUUID
    self.bytes = bytes
    self.valueOffsetInRecord = valueOffsetInRecord
  }

  /// The value's length in bytes.
  public var valueCount: Int { bytes.count }

  /// Runs `body` on the value's bytes without copying them.
  public func withValueBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    try bytes.withBytes(body)
  }
}

/// A named field of an ATT PDU, its value already formatted.
public struct ATTField: Sendable, Hashable, CustomStringConvertible {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  public var description: String { "\(name)=\(value)" }
}

/// An ATT PDU that is not an application value: discovery, MTU exchange,
/// requests, responses, errors, confirmations.
public struct ATTOperation: Sendable, Equatable {
  public var frame: Int
  public var time: Double
  public var connectionHandle: UInt16
  public var adapterIndex: UInt16
  public var direction: BluetoothDirection
  public var opcode: UInt8
  /// The Core specification's name: `Read By Type Request`.
  public var name: String
  public var fields: [ATTField]
  /// Set when the PDU is odd but readable: an unknown opcode, an entry
  /// length that does not divide the list, trailing bytes.
  public var diagnostic: String?

  public init(
    frame: Int, time: Double, connectionHandle: UInt16, adapterIndex: UInt16 = 0,
    direction: BluetoothDirection, opcode: UInt8, name: String, fields: [ATTField],
    diagnostic: String? = nil
  ) {
    self.frame = frame
    self.time = time
    self.connectionHandle = connectionHandle
    self.adapterIndex = adapterIndex
    self.direction = direction
    self.opcode = opcode
    self.name = name
    self.fields = fields
    self.diagnostic = diagnostic
  }

  /// `Exchange MTU Request client_rx_mtu=517`
  public var summary: String {
    var text = ([name] + fields.map(\.description)).joined(separator: " ")
    if let diagnostic { text += " (\(diagnostic))" }
    return text
  }
}

/// A connection opened (LE Connection Complete, Connection Complete, a
/// sniffed CONNECT_IND) or closed (Disconnection Complete, LL_TERMINATE_IND).
public struct BluetoothConnectionEvent: Sendable, Equatable {
  public enum Change: Sendable, Equatable {
    case opened(localRole: BluetoothRole, peerAddress: String?, peerAddressType: UInt8?)
    case closed(reason: UInt8)
  }

  public var frame: Int
  public var time: Double
  public var connectionHandle: UInt16
  public var adapterIndex: UInt16
  public var accessAddress: UInt32?
  public var change: Change
  /// One line for a person: `LE connection 0x0040 opened, this host central,
  /// peer C0:11:22:33:44:55 (random)`.
  public var summary: String

  public init(
    frame: Int, time: Double, connectionHandle: UInt16, adapterIndex: UInt16 = 0,
    accessAddress: UInt32? = nil, change: Change, summary: String
  ) {
    self.frame = frame
    self.time = time
    self.connectionHandle = connectionHandle
    self.adapterIndex = adapterIndex
    self.accessAddress = accessAddress
    self.change = change
    self.summary = summary
  }
}

/// A text record of the capturing host's Bluetooth log: PacketLogger's
/// syslog (F7), kernel (F8), kernel debug (F9), error (FA), power (FB), note
/// (FC), config (FD) and new-controller (FE) records.
public struct BluetoothLogEntry: Sendable, Equatable {
  /// A syslog record's fields besides its message, as Wireshark names them.
  public struct Syslog: Sendable, Equatable {
    public var processID: UInt32
    /// The os_log type: 0 default, 1 info, 2 debug, 16 error, 17 fault.
    public var messageType: UInt8
    public var process: String
    public var sender: String
    public var subsystem: String
    public var category: String

    public init(
      processID: UInt32, messageType: UInt8, process: String, sender: String, subsystem: String,
      category: String
    ) {
      self.processID = processID
      self.messageType = messageType
      self.process = process
      self.sender = sender
      self.subsystem = subsystem
      self.category = category
    }
  }

  public var frame: Int
  public var time: Double
  /// `syslog`, `kernel`, `kernel-debug`, `error`, `power`, `note`, `config`,
  /// `new-controller`.
  public var kind: String
  /// The text, up to its first NUL, with trailing white space removed; for
  /// syslog, the message.
  public var message: String
  public var syslog: Syslog?

  public init(frame: Int, time: Double, kind: String, message: String, syslog: Syslog? = nil) {
    self.frame = frame
    self.time = time
    self.kind = kind
    self.message = message
    self.syslog = syslog
  }
}
