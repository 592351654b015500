import PacketCapture
import Testing

/// Damaged input at every layer becomes a `damaged` event (or an `att`
/// event with a diagnostic), never a trap, and the next record still decodes.
@Suite struct BluetoothDamageTests {
  @Test func truncatedACLIsDamagedAndTheNextRecordDecodes() throws {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        .aclSent([
          0x40, 0x00,  // handle 0x0040, PB 00
          0x0D, 0x00,  // ACL data length 13 …
          0x09, 0x00, 0x04, 0x00, 0x52, 0x0C,  // … but only 6 bytes follow
        ]),
        LegCtrlSession.servoWriteCommand,
      ])
    let damage = try #require(events.damages.first)
    #expect(events.damages.count == 1)
    #expect(damage.layer == "acl")
    #expect(damage.frame == 1)
    #expect(damage.offset == 3)  // the ACL length field, after the H4 type byte and handle
    #expect(damage.text.contains("13"))
    #expect(events.values.map(\.value) == [LegCtrlSession.servo1500])
  }

  @Test func l2capLengthLargerThanTheDataIsReportedWhenTheFrameCannotFinish() throws {
    let start = BluetoothTestPacket.aclSent([
      0x40, 0x00,  // handle 0x0040, PB 00
      0x09, 0x00,  // ACL data length 9
      0xFF, 0x00,  // L2CAP length 255: far more than this packet carries
      0x04, 0x00,  // CID ATT
      0x52, 0x0C, 0x00, 0x01, 0x03,
    ])
    // Cut short by a new frame.
    var events = decodeBluetooth(
      BluetoothDecoder(), .hciH4, packets: [start, LegCtrlSession.servoWriteCommand])
    #expect(events.damages.map(\.layer) == ["l2cap"])
    #expect(events.damages.first?.text.contains("incomplete") == true)
    #expect(events.values.map(\.value) == [LegCtrlSession.servo1500])
    // Cut short by the end of the capture.
    events = decodeBluetooth(BluetoothDecoder(), .hciH4, packets: [start])
    #expect(events.damages.map(\.layer) == ["l2cap"])
    #expect(events.damages.first?.text.contains("capture ended") == true)
  }

  @Test func continuationPastTheL2CAPLengthIsDamaged() {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        BluetoothReassemblyTests.notificationStart,
        .aclReceived([
          0x40, 0x10,  // PB 01
          0x0C, 0x00,  // ACL data length 12: one more byte than the frame has room for
          0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00, 0xEE,
        ]),
      ])
    #expect(events.values.isEmpty)
    #expect(events.damages.map(\.layer) == ["l2cap"])
    #expect(events.damages.first?.text.contains("past its length") == true)
  }

  @Test func attPDUTooShortIsDamagedAtItsOffset() throws {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        .aclSent([
          0x40, 0x00,  // handle 0x0040, PB 00
          0x06, 0x00,  // ACL data length 6
          0x02, 0x00,  // L2CAP length 2
          0x04, 0x00,  // CID ATT
          0x52,  // Write Command …
          0x0C,  // … with half a handle
        ])
      ])
    let damage = try #require(events.damages.first)
    #expect(damage.layer == "att")
    #expect(damage.offset == 10)  // H4 1 + ACL 4 + L2CAP 4 + opcode 1
    #expect(damage.text.contains("Write Command"))
    #expect(events.values.isEmpty)
  }

  @Test func unknownATTOpcodeIsAnOperationWithADiagnostic() throws {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        .aclSent([
          0x40, 0x00, 0x07, 0x00,  // handle 0x0040, ACL length 7
          0x03, 0x00, 0x04, 0x00,  // L2CAP length 3, ATT
          0x3F,  // opcode 0x3F: not defined
          0xAA, 0xBB,
        ])
      ])
    let operation = try #require(events.operations.first)
    #expect(operation.opcode == 0x3F)
    #expect(operation.name == "Unknown ATT opcode 0x3F")
    #expect(operation.diagnostic?.contains("not defined") == true)
    #expect(events.damages.isEmpty)
  }

  @Test func badEntryLengthsInDiscoveryAreDamaged() {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      packets: [
        .aclReceived([
          0x40, 0x20, 0x0A, 0x00,  // ACL length 10
          0x06, 0x00, 0x04, 0x00,  // L2CAP length 6, ATT
          0x11,  // Read By Group Type Response
          0x07,  // entry length 7: neither 6 nor 20
          0x01, 0x00, 0x05, 0x00,
        ]),
        .aclReceived([
          0x40, 0x20, 0x07, 0x00,  // ACL length 7
          0x03, 0x00, 0x04, 0x00,  // L2CAP length 3, ATT
          0x05,  // Find Information Response
          0x03,  // format 3: undefined
          0x01,
        ]),
      ])
    #expect(events.damages.map(\.layer) == ["att", "att"])
    #expect(events.damages.map(\.offset) == [10, 10])
  }

  @Test func hciDamage() {
    let events = decodeBluetooth(
      BluetoothDecoder(), .hciH4,
      [
        (0, [0x09, 0x01]),  // unknown H4 type 0x09
        (0, []),  // empty record
        (3, [0x04, 0x3E, 0x13, 0x01, 0x00]),  // LE Meta claiming 19 parameter bytes, 2 present
        (3, [0x04, 0x05, 0x02, 0x00, 0x40]),  // Disconnection Complete with 2 of its 4 bytes
        (2, [0x01, 0x0C, 0x20]),  // command cut inside its header
      ])
    #expect(events.damages.map(\.layer) == ["hci", "hci", "hci", "hci", "hci"])
    #expect(events.damages.map(\.frame) == [1, 2, 3, 4, 5])
    #expect(events.connectionEvents.isEmpty)
  }

  /// Every strict prefix of every record of the session is damage, never a
  /// value and never a trap.
  @Test(arguments: [BluetoothLinkType.hciH4, .linuxMonitorPcap, .hciH4WithDirectionHeader, .packetLogger])
  func everyTruncationIsDamaged(linkType: BluetoothLinkType) {
    for packet in LegCtrlSession.session {
      let (flags, data) = packet.framed(for: linkType)
      for length in 0..<data.count {
        let events = decodeBluetooth(BluetoothDecoder(), linkType, [(flags, Array(data[0..<length]))])
        #expect(!events.damages.isEmpty, "prefix of \(length) bytes of \(data)")
        #expect(events.values.isEmpty)
      }
    }
  }

  /// Random records on every link type: no trap, memory within the limits.
  @Test(arguments: [
    BluetoothLinkType.hciUnencapsulated, .hciH4, .hciH4WithoutDirection, .hciH4WithDirectionHeader,
    .linuxMonitorBtsnoop, .linuxMonitorPcap, .leLinkLayerWithPseudoHeader, .nordicBLESniffer, .packetLogger,
  ])
  func randomRecordsNeverTrap(linkType: BluetoothLinkType) {
    var random = BluetoothTestRandom(seed: 0x5EED_B1E0)
    let limits = BluetoothLimits(
      maxConnections: 4, maxBufferedBytesPerConnection: 2048, maxBufferedBytes: 4096)
    let decoder = BluetoothDecoder(limits: limits)
    var count = 0
    for frame in 1...4000 {
      // Mostly well-framed ACL/ATT-looking records with random fields.
      var data: [UInt8] = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      if random.next() % 2 == 0, data.count > 9 {
        data[0] = 0x02
        data[1] = UInt8(random.next() % 3)
        data[2] = [0x00, 0x10, 0x20][Int(random.next() % 3)]
        data[5] = UInt8(truncatingIfNeeded: random.next() % 64)
        data[6] = 0
        data[7] = 0x04
        data[8] = 0x00
      }
      data.withUnsafeBytes { bytes in
        decoder.decode(linkType, frame: frame, time: 0, flags: UInt32(random.next() % 4), data: bytes) { _ in
          count += 1
        }
      }
      #expect(decoder.bufferedBytes <= limits.maxBufferedBytes)
      #expect(decoder.trackedConnectionCount <= limits.maxConnections)
    }
    decoder.finish { _ in count += 1 }
    #expect(decoder.bufferedBytes == 0)
    #expect(decoder.statistics.records == 4000)
  }

  /// A flood of first fragments that never finish stays within the limits.
  @Test func floodOfUnfinishedFramesStaysWithinLimits() {
    let limits = BluetoothLimits(
      maxConnections: 8, maxBufferedBytesPerConnection: 4096, maxBufferedBytes: 16 * 1024)
    let decoder = BluetoothDecoder(limits: limits)
    var damaged = 0
    var peak = 0
    for index in 0..<5000 {
      let handle = UInt16(index % 300)
      let first = index % 3 != 2
      // ATT frames claiming 65,535 bytes, fed 250 bytes at a time, never finished.
      var acl: [UInt8] = [
        0x02, UInt8(handle & 0xFF), UInt8(handle >> 8) | (first ? 0x20 : 0x10), 0xFA, 0x00,
      ]
      acl +=
        first
        ? [0xFF, 0xFF, 0x04, 0x00] + [UInt8](repeating: 0x1B, count: 246)
        : [UInt8](repeating: 0xAB, count: 250)
      acl.withUnsafeBytes { bytes in
        decoder.decode(.hciH4, frame: index + 1, time: 0, flags: 1, data: bytes) { event in
          if case .damaged = event { damaged += 1 }
        }
      }
      peak = max(peak, decoder.bufferedBytes)
      #expect(decoder.trackedConnectionCount <= limits.maxConnections)
    }
    #expect(peak <= limits.maxBufferedBytes)
    #expect(peak > 0)
    #expect(damaged > 0)
    decoder.finish { _ in }
    #expect(decoder.bufferedBytes == 0)

    // The same flood against the default limits.
    let defaults = BluetoothDecoder()
    for index in 0..<20000 {
      let handle = UInt16(index % 3000)
      var acl: [UInt8] = [
        0x02, UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, 0xFA, 0x00, 0xFF, 0xFF, 0x04, 0x00,
      ]
      acl += [UInt8](repeating: 0x1B, count: 246)
      acl.withUnsafeBytes { bytes in
        defaults.decode(.hciH4, frame: index + 1, time: 0, flags: 1, data: bytes) { _ in }
      }
    }
    #expect(defaults.bufferedBytes <= BluetoothLimits.default.maxBufferedBytes)
    #expect(defaults.trackedConnectionCount <= BluetoothLimits.default.maxConnections)
  }
}

/// SplitMix64, for reproducible random records.
struct BluetoothTestRandom {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
