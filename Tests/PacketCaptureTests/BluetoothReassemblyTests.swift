import PacketCapture
import Testing

/// L2CAP reassembly from ACL fragments, long writes and long reads, and the
/// state a disconnection clears.
@Suite struct BluetoothReassemblyTests {
  /// The telemetry notification's L2CAP frame split after 4 payload bytes.
  static let notificationStart = BluetoothTestPacket.aclReceived([
    0x40, 0x20,  // handle 0x0040, PB 10 (first fragment)
    0x08, 0x00,  // ACL data length 8
    0x0F, 0x00,  // L2CAP length 15 (more than this fragment carries)
    0x04, 0x00,  // CID ATT
    0x1B,  // Handle Value Notification
    0x0E, 0x00,  // attribute handle 0x000E
    0x01,  // first value byte
  ])
  static let notificationContinuation = BluetoothTestPacket.aclReceived([
    0x40, 0x10,  // handle 0x0040, PB 01 (continuing fragment)
    0x0B, 0x00,  // ACL data length 11
    0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00,  // the other 11 value bytes
  ])

  @Test func valueSplitAcrossTwoACLPacketsIsReassembled() throws {
    let whole = decodeBluetooth(
      BluetoothDecoder(), .hciH4, packets: LegCtrlSession.discovery + [LegCtrlSession.telemetryNotification])
    let split = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: LegCtrlSession.discovery + [Self.notificationStart, Self.notificationContinuation])
    #expect(split.damages.isEmpty)
    let wholeValue = try #require(whole.values.first)
    let splitValue = try #require(split.values.first)
    #expect(splitValue.value == LegCtrlSession.telemetryDisarmed)
    #expect(splitValue.value == wholeValue.value)
    #expect(splitValue.characteristicUUID == LegCtrlSession.telemetry)
    #expect(splitValue.direction == .peripheralToCentral)
    #expect(splitValue.frame == 8)  // the record with the first byte
    #expect(splitValue.valueOffsetInRecord == nil)
    #expect(wholeValue.valueOffsetInRecord == 12)
  }

  @Test func fragmentsInterleavedWithOtherConnectionsAndDirections() throws {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: LegCtrlSession.discovery + [
        Self.notificationStart,  // frame 8: 0x0040 controller→host, first fragment
        .aclSent([
          0x41, 0x00,  // handle 0x0041 (never announced), PB 00
          0x08, 0x00,  // ACL data length 8
          0x09, 0x00,  // L2CAP length 9
          0x04, 0x00,  // CID ATT
          0x52, 0x0C, 0x00,  // Write Command, handle 0x000C
          0x01,  // first value byte
        ]),  // frame 9
        LegCtrlSession.servoWriteCommand,  // frame 10: 0x0040 host→controller, whole
        .aclSent([
          0x41, 0x10,  // handle 0x0041, PB 01
          0x05, 0x00,  // ACL data length 5
          0x03, 0x02, 0x00, 0xDC, 0x05,  // rest of the value
        ]),  // frame 11
        Self.notificationContinuation,  // frame 12
      ])
    #expect(events.damages.isEmpty)
    let values = events.values
    try #require(values.count == 3)
    #expect(values.map(\.frame) == [10, 9, 8])
    #expect(values.map(\.connectionHandle) == [0x0040, 0x0041, 0x0040])
    #expect(
      values.map(\.value) == [
        LegCtrlSession.servo1500, LegCtrlSession.servo1500, LegCtrlSession.telemetryDisarmed,
      ])
    // 0x0041 saw no discovery: its handle is named from what 0x0040 showed.
    #expect(values[1].characteristicUUID == LegCtrlSession.command)
    #expect(values[1].direction == .hostToController)
  }

  @Test func fragmentsOfOneByteEachIncludingTheL2CAPHeader() throws {
    // The notification's L2CAP frame, one byte per ACL packet.
    let frame = Array(LegCtrlSession.telemetryNotification.bytes.dropFirst(4))
    var packets = LegCtrlSession.discovery
    for (index, byte) in frame.enumerated() {
      let boundary: UInt8 = index == 0 ? 0x20 : 0x10  // PB 10 first, PB 01 after
      packets.append(.aclReceived([0x40, boundary, 0x01, 0x00, byte]))
    }
    let decoder = BluetoothDecoder()
    let events = decodeBluetooth(decoder, .hciH4, packets: packets)
    #expect(events.damages.isEmpty)
    #expect(events.values.map(\.value) == [LegCtrlSession.telemetryDisarmed])
    #expect(events.values.first?.frame == LegCtrlSession.discovery.count + 1)
    #expect(decoder.bufferedBytes == 0)
  }

  static let prepareFirst = BluetoothTestPacket.aclSent([
    0x40, 0x00,  // handle 0x0040, PB 00
    0x0C, 0x00,  // ACL data length 12
    0x08, 0x00,  // L2CAP length 8
    0x04, 0x00,  // CID ATT
    0x16,  // Prepare Write Request
    0x0C, 0x00,  // attribute handle 0x000C
    0x00, 0x00,  // value offset 0
    0x01, 0x03, 0x02,  // part value
  ])
  static let prepareResponse = BluetoothTestPacket.aclReceived([
    0x40, 0x20,  // handle 0x0040, PB 10
    0x0C, 0x00,  // ACL data length 12
    0x08, 0x00,  // L2CAP length 8
    0x04, 0x00,  // CID ATT
    0x17,  // Prepare Write Response (echo)
    0x0C, 0x00, 0x00, 0x00, 0x01, 0x03, 0x02,
  ])
  static let prepareSecond = BluetoothTestPacket.aclSent([
    0x40, 0x00,  // handle 0x0040, PB 00
    0x0C, 0x00,  // ACL data length 12
    0x08, 0x00,  // L2CAP length 8
    0x04, 0x00,  // CID ATT
    0x16,  // Prepare Write Request
    0x0C, 0x00,  // attribute handle 0x000C
    0x03, 0x00,  // value offset 3
    0x00, 0xDC, 0x05,  // part value
  ])
  static func execute(_ flags: UInt8) -> BluetoothTestPacket {
    .aclSent([
      0x40, 0x00,  // handle 0x0040, PB 00
      0x06, 0x00,  // ACL data length 6
      0x02, 0x00,  // L2CAP length 2
      0x04, 0x00,  // CID ATT
      0x18,  // Execute Write Request
      flags,  // 01 write, 00 cancel
    ])
  }

  @Test func preparedWritesAreDeliveredAtExecuteWrite() throws {
    let decoder = BluetoothDecoder()
    let events = decodeBluetooth(
      decoder, .hciH4,
      packets: LegCtrlSession.discovery + [
        Self.prepareFirst, Self.prepareResponse, Self.prepareSecond, Self.prepareResponse, Self.execute(0x01),
      ])
    #expect(events.damages.isEmpty)
    let value = try #require(events.values.first)
    #expect(events.values.count == 1)
    #expect(value.operation == "execute-write")
    #expect(value.opcode == 0x18)
    #expect(value.frame == 8)  // the first Prepare Write Request
    #expect(value.attributeHandle == 0x000C)
    #expect(value.characteristicUUID == LegCtrlSession.command)
    #expect(value.direction == .centralToPeripheral)
    #expect(value.value == LegCtrlSession.servo1500)
    #expect(decoder.bufferedBytes == 0)
  }

  @Test func cancelledPreparedWritesAreDiscarded() throws {
    let decoder = BluetoothDecoder()
    let events = decodeBluetooth(
      decoder, .hciH4,
      packets: LegCtrlSession.discovery + [Self.prepareFirst, Self.prepareSecond, Self.execute(0x00)])
    #expect(events.values.isEmpty)
    let execute = try #require(events.operations.last)
    #expect(execute.name == "Execute Write Request")
    #expect(execute.fields == [ATTField("flags", "0x00 cancel"), ATTField("discarded", "2")])
    #expect(decoder.bufferedBytes == 0)
  }

  @Test func readBlobContinuesTheReadResponse() throws {
    let first: [UInt8] = Array(0x00...0x15)  // 22 bytes: fills an ATT_MTU of 23
    let rest: [UInt8] = Array(0x16...0x1A)
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        LegCtrlSession.leConnectionComplete,
        .aclSent([
          0x40, 0x00, 0x07, 0x00,  // handle 0x0040, ACL length 7
          0x03, 0x00, 0x04, 0x00,  // L2CAP length 3, ATT
          0x0A, 0x0E, 0x00,  // Read Request, handle 0x000E
        ]),
        .aclReceived(
          [
            0x40, 0x20, 0x1B, 0x00,  // handle 0x0040, ACL length 27
            0x17, 0x00, 0x04, 0x00,  // L2CAP length 23, ATT
            0x0B,  // Read Response
          ] + first),
        .aclSent([
          0x40, 0x00, 0x09, 0x00,  // ACL length 9
          0x05, 0x00, 0x04, 0x00,  // L2CAP length 5, ATT
          0x0C, 0x0E, 0x00, 0x16, 0x00,  // Read Blob Request, handle 0x000E, offset 22
        ]),
        .aclReceived(
          [
            0x40, 0x20, 0x0A, 0x00,  // ACL length 10
            0x06, 0x00, 0x04, 0x00,  // L2CAP length 6, ATT
            0x0D,  // Read Blob Response
          ] + rest),
      ])
    #expect(events.damages.isEmpty)
    let value = try #require(events.values.first)
    #expect(events.values.count == 1)
    #expect(value.operation == "read-response")
    #expect(value.attributeHandle == 0x000E)
    #expect(value.frame == 3)
    #expect(value.direction == .peripheralToCentral)
    #expect(value.value == first + rest)
    #expect(value.valueOffsetInRecord == nil)
  }

  @Test func shortReadResponseIsDeliveredAtOnce() throws {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        .aclSent([0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x0E, 0x00]),  // Read Request 0x000E
        .aclReceived(
          [0x40, 0x20, 0x11, 0x00, 0x0D, 0x00, 0x04, 0x00, 0x0B] + LegCtrlSession.telemetryDisarmed),
      ], finish: false)
    let value = try #require(events.values.first)
    #expect(value.attributeHandle == 0x000E)
    #expect(value.value == LegCtrlSession.telemetryDisarmed)
    #expect(value.valueOffsetInRecord == 10)  // H4 1 + ACL 4 + L2CAP 4 + opcode 1
  }

  @Test func disconnectionClearsTheConnectionState() throws {
    let decoder = BluetoothDecoder()
    var events = decodeBluetooth(
      decoder, .hciH4, packets: LegCtrlSession.discovery + [Self.notificationStart], finish: false)
    #expect(decoder.trackedConnectionCount == 1)
    #expect(decoder.bufferedBytes == 8)  // the held L2CAP fragment

    events = decodeBluetooth(
      decoder, .hciH4, [LegCtrlSession.disconnectionComplete.framed(for: .hciH4)], firstFrame: 9,
      finish: false)
    #expect(events.connectionEvents.map(\.change) == [.closed(reason: 0x13)])
    #expect(events.damages.map(\.layer) == ["l2cap"])
    #expect(events.damages.first?.frame == 8)
    #expect(decoder.trackedConnectionCount == 0)
    #expect(decoder.bufferedBytes == 0)

    // The rest of the interrupted frame no longer belongs to anything.
    events = decodeBluetooth(
      decoder, .hciH4, [Self.notificationContinuation.framed(for: .hciH4)], firstFrame: 10, finish: false)
    #expect(events.values.isEmpty)
    #expect(events.damages.map(\.layer) == ["l2cap"])

    // A new connection on the same handle starts with the role it reports;
    // handles are still named from the earlier discovery (the global map).
    var reconnect = LegCtrlSession.leConnectionComplete.bytes
    reconnect[6] = 0x01  // role: peripheral this time
    events = decodeBluetooth(
      decoder, .hciH4,
      [
        BluetoothTestPacket.event(reconnect).framed(for: .hciH4),
        LegCtrlSession.servoWriteCommand.framed(for: .hciH4),
      ],
      firstFrame: 11)
    let write = try #require(events.values.first)
    #expect(write.direction == .peripheralToCentral)
    #expect(write.characteristicUUID == LegCtrlSession.command)
  }
}
