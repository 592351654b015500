/// Apple PacketLogger records: the type byte says what follows and which
/// way it went, so HCI packets go on to the same command, event and ACL
/// decoding as H4's; text records become log entries.
extension BluetoothDecoder {
  /// PacketLogger's names for its text record types, as log entries carry them.
  static let packetLoggerTextKinds: [UInt8: String] = [
    0xF7: "syslog", 0xF8: "kernel", 0xF9: "kernel-debug", 0xFA: "error", 0xFB: "power", 0xFC: "note",
    0xFD: "config", 0xFE: "new-controller",
  ]

  func decodePacketLogger(
    _ data: UnsafeRawBufferPointer, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    guard !data.isEmpty else {
      damaged(record, "packetlogger", 0, "record has no PacketLogger type byte (its length is 8)", emit)
      return
    }
    let type = data.btU8(0)
    switch type {
    case 0x00: decodeCommand(data, at: 1, record, emit)
    case 0x01: decodeEvent(data, at: 1, record, emit)
    // Sent is host→controller, the side H4's direction bit 0 calls A.
    case 0x02: decodeACL(data, at: 1, side: .a, record, emit)
    case 0x03: decodeACL(data, at: 1, side: .b, record, emit)
    case 0x08, 0x09:
      statistics.scoPackets += 1
      undecoded(record, type == 0x08 ? "SCO data sent" : "SCO data received", emit)
    case 0x0A, 0x0B:
      undecoded(record, type == 0x0A ? "LMP sent" : "LMP received", emit)
    case 0xF7:
      syslog(data, record, emit)
    default:
      guard let kind = Self.packetLoggerTextKinds[type] else {
        undecoded(record, "PacketLogger record type \(BluetoothText.hex8(type))", emit)
        return
      }
      emit(
        .log(
          BluetoothLogEntry(
            frame: record.frame, time: record.time, kind: kind, message: Self.logText(data.btSlice(from: 1))))
      )
    }
  }

  /// Syslog (F7): process ID (4 bytes, little-endian), message type (1), then
  /// process, sender, subsystem, category and message, each ended by a NUL.
  private func syslog(
    _ data: UnsafeRawBufferPointer, _ record: BluetoothRecordContext, _ emit: (BluetoothEvent) -> Void
  ) {
    guard data.count >= 6 else {
      damaged(
        record, "packetlogger", 1,
        "syslog record needs 5 bytes (process ID, message type) after its type byte, has \(data.count - 1)",
        emit)
      return
    }
    var start = 6
    var strings: [String] = []
    while strings.count < 5, start < data.count {
      var end = start
      while end < data.count, data[end] != 0 { end += 1 }
      strings.append(Self.logText(data.btSlice(start, end - start)))
      start = end + 1
    }
    // A record cut short keeps the strings it has; the rest are empty.
    while strings.count < 5 { strings.append("") }
    let fields = BluetoothLogEntry.Syslog(
      processID: data.btLE32(1), messageType: data.btU8(5), process: strings[0], sender: strings[1],
      subsystem: strings[2], category: strings[3])
    emit(
      .log(
        BluetoothLogEntry(
          frame: record.frame, time: record.time, kind: "syslog", message: strings[4], syslog: fields)))
  }

  /// Text up to its first NUL (records are often padded with them), as
  /// UTF-8 with bad bytes replaced, without trailing white space.
  static func logText(_ bytes: UnsafeRawBufferPointer) -> String {
    var end = 0
    while end < bytes.count, bytes[end] != 0 { end += 1 }
    while end > 0, bytes[end - 1] == 0x20 || (0x09...0x0D).contains(bytes[end - 1]) { end -= 1 }
    return String(decoding: bytes[0..<end], as: UTF8.self)
  }
}
