import PacketCapture
import PacketKit

/// The texts a BLE record shows that depend only on its connection, handle
/// and characteristic: endpoint names, the `[0x0012 …789abd write-command]`
/// note with the record's extra members, and the GATT routing reason. A
/// capture uses few of each, and making them per ATT value cost more than
/// decoding the value; each table is bounded (cleared when full), so
/// memory stays flat whatever the capture.
struct BluetoothNames {
  private var endpointNames = Kept<UInt32, (String, String)>(recent: 4)
  private var carriers = Kept<CarrierKey, Carrier>(recent: 8)
  private var lastUUID: String?
  private var lastChoice: PayloadRouter.Choice?

  private struct CarrierKey: Hashable {
    var handle: UInt16
    var uuid: String?
    var operation: String
    var direction: BluetoothDirection
  }

  /// How an ATT value travelled, as a record shows it.
  package struct Carrier {
    /// For the summary line: `[0x0012 …789abd write-command]`.
    package var note: String
    /// att_operation, handle, uuid (when known) and direction. One array
    /// for every value on the characteristic, not one per record.
    package var extra: [FieldValue.Member]
  }

  /// src and dst: `0x0040 central` / `0x0040 peripheral`.
  package mutating func endpoints(_ connection: UInt16, _ direction: BluetoothDirection) -> (String, String) {
    endpointNames.value(for: UInt32(connection) << 8 | UInt32(Self.code(direction))) {
      let name = "0x" + Self.hex16(connection)
      return switch direction {
      case .centralToPeripheral: ("\(name) central", "\(name) peripheral")
      case .peripheralToCentral: ("\(name) peripheral", "\(name) central")
      case .hostToController: ("\(name) host", "\(name) remote")
      case .controllerToHost: ("\(name) remote", "\(name) host")
      case .unknown: (name, name)
      }
    }
  }

  /// `[0x0012 …789abd write-command]`: the handle, the characteristic (short
  /// form when it has one) and the ATT operation; and the extra members.
  package mutating func carrier(_ value: ATTValue) -> Carrier {
    let key = CarrierKey(
      handle: value.attributeHandle, uuid: value.characteristicUUID, operation: value.operation,
      direction: value.direction)
    return carriers.value(for: key) {
      let shortUUID =
        value.characteristicUUID.map { uuid in
          let short = BluetoothUUID.shortForm(uuid)
          return short == uuid ? " …\(uuid.suffix(6))" : " \(short)"
        } ?? ""
      var extra: [FieldValue.Member] = [
        .init("att_operation", .string(value.operation)),
        .init("handle", .integer(Int64(value.attributeHandle))),
      ]
      if let uuid = value.characteristicUUID { extra.append(.init("uuid", .string(uuid))) }
      extra.append(.init("direction", .string(value.direction.description)))
      return Carrier(
        note: "[0x\(Self.hex16(value.attributeHandle))\(shortUUID) \(value.operation)]", extra: extra)
    }
  }

  /// Values made once per key: the last few searched first (values keep
  /// coming on a few characteristics, writes one way and notifications the
  /// other, and hashing a key cost more than the rest of a ndjson record's
  /// BLE part), then all the others kept, at most 256 (cleared when full).
  private struct Kept<Key: Hashable, Value> {
    private static var limit: Int { 256 }
    private var recent: RecentTable<Key, Value>
    private var all: [Key: Value] = [:]

    init(recent capacity: Int) {
      recent = RecentTable(capacity: capacity)
    }

    mutating func value(for key: Key, _ make: () -> Value) -> Value {
      if let value = recent.value(for: key) { return value }
      let value: Value
      if let kept = all[key] {
        value = kept
      } else {
        value = make()
        if all.count >= Self.limit { all.removeAll() }
        all[key] = value
      }
      recent.insert(value, for: key)
      return value
    }
  }

  /// The codec whose GATT characteristic `uuid` is; the last answer is
  /// kept, since values keep coming on the same characteristic.
  mutating func gattChoice(_ uuid: String, router: PayloadRouter) -> PayloadRouter.Choice? {
    if let lastUUID, lastUUID == uuid { return lastChoice }
    let choice = router.gattChoice(uuid.lowercased())
    lastUUID = uuid
    lastChoice = choice
    return choice
  }

  private static func code(_ direction: BluetoothDirection) -> UInt8 {
    switch direction {
    case .centralToPeripheral: 0
    case .peripheralToCentral: 1
    case .hostToController: 2
    case .controllerToHost: 3
    case .unknown: 4
    }
  }

  /// Four upper-case hex digits.
  private static func hex16(_ value: UInt16) -> String {
    Hex.compact([UInt8(value >> 8), UInt8(value & 0xFF)]).uppercased()
  }
}
