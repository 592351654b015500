import PacketCapture
import Testing

/// From HCI records down to ATT values: connection role, GATT discovery,
/// the LegCtrl write command and telemetry notification.
@Suite struct BluetoothATTTests {
  static let hciLinkTypes: [BluetoothLinkType] = [
    .hciH4, .hciUnencapsulated, .hciH4WithDirectionHeader, .linuxMonitorBtsnoop, .linuxMonitorPcap,
    .packetLogger,
  ]

  @Test(arguments: hciLinkTypes)
  func legCtrlSessionGivesValuesWithUUIDAndDirection(linkType: BluetoothLinkType) throws {
    let decoder = BluetoothDecoder()
    let events = decodeBluetooth(decoder, linkType, packets: LegCtrlSession.session)

    #expect(events.damages.isEmpty)
    let opened = try #require(events.connectionEvents.first)
    #expect(opened.connectionHandle == 0x0040)
    #expect(
      opened.change == .opened(localRole: .central, peerAddress: "C0:11:22:33:44:55", peerAddressType: 1))

    let values = events.values
    try #require(values.count == 2)
    let write = values[0]
    #expect(write.frame == 8)
    #expect(write.connectionHandle == 0x0040)
    #expect(write.direction == .centralToPeripheral)
    #expect(write.direction.description == "central→peripheral")
    #expect(write.opcode == 0x52)
    #expect(write.operation == "write-command")
    #expect(write.attributeHandle == 0x000C)
    #expect(write.characteristicUUID == LegCtrlSession.command)
    #expect(write.serviceUUID == LegCtrlSession.service)
    #expect(write.value == LegCtrlSession.servo1500)

    let notification = values[1]
    #expect(notification.frame == 9)
    #expect(notification.direction == .peripheralToCentral)
    #expect(notification.operation == "notification")
    #expect(notification.attributeHandle == 0x000E)
    #expect(notification.characteristicUUID == LegCtrlSession.telemetry)
    #expect(notification.value == LegCtrlSession.telemetryDisarmed)

    #expect(decoder.characteristicUUID(connection: 0x0040, handle: 0x000C) == LegCtrlSession.command)
    #expect(decoder.characteristicUUID(connection: 0x0040, handle: 0x000E) == LegCtrlSession.telemetry)
  }

  @Test func valueOffsetPointsAtTheValueInTheRecord() throws {
    let decoder = BluetoothDecoder()
    let records = LegCtrlSession.session.map { $0.framed(for: .hciH4) }
    let events = decodeBluetooth(decoder, .hciH4, records)
    let write = try #require(events.values.first)
    // H4 type (1) + ACL header (4) + L2CAP header (4) + opcode (1) + handle (2).
    #expect(write.valueOffsetInRecord == 12)
    let offset = try #require(write.valueOffsetInRecord)
    #expect(Array(records[7].data[offset...]) == LegCtrlSession.servo1500)
  }

  @Test func discoveryIsReportedAsOperations() throws {
    let events = decodeBluetooth(BluetoothDecoder(), .hciH4, packets: LegCtrlSession.discovery)
    let names = events.operations.map(\.name)
    #expect(
      names == [
        "Exchange MTU Request", "Exchange MTU Response", "Read By Group Type Request",
        "Read By Group Type Response", "Read By Type Request", "Read By Type Response",
      ])
    let services = try #require(events.operations.first { $0.opcode == 0x11 })
    #expect(services.fields == [ATTField("0x000A-0x0010", LegCtrlSession.service)])
    #expect(services.direction == .peripheralToCentral)
    let characteristics = try #require(events.operations.first { $0.opcode == 0x09 })
    #expect(characteristics.fields.count == 2)
    #expect(characteristics.fields[0].name == "0x000C")
    #expect(characteristics.fields[0].value.hasPrefix(LegCtrlSession.command))
    #expect(events.operations.first?.summary == "Exchange MTU Request client_rx_mtu=247")
  }

  @Test func withoutDirectionTheValueSaysSo() throws {
    let events = decodeBluetooth(BluetoothDecoder(), .hciH4WithoutDirection, packets: LegCtrlSession.session)
    let write = try #require(events.values.first)
    #expect(write.direction == .unknown)
    #expect(write.value == LegCtrlSession.servo1500)
    // Discovery still names the handle: requests and responses say which end is the server.
    #expect(write.characteristicUUID == LegCtrlSession.command)
  }

  @Test func withoutConnectionCompleteTheDirectionIsHCIOnly() throws {
    // Capture begins after the connection: no LE Connection Complete, no discovery.
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [LegCtrlSession.servoWriteCommand, LegCtrlSession.telemetryNotification])
    #expect(events.values.map(\.direction) == [.hostToController, .controllerToHost])
    #expect(events.values.map(\.direction.description) == ["host→controller", "controller→host"])
    #expect(events.values.allSatisfy { $0.characteristicUUID == nil })
  }

  @Test func peripheralRoleSwapsTheDirections() throws {
    var connection = LegCtrlSession.leConnectionComplete.bytes
    connection[6] = 0x01  // role: peripheral (this host)
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [.event(connection), LegCtrlSession.servoWriteCommand, LegCtrlSession.telemetryNotification])
    #expect(events.values.map(\.direction) == [.peripheralToCentral, .centralToPeripheral])
  }

  @Test func enhancedConnectionCompleteOpensTheConnection() throws {
    let enhanced = BluetoothTestPacket.event([
      0x3E,  // LE Meta
      0x1F,  // parameter length 31
      0x0A,  // subevent: LE Enhanced Connection Complete
      0x00,  // status
      0x41, 0x00,  // connection handle 0x0041
      0x01,  // role: peripheral
      0x00,  // peer address type: public
      0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  // peer address 11:22:33:44:55:66
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // local resolvable private address
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // peer resolvable private address
      0x18, 0x00, 0x00, 0x00, 0xC8, 0x00,  // interval, latency, timeout
      0x00,  // central clock accuracy
    ])
    let events = decodeBluetooth(BluetoothDecoder(), .hciH4, packets: [enhanced])
    #expect(
      events.connectionEvents.map(\.change) == [
        .opened(localRole: .peripheral, peerAddress: "11:22:33:44:55:66", peerAddressType: 0)
      ])
  }

  @Test func userMappingNamesAHandleWithoutDiscovery() throws {
    let decoder = BluetoothDecoder()
    decoder.mapHandle(0x000C, connection: nil, to: "12345678-1234-1234-1234-123456789ABD")
    decoder.mapHandle(0x000E, connection: 0x0040, to: "legctrl")
    let events = decodeBluetooth(
      decoder, .hciH4, packets: [LegCtrlSession.servoWriteCommand, LegCtrlSession.telemetryNotification])
    #expect(events.values.map(\.characteristicUUID) == [LegCtrlSession.command, "legctrl"])
    #expect(decoder.characteristicUUID(connection: 0x0041, handle: 0x000E) == nil)
  }

  @Test func hciCommandsAndEventsAreNamed() {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        .command([
          0x0C, 0x20,  // opcode 0x200C: OGF 0x08 (LE) OCF 0x000C
          0x02,  // parameter length
          0x01, 0x00,  // enable, no duplicate filtering
        ]),
        .event([
          0x0E,  // Command Complete
          0x04,  // parameter length
          0x01,  // Num_HCI_Command_Packets
          0x0C, 0x20,  // command opcode LE Set Scan Enable
          0x00,  // status
        ]),
        .event([
          0x13,  // Number Of Completed Packets
          0x05,  // parameter length
          0x01,  // number of handles
          0x40, 0x00,  // handle
          0x01, 0x00,  // completed packets
        ]),
      ])
    #expect(
      events.hciKinds == [
        "HCI command LE Set Scan Enable", "HCI event Command Complete (LE Set Scan Enable)",
        "HCI event Number Of Completed Packets",
      ])
  }

  @Test func uuidForms() {
    #expect(BluetoothUUID.canonical(uuid16: 0x2902) == "00002902-0000-1000-8000-00805f9b34fb")
    #expect(BluetoothUUID.shortForm("00002902-0000-1000-8000-00805f9b34fb") == "0x2902")
    #expect(BluetoothUUID.shortForm(LegCtrlSession.command) == LegCtrlSession.command)
    #expect(BluetoothUUID.parse("0x2902") == "00002902-0000-1000-8000-00805f9b34fb")
    #expect(
      BluetoothUUID.parse("5833FF02-9B8B-5191-6142-22A4536EF123") == "5833ff02-9b8b-5191-6142-22a4536ef123")
    #expect(BluetoothUUID.parse("5833ff029b8b5191614222a4536ef123") == "5833ff02-9b8b-5191-6142-22a4536ef123")
    #expect(BluetoothUUID.parse("legctrl") == nil)
  }
}
