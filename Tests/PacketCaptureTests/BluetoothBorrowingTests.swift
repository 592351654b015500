import PacketCapture
import Testing

/// `decodeBorrowing` hands out ATT values as views of the record being
/// decoded; `decode` hands out values that own their bytes. Both must
/// deliver the same events.
@Suite struct BluetoothBorrowingTests {
  /// The LegCtrl session on H4: discovery, then a write and a notification.
  private let records = LegCtrlSession.session.map { $0.framed(for: .hciH4) }

  @Test func borrowedValuesAreTheRecordsOwnBytes() throws {
    let decoder = BluetoothDecoder()
    var checked = 0
    for (index, record) in records.enumerated() {
      record.data.withUnsafeBytes { data in
        decoder.decodeBorrowing(.hciH4, frame: index + 1, time: 0, flags: record.flags, data: data) { event in
          guard case .attValue(let value) = event, let offset = value.valueOffsetInRecord else { return }
          value.withValueBytes { bytes in
            // Not a copy: the very bytes of the record, where the offset says.
            #expect(bytes.baseAddress == data.baseAddress.map { $0 + offset })
            #expect(Array(bytes) == Array(data[offset..<offset + bytes.count]))
          }
          #expect(value.valueCount == value.value.count)
          checked += 1
        }
      }
    }
    #expect(checked == 2)
  }

  @Test func decodedValuesOutliveTheirRecord() throws {
    let decoder = BluetoothDecoder()
    var values: [ATTValue] = []
    for (index, record) in records.enumerated() {
      var data: [UInt8] = []
      data.append(contentsOf: record.data)  // a buffer of its own, overwritten below
      data.withUnsafeBytes { bytes in
        decoder.decode(.hciH4, frame: index + 1, time: 0, flags: record.flags, data: bytes) { event in
          if case .attValue(let value) = event { values.append(value) }
        }
      }
      // Overwrite the record's buffer in place: a value that still pointed
      // into it would change with it.
      data.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0xEE) }
    }
    #expect(values.map(\.value) == [LegCtrlSession.servo1500, LegCtrlSession.telemetryDisarmed])
  }

  @Test func bothEntriesDeliverEqualEvents() throws {
    let owned = decodeBluetooth(BluetoothDecoder(), .hciH4, records, finish: false)
    let decoder = BluetoothDecoder()
    var borrowedCopies: [BluetoothEvent] = []
    for (index, record) in records.enumerated() {
      record.data.withUnsafeBytes { data in
        decoder.decodeBorrowing(
          .hciH4, frame: index + 1, time: Double(index + 1) / 10, flags: record.flags, data: data
        ) {
          event in
          // Kept past the callback only as a copy of the bytes.
          if case .attValue(var value) = event {
            value.value = value.value
            borrowedCopies.append(.attValue(value))
          } else {
            borrowedCopies.append(event)
          }
        }
      }
    }
    #expect(borrowedCopies == owned)
  }
}
