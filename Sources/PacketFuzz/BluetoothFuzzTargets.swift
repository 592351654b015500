import Foundation
import PacketCapture
import PacketKit

/// HCI, ACL, L2CAP reassembly and ATT: the input is a run of H4 records,
/// each prefixed by one length byte, fed to the Bluetooth decoder with the
/// link type and direction flags taken from the first byte.
public final class HCIFuzzTarget: FuzzTarget {
  private let payloads: SeedPayloads

  init(payloads: SeedPayloads) {
    self.payloads = payloads
  }
  public var name: String { "hci" }
  public var isJSON: Bool { false }

  private static let linkTypes: [BluetoothLinkType] = [
    .hciH4, .hciH4WithDirectionHeader, .hciUnencapsulated, .linuxMonitorPcap,
    .leLinkLayerWithPseudoHeader, .nordicBLESniffer,
  ]

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    // LE Connection Complete (handle 0x0040, central), then a Write Command
    // carrying a codec's payload to handle 0x0012 over ATT (CID 4).
    let connection: [UInt8] = [
      0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x3C, 0x71, 0x5E, 0xC4, 0x0A, 0x24, 0x18, 0x00,
      0x00, 0x00, 0xF4, 0x01, 0x00,
    ]
    let write: [UInt8] = [0x02] + payloads.attWrite(&rng)
    return [UInt8(rng.below(2))] + [UInt8(connection.count)] + connection + [UInt8(write.count)] + write
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    guard let control = input.first else { return nil }
    let linkType = Self.linkTypes[Int(control >> 1) % Self.linkTypes.count]
    let decoder = BluetoothDecoder()
    let start = monotonicNanoseconds()
    var offset = 1
    var frame = 0
    while offset < input.count {
      let length = Int(input[offset])
      offset += 1
      let end = min(offset + length, input.count)
      frame += 1
      let flags = UInt32(control & 1) | UInt32(frame & 2)
      // Each record in an array of its own size, so that under ASan a value
      // viewed past its record is caught; and a value said to lie at an
      // offset in its record must be exactly those bytes.
      let misplaced: String? = Array(input[offset..<end]).withUnsafeBytes { record in
        var misplaced: String?
        decoder.decodeBorrowing(linkType, frame: frame, time: Double(frame), flags: flags, data: record) {
          Self.count($0, &stats)
          if misplaced == nil { misplaced = Self.misplacedValue($0, in: record) }
        }
        return misplaced
      }
      if let misplaced {
        return FuzzFailure(target: name, kind: "value-offset", detail: misplaced, input: input)
      }
      offset = end
    }
    decoder.finish { Self.count($0, &stats) }
    return .bounds(
      target: name, input: input, buffered: decoder.bufferedBytes, limit: decoder.limits.maxBufferedBytes,
      startedAt: start)
  }

  /// Why an ATT value does not match the record bytes at its
  /// `valueOffsetInRecord`, or nil when it does (or came reassembled).
  static func misplacedValue(_ event: BluetoothEvent, in record: UnsafeRawBufferPointer) -> String? {
    guard case .attValue(let value) = event, let at = value.valueOffsetInRecord else { return nil }
    return value.withValueBytes { bytes in
      guard at >= 0, at + bytes.count <= record.count else {
        return "value of \(bytes.count) bytes at offset \(at) passes the \(record.count)-byte record"
      }
      guard UnsafeRawBufferPointer(rebasing: record[at..<at + bytes.count]).sameBytes(as: bytes) else {
        return "value at offset \(at) is not the record's bytes there"
      }
      return nil
    }
  }

  static func count(_ event: BluetoothEvent, _ stats: inout FuzzStats) {
    switch event {
    case .attValue(let value):
      stats.decoded += 1
      stats.messageKinds.add(value.operation)
    case .att(let operation): stats.noteField(operation.name)
    case .connection: stats.messageKinds.add("connection")
    case .hci(_, _, let kind): stats.noteField(String(kind.prefix(40)))
    case .damaged(_, _, let layer, _, _): stats.errorCodes.add("damaged-\(layer)")
    case .undecoded: stats.errorCodes.add("undecoded")
    case .log(let entry): stats.noteField("log \(entry.kind)")
    }
  }
}

/// Whole btsnoop files, through pktbench's own reader and the decoder,
/// read from memory as the pcap target reads its inputs. (Written to a
/// temporary file, each input waited for the disk: the target ran 900
/// times a second.)
public final class BtsnoopFuzzTarget: FuzzTarget {
  public init() {}

  public var name: String { "btsnoop" }
  public var isJSON: Bool { false }

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    var out = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 0x03, 0xEA]  // version 1, datalink 1002
    let records: [[UInt8]] = [
      [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00],  // HCI LE Set Scan Enable
      [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00],  // Command Complete
    ]
    for (index, record) in records.enumerated() {
      let length = UInt32(record.count)
      let lengthBytes = [
        UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
      ]
      out += lengthBytes + lengthBytes + [0, 0, 0, UInt8(index == 0 ? 2 : 3)] + [0, 0, 0, 0]
      out += [0x00, 0xE2, 0x1C, 0x14, 0x2A, 0x38, 0x10, UInt8(rng.below(256))]
      out += record
    }
    return out
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    let file: BtsnoopFile
    do {
      file = try BtsnoopFile(bytes: input)
    } catch {
      stats.errorCodes.add("not-btsnoop")
      return nil
    }
    guard let linkType = BluetoothLinkType.forBtsnoopDatalink(file.datalink) else {
      stats.errorCodes.add("datalink")
      return nil
    }
    let decoder = BluetoothDecoder()
    var lastFrame = 0
    var failure: FuzzFailure?
    let end = file.read { record in
      if record.frame <= lastFrame, failure == nil {
        failure = FuzzFailure(
          target: name, kind: "order", detail: "record \(record.frame) after \(lastFrame)", input: input)
      }
      lastFrame = record.frame
      decoder.decode(linkType, frame: record.frame, time: record.time, flags: record.flags, data: record.data)
      {
        HCIFuzzTarget.count($0, &stats)
      }
    }
    if case .damaged = end { stats.errorCodes.add("damaged-file") } else { stats.decoded += 1 }
    return failure
  }
}

/// Whole Apple PacketLogger files (`pklg`), in either byte order, through
/// pktbench's own reader and the decoder, read from memory as the btsnoop
/// target reads its inputs.
public final class PacketLoggerFuzzTarget: FuzzTarget {
  private let payloads: SeedPayloads

  init(payloads: SeedPayloads) {
    self.payloads = payloads
  }

  public var name: String { "pklg" }
  public var isJSON: Bool { false }

  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    let bigEndian = rng.below(2) == 0
    let records: [[UInt8]] = [
      [0xFC] + Array("note\0".utf8),
      [0x00, 0x0C, 0x20, 0x02, 0x01, 0x00],  // HCI LE Set Scan Enable
      [0x01, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00],  // Command Complete
      [0xF7, 0x9C, 0x01, 0, 0, 0] + Array("bluetoothd\0s\0sub\0cat\0message\0".utf8),
      // LE Connection Complete (handle 0x0040), then a Write Command to 0x0012.
      [
        0x01, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x3C, 0x71, 0x5E, 0xC4, 0x0A, 0x24, 0x18, 0x00,
        0x00, 0x00, 0xF4, 0x01, 0x00,
      ],
      [0x02] + payloads.attWrite(&rng),
    ]
    var out: [UInt8] = []
    for (index, record) in records.enumerated() {
      let fields = [UInt32(8 + record.count), 1_795_320_000, UInt32(index * 1000 + Int(rng.below(1000)))]
      for field in fields {
        let bytes = [
          UInt8(field >> 24), UInt8(field >> 16 & 0xFF), UInt8(field >> 8 & 0xFF), UInt8(field & 0xFF),
        ]
        out += bigEndian ? bytes : bytes.reversed()
      }
      out += record
    }
    return out
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    let file: PacketLoggerFile
    do {
      file = try PacketLoggerFile(bytes: input)
    } catch {
      stats.errorCodes.add("not-packetlogger")
      return nil
    }
    let decoder = BluetoothDecoder()
    var lastFrame = 0
    var failure: FuzzFailure?
    let start = monotonicNanoseconds()
    let end = file.read { record in
      if record.frame <= lastFrame, failure == nil {
        failure = FuzzFailure(
          target: name, kind: "order", detail: "record \(record.frame) after \(lastFrame)", input: input)
      }
      lastFrame = record.frame
      // Values are views of the record, as `decode` reads them: each must
      // be the record's bytes at the offset it names.
      decoder.decodeBorrowing(
        .packetLogger, frame: record.frame, time: record.time, flags: 0, data: record.data
      ) {
        HCIFuzzTarget.count($0, &stats)
        if failure == nil, let misplaced = HCIFuzzTarget.misplacedValue($0, in: record.data) {
          failure = FuzzFailure(target: name, kind: "value-offset", detail: misplaced, input: input)
        }
      }
    }
    decoder.finish { HCIFuzzTarget.count($0, &stats) }
    if case .damaged = end { stats.errorCodes.add("damaged-file") } else { stats.decoded += 1 }
    return failure
      ?? .bounds(
        target: name, input: input, buffered: decoder.bufferedBytes, limit: decoder.limits.maxBufferedBytes,
        startedAt: start)
  }
}
