import PacketKit

/// Beacon v1: a soil sensor's reading broadcast over UDP port 7070, and
/// the gateway's acknowledgement (see ../../README.md). A complete pktbench
/// codec written against the core alone: its schema, decode, encode,
/// probe, craft and kind. Everything else (routing, decode output, the
/// display filter, craft, send, fuzzing) comes from these.
public struct BeaconCodec: FrameCodec {
  public enum Message: Sendable, Equatable {
    case reading(BeaconReading)
    case ack(sequence: UInt8)
  }

  public init() {}

  public var info: CodecInfo { BeaconSchema.info }

  public func kind(of message: Message) -> String {
    switch message {
    case .reading: "reading"
    case .ack: "ack"
    }
  }

  // MARK: Decode

  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<Message> {
    guard bytes.count >= 1 else { throw DecodeError(code: "truncated", offset: 0, text: "an empty datagram") }
    switch bytes[0] {
    case BeaconSchema.readingMagic: return try decodeReading(bytes)
    case BeaconSchema.ackMagic: return try decodeAck(bytes)
    default:
      throw DecodeError(
        code: "bad-magic", offset: 0,
        text: "first byte is \(hex(bytes[0])); expected B1 (reading) or B2 (ack)",
        expected: "B1 or B2", found: hex(bytes[0]))
    }
  }

  private func decodeReading(_ bytes: ByteView) throws(DecodeError) -> Decoded<Message> {
    try requireLength(bytes, 10, "a reading")
    try requireCheck(bytes)
    var reader = bytes.reader(at: 1)
    let sequence = try reader.readUInt8("seq")
    let moisture = try reader.readUInt8("moisture")
    let temperature = Int16(bitPattern: try reader.readUInt16LE("temperature"))
    let battery = try reader.readUInt16LE("battery_mv")
    let status = try reader.readUInt8("status")
    let reserved = try reader.readUInt8("reserved")
    let reading = BeaconReading(
      sequence: sequence, moisture: moisture, temperatureTenths: temperature, batteryMillivolts: battery,
      status: status)
    var diagnostics: [Diagnostic] = []
    // Out of range is a warning, not damage: the reading still says what the sensor sent.
    for (schema, value, range) in [
      (BeaconSchema.moisture, Double(moisture), 2..<3),
      (BeaconSchema.temperature, Double(temperature) / 10, 3..<5),
      (BeaconSchema.battery, Double(battery), 5..<7),
    ] where !(schema.range ?? -Double.infinity...Double.infinity).contains(value) {
      diagnostics.append(
        .warning("out-of-range", "\(schema.name) \(value) is outside its range", range: range))
    }
    let statusCase = BeaconSchema.status.enumCase(raw: Int64(status))
    if statusCase == nil {
      diagnostics.append(.warning("unknown-enum", "status \(status) is unknown", range: 7..<8))
    }
    if reserved != 0 {
      diagnostics.append(.warning("reserved-nonzero", "reserved is \(reserved)", range: 8..<9))
    }
    let fields = [
      DissectionNode("seq", .unsigned(UInt64(sequence)), range: 1..<2),
      DissectionNode("moisture", .unsigned(UInt64(moisture)), unit: "%", range: 2..<3),
      DissectionNode("temperature", .number(Double(temperature) / 10), unit: "°C", range: 3..<5),
      DissectionNode("battery_mv", .unsigned(UInt64(battery)), unit: "mV", range: 5..<7),
      DissectionNode(
        "status", .enumeration(name: statusCase?.name ?? "unknown(\(status))", raw: Int64(status)),
        range: 7..<8),
      DissectionNode("check", .unsigned(UInt64(bytes[9])), range: 9..<10),
    ]
    return Decoded(
      message: .reading(reading), messageName: "reading", fields: fields, diagnostics: diagnostics)
  }

  private func decodeAck(_ bytes: ByteView) throws(DecodeError) -> Decoded<Message> {
    try requireLength(bytes, 3, "an ack")
    try requireCheck(bytes)
    let fields = [
      DissectionNode("seq", .unsigned(UInt64(bytes[1])), range: 1..<2),
      DissectionNode("check", .unsigned(UInt64(bytes[2])), range: 2..<3),
    ]
    return Decoded(message: .ack(sequence: bytes[1]), messageName: "ack", fields: fields)
  }

  private func requireLength(_ bytes: ByteView, _ length: Int, _ what: String) throws(DecodeError) {
    guard bytes.count == length else {
      throw DecodeError(
        code: "bad-length", offset: min(bytes.count, length),
        text: "\(what) is \(length) bytes; this datagram has \(bytes.count)", expected: "\(length) bytes",
        found: "\(bytes.count) bytes")
    }
  }

  /// The last byte is the XOR of all the others.
  private func requireCheck(_ bytes: ByteView) throws(DecodeError) {
    let last = bytes.count - 1
    let expected = BeaconSchema.check(bytes.bytes.prefix(last))
    guard bytes[last] == expected else {
      throw DecodeError(
        code: "bad-check", offset: last,
        text:
          "check byte at offset \(last) is \(hex(bytes[last])); the XOR of the bytes before it is \(hex(expected))",
        expected: hex(expected), found: hex(bytes[last]))
    }
  }

  // MARK: Encode and craft

  public func encode(_ message: Message) throws(EncodeError) -> [UInt8] {
    var frame: [UInt8]
    switch message {
    case .reading(let reading):
      let temperature = UInt16(bitPattern: reading.temperatureTenths)
      frame = [
        BeaconSchema.readingMagic, reading.sequence, reading.moisture, UInt8(temperature & 0xFF),
        UInt8(temperature >> 8), UInt8(reading.batteryMillivolts & 0xFF),
        UInt8(reading.batteryMillivolts >> 8),
        reading.status, 0,
      ]
    case .ack(let sequence):
      frame = [BeaconSchema.ackMagic, sequence]
    }
    frame.append(BeaconSchema.check(frame[...]))
    return frame
  }

  public func craftBytes(_ message: Message, values: CraftValues) throws(EncodeError) -> [UInt8] {
    var frame = try encode(message)
    if values.badCheck { frame[frame.count - 1] ^= 0xFF }
    return frame
  }

  public func message(_ kind: String, from values: CraftValues) throws(EncodeError) -> Message {
    switch kind {
    case "reading":
      for schema in [BeaconSchema.moisture, BeaconSchema.temperature, BeaconSchema.battery]
      where !values.force {
        try schema.validate(.number(try values.number(schema.name)))
      }
      let temperature = (try values.number("temperature") * 10).rounded()
      guard let moisture = UInt8(exactly: try values.integer("moisture")),
        let tenths = Int16(exactly: temperature),
        let battery = UInt16(exactly: try values.integer("battery_mv")),
        let sequence = UInt8(exactly: try values.integer("seq")),
        let status = UInt8(exactly: try values.integer("status"))
      else {
        throw EncodeError(code: "out-of-range", text: "a reading's fields must fit their bytes on the wire")
      }
      return .reading(
        BeaconReading(
          sequence: sequence, moisture: moisture, temperatureTenths: tenths, batteryMillivolts: battery,
          status: status))
    case "ack":
      guard let sequence = UInt8(exactly: try values.integer("seq")) else {
        throw EncodeError(code: "out-of-range", text: "seq is one byte: 0…255")
      }
      return .ack(sequence: sequence)
    default:
      throw EncodeError(code: "unknown-message", text: "beacon has no message '\(kind)'; it has reading, ack")
    }
  }

  // MARK: Probe

  public func probe(_ bytes: ByteView) -> Int {
    let length = bytes.count
    guard
      length == 10 && bytes[0] == BeaconSchema.readingMagic
        || length == 3 && bytes[0] == BeaconSchema.ackMagic
    else { return 0 }
    return bytes[length - 1] == BeaconSchema.check(bytes.bytes.prefix(length - 1)) ? 90 : 20
  }
}

/// One reading of the sensor.
public struct BeaconReading: Sendable, Equatable {
  public var sequence: UInt8
  public var moisture: UInt8
  /// Tenths of a degree Celsius.
  public var temperatureTenths: Int16
  public var batteryMillivolts: UInt16
  public var status: UInt8
}

private func hex(_ byte: UInt8) -> String {
  let digits = Array("0123456789ABCDEF")
  return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
