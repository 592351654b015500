import PacketKit

/// LegCtrl (docs/protocols.md §2): little-endian binary, 4-byte header.
public struct LegCtrlCodec: FastFrameCodec {
  public typealias Message = LegCtrlMessage

  public init() {}

  let names = LegCtrlNames.shared

  public var info: CodecInfo { LegCtrlSchema.info }

  static let headerLength = 4
  static let maxPayloadLength = 8

  public func kind(of message: LegCtrlMessage) -> String {
    switch message.body {
    case .arm: names.arm
    case .disarm: names.disarm
    case .setServoCh0: names.setServoCh0
    case .ping: names.ping
    case .telemetry: names.telemetry
    case .unknown: "unknown"
    }
  }

  // MARK: Decode

  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<LegCtrlMessage> {
    try bytes.withUnsafeBytes { raw throws(DecodeError) in try decode(raw: raw) }
  }

  public func probe(_ bytes: ByteView) -> Int {
    bytes.withUnsafeBytes { probe(raw: $0) }
  }

  /// `decode` on the bytes where they lie (the hot path's own form).
  func decode(raw bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<LegCtrlMessage> {
    var reader = ByteReader(bytes)
    var diagnostics: [Diagnostic] = []
    let version = try reader.readUInt8("version")
    guard version == 1 else {
      throw DecodeError(code: "bad-version", offset: 0) {
        .init("version at offset 0 is \(version); expected 1", expected: "01", found: Hex.spaced([version]))
      }
    }
    let msgType = try reader.readUInt8("msg_type")
    let payloadLength = Int(try reader.readUInt8("payload_len"))
    let reserved = try reader.readUInt8("reserved")
    guard payloadLength <= Self.maxPayloadLength else {
      throw DecodeError(code: "bad-length", offset: 2) {
        .init(
          "payload_len at offset 2 is \(payloadLength); at most \(Self.maxPayloadLength) is allowed",
          expected: "0…8", found: String(payloadLength))
      }
    }
    guard bytes.count == Self.headerLength + payloadLength else {
      let count = bytes.count
      let expected = Self.headerLength + payloadLength
      // The error is where the frame leaves what payload_len promised, and
      // the text names that offset too.
      let offset = min(count, expected)
      throw DecodeError(code: "bad-length", offset: offset) {
        .init(
          "frame is \(count) bytes but payload_len at offset 2 says \(payloadLength), "
            + "so \(expected) were expected: "
            + (count > expected
              ? "\(count - expected) more from offset \(offset)" : "it ends at offset \(offset)"),
          expected: "\(expected) bytes", found: "\(count) bytes")
      }
    }
    if reserved != 0 {
      diagnostics.append(
        .warning(
          "reserved-nonzero", "header reserved byte is 0x\(Hex.compact([reserved])); expected 00",
          range: 3..<4))
    }
    let typeName = Self.typeName(msgType)
    // Sized for the most a frame has: the header and telemetry's five fields.
    var fields: [DissectionNode] = []
    fields.reserveCapacity(6)
    fields.append(
      DissectionNode(
        group: names.header.string, range: 0..<4,
        children: [
          DissectionNode(names.version.string, .unsigned(UInt64(version)), range: 0..<1),
          DissectionNode(
            names.msgType.string, .enumeration(name: typeName, raw: Int64(msgType)),
            range: 1..<2),
          DissectionNode(
            names.payloadLength.string, .unsigned(UInt64(payloadLength)),
            unit: names.payloadLength.unit, range: 2..<3),
          DissectionNode(names.reserved.string, .unsigned(UInt64(reserved)), range: 3..<4),
        ]))

    let body: LegCtrlMessage.Body
    switch msgType {
    case LegCtrlMsgType.arm, LegCtrlMsgType.disarm, LegCtrlMsgType.ping:
      if payloadLength != 0 {
        // The firmware runs these whatever follows them (docs/protocols.md §5):
        // the message is what it executes, the payload a warning beside it.
        diagnostics.append(
          .warning(
            "unexpected-payload",
            "\(typeName) carries no payload but payload_len is \(payloadLength); the firmware executes it "
              + "all the same",
            range: 4..<(4 + payloadLength)))
        let payload = try reader.readBytes(payloadLength, "payload")
        fields.append(
          DissectionNode(
            names.payload.string, .bytes(payload), range: 4..<(4 + payloadLength)))
      }
      body = msgType == LegCtrlMsgType.arm ? .arm : msgType == LegCtrlMsgType.disarm ? .disarm : .ping
    case LegCtrlMsgType.setServoCh0:
      guard payloadLength == 2 else {
        // The firmware ignores a servo command whose payload_len is not 2.
        diagnostics.append(
          .warning(
            "ignored-by-device",
            "SET_SERVO_CH0 needs payload_len 2, found \(payloadLength): the firmware ignores it",
            range: 2..<3))
        return try unknown(msgType, &reader, payloadLength, version, reserved, fields, diagnostics)
      }
      let pulse = try reader.readUInt16LE("pulse_us")
      fields.append(
        DissectionNode(names.pulse.string, .unsigned(UInt64(pulse)), unit: names.pulse.unit, range: 4..<6))
      if !names.pulseRange.contains(pulse) {
        diagnostics.append(
          .warning(
            "out-of-range", "pulse_us \(pulse) µs is outside 500…2500 µs; the firmware clamps it",
            range: 4..<6))
      }
      body = .setServoCh0(pulseMicroseconds: pulse)
    case LegCtrlMsgType.telemetry:
      guard payloadLength == 8 else {
        throw DecodeError(code: "bad-length", offset: 2) {
          .init(
            "TELEMETRY needs payload_len 8 at offset 2, found \(payloadLength)", expected: "8",
            found: String(payloadLength))
        }
      }
      let telemetry = try decodeTelemetry(&reader, into: &fields, &diagnostics)
      body = .telemetry(telemetry)
    default:
      diagnostics.append(
        .warning(
          "unknown-msg-type",
          "msg_type 0x\(Hex.compact([msgType])) is unknown; the firmware answers INVALID_CMD",
          range: 1..<2))
      return try unknown(msgType, &reader, payloadLength, version, reserved, fields, diagnostics)
    }
    let message = LegCtrlMessage(body, version: version, reserved: reserved)
    return Decoded(
      message: message, messageName: kind(of: message), fields: fields, diagnostics: diagnostics)
  }

  private func unknown(
    _ msgType: UInt8, _ reader: inout ByteReader, _ payloadLength: Int, _ version: UInt8,
    _ reserved: UInt8, _ fields: [DissectionNode], _ diagnostics: [Diagnostic]
  ) throws(DecodeError) -> Decoded<LegCtrlMessage> {
    var fields = fields
    let payload = try reader.readBytes(payloadLength, "payload")
    if payloadLength > 0 {
      fields.append(
        DissectionNode(names.payload.string, .bytes(payload), range: 4..<(4 + payloadLength))
      )
    }
    let message = LegCtrlMessage(
      .unknown(msgType: msgType, payload: payload), version: version, reserved: reserved)
    return Decoded(
      message: message, messageName: "unknown", fields: fields,
      diagnostics: diagnostics)
  }

  private func decodeTelemetry(
    _ reader: inout ByteReader, into fields: inout [DissectionNode],
    _ diagnostics: inout [Diagnostic]
  ) throws(DecodeError) -> LegCtrlTelemetry {
    let state = try reader.readUInt8("state")
    let errorCode = try reader.readUInt8("error_code")
    let age = try reader.readUInt16LE("last_cmd_age_ms")
    let battery = try reader.readUInt16LE("battery_mv")
    let reserved = try reader.readUInt16LE("reserved")
    let stateCase = LegCtrlSchema.state.enumCase(raw: Int64(state))
    if stateCase == nil {
      diagnostics.append(
        .warning(
          "unknown-enum", "state \(state) is unknown (the app shows FAULT)", range: 4..<5))
    }
    let errorCase = LegCtrlSchema.errorCode.enumCase(raw: Int64(errorCode))
    if errorCase == nil {
      diagnostics.append(
        .warning("unknown-enum", "error_code \(errorCode) is unknown", range: 5..<6))
    }
    if reserved != 0 {
      diagnostics.append(
        .warning(
          "reserved-nonzero", "telemetry reserved is \(reserved); expected 0", range: 10..<12))
    }
    fields.append(
      DissectionNode(
        names.state.string,
        .enumeration(name: stateCase?.name ?? "unknown(\(state))", raw: Int64(state)), range: 4..<5))
    fields.append(
      DissectionNode(
        names.errorCode.string,
        .enumeration(name: errorCase?.name ?? "unknown(\(errorCode))", raw: Int64(errorCode)),
        range: 5..<6))
    let ageSchema = names.lastCommandAge
    let batterySchema = names.battery
    fields.append(
      DissectionNode(ageSchema.string, .unsigned(UInt64(age)), unit: ageSchema.unit, range: 6..<8))
    fields.append(
      DissectionNode(
        batterySchema.string, .unsigned(UInt64(battery)), unit: batterySchema.unit, range: 8..<10))
    fields.append(
      DissectionNode(names.reserved.string, .unsigned(UInt64(reserved)), range: 10..<12))
    return LegCtrlTelemetry(
      state: state, errorCode: errorCode, lastCommandAgeMilliseconds: age,
      batteryMillivolts: battery, reserved: reserved)
  }

  /// The name the dissection shows for `msgType`: docs/protocols.md's, or
  /// `unknown(0x3f)`. Written once for all 256 (a mutated or damaged frame
  /// has an unknown type more often than not, and each was built anew).
  static func typeName(_ msgType: UInt8) -> String {
    typeNames[Int(msgType)]
  }

  private static let typeNames: [String] = (0...255).map { raw in
    let msgType = UInt8(raw)
    return knownTypeName(msgType)?.description ?? "unknown(0x\(Hex.compact([msgType])))"
  }

  /// docs/protocols.md §2's msg_type names, as literals (flat fields carry them).
  static func knownTypeName(_ msgType: UInt8) -> StaticString? {
    switch msgType {
    case LegCtrlMsgType.arm: "ARM"
    case LegCtrlMsgType.disarm: "DISARM"
    case LegCtrlMsgType.setServoCh0: "SET_SERVO_CH0"
    case LegCtrlMsgType.ping: "PING"
    case LegCtrlMsgType.telemetry: "TELEMETRY"
    default: nil
    }
  }

  // MARK: Encode

  public func encode(_ message: LegCtrlMessage) throws(EncodeError) -> [UInt8] {
    if case .setServoCh0(let pulse) = message.body {
      try LegCtrlSchema.pulse.validate(.unsigned(UInt64(pulse)))
    }
    return unchecked(message)
  }

  public func craftBytes(_ message: LegCtrlMessage, values: CraftValues) throws(EncodeError)
    -> [UInt8]
  {
    values.force ? unchecked(message) : try encode(message)
  }

  /// The frame in one allocation: the header, then the payload, then
  /// payload_len set to what was written.
  private func unchecked(_ message: LegCtrlMessage) -> [UInt8] {
    var frame: [UInt8] = []
    frame.reserveCapacity(Self.headerLength + Self.maxPayloadLength)
    frame.append(message.version)
    frame.append(message.msgType)
    frame.append(0)
    frame.append(message.reserved)
    switch message.body {
    case .arm, .disarm, .ping: break
    case .setServoCh0(let pulse): appendLittleEndian(pulse, to: &frame)
    case .telemetry(let t):
      frame.append(t.state)
      frame.append(t.errorCode)
      appendLittleEndian(t.lastCommandAgeMilliseconds, to: &frame)
      appendLittleEndian(t.batteryMillivolts, to: &frame)
      appendLittleEndian(t.reserved, to: &frame)
    case .unknown(_, let bytes): frame.append(contentsOf: bytes)
    }
    frame[2] = UInt8(truncatingIfNeeded: frame.count - Self.headerLength)
    return frame
  }

  private func appendLittleEndian(_ value: UInt16, to frame: inout [UInt8]) {
    frame.append(UInt8(value & 0xFF))
    frame.append(UInt8(value >> 8))
  }

  // MARK: Craft

  public func message(_ message: String, from values: CraftValues) throws(EncodeError)
    -> LegCtrlMessage
  {
    switch message {
    case "arm": return LegCtrlMessage(.arm)
    case "disarm": return LegCtrlMessage(.disarm)
    case "ping": return LegCtrlMessage(.ping)
    case "set_servo_ch0":
      let pulse = try values.integer("pulse_us")
      try check(LegCtrlSchema.pulse, pulse, values)
      return LegCtrlMessage(.setServoCh0(pulseMicroseconds: UInt16(truncatingIfNeeded: pulse)))
    case "telemetry":
      let state = try values.integer("state")
      let error = try values.integer("error_code")
      let age = try values.integer("last_cmd_age_ms")
      let battery = try values.integer("battery_mv")
      try check(LegCtrlSchema.lastCommandAge, age, values)
      try check(LegCtrlSchema.battery, battery, values)
      return LegCtrlMessage(
        .telemetry(
          LegCtrlTelemetry(
            state: UInt8(truncatingIfNeeded: state), errorCode: UInt8(truncatingIfNeeded: error),
            lastCommandAgeMilliseconds: UInt16(truncatingIfNeeded: age),
            batteryMillivolts: UInt16(truncatingIfNeeded: battery))))
    default:
      throw EncodeError(code: "unknown-message", text: "legctrl has no message '\(message)'")
    }
  }

  /// Range check, unless forced; even forced values must fit the wire width.
  private func check(_ schema: FieldSchema, _ value: Int64, _ values: CraftValues)
    throws(EncodeError)
  {
    if !values.force { try schema.validate(.integer(value)) }
    guard (0...65535).contains(value) else {
      throw .tooWide(
        schema.name, String(value), wire: "a u16 (2 bytes)", allowed: "0…65535", unit: schema.unit)
    }
  }

  // MARK: Counting

  /// A frame `decode` reads without a diagnostic: version 1, reserved 0,
  /// the payload length its type needs, values in range. The index is the
  /// message's place in `info.messages` (`names.kinds`).
  public func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard bytes.count >= Self.headerLength, bytes[0] == 1, bytes[3] == 0,
      bytes.count == Self.headerLength + Int(bytes[2])
    else { return nil }
    let kinds = names.kinds
    switch (bytes[1], bytes.count) {
    case (LegCtrlMsgType.arm, 4): return kinds.arm
    case (LegCtrlMsgType.disarm, 4): return kinds.disarm
    case (LegCtrlMsgType.setServoCh0, 6):
      return names.pulseRange.contains(UInt16(bytes[4]) | UInt16(bytes[5]) << 8) ? kinds.setServoCh0 : nil
    case (LegCtrlMsgType.ping, 4): return kinds.ping
    case (LegCtrlMsgType.telemetry, 12):
      guard LegCtrlSchema.stateName(bytes[4]) != nil, LegCtrlSchema.errorCodeName(bytes[5]) != nil,
        bytes[10] == 0, bytes[11] == 0
      else {
        return nil
      }
      return kinds.telemetry
    default: return nil
    }
  }

  /// `cleanKind`'s frames as `decode` dissects them: the header group, then
  /// the payload's fields, names and units from `names` (the schema's).
  public func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
    guard let kind = cleanKind(bytes), let typeName = Self.knownTypeName(bytes[1]) else { return false }
    let kinds = names.kinds
    fields.removeAll()
    fields.message = kinds.names[kind]
    fields.append(.init(names.header.literal, .group(count: 4), range: 0..<4))
    fields.append(.init(names.version.literal, .unsigned(UInt64(bytes[0])), range: 0..<1))
    fields.append(
      .init(names.msgType.literal, .enumeration(typeName, raw: Int64(bytes[1])), range: 1..<2))
    fields.append(
      .init(
        names.payloadLength.literal, .unsigned(UInt64(bytes[2])),
        unit: names.payloadLength.unitLiteral,
        range: 2..<3))
    fields.append(.init(names.reserved.literal, .unsigned(UInt64(bytes[3])), range: 3..<4))
    if kind == kinds.setServoCh0 {
      let pulse = UInt64(bytes[4]) | UInt64(bytes[5]) << 8
      fields.append(.init(names.pulse.literal, .unsigned(pulse), unit: names.pulse.unitLiteral, range: 4..<6))
    } else if kind == kinds.telemetry {
      guard let state = LegCtrlSchema.stateName(bytes[4]), let error = LegCtrlSchema.errorCodeName(bytes[5])
      else {
        return false
      }
      let age = UInt64(bytes[6]) | UInt64(bytes[7]) << 8
      let battery = UInt64(bytes[8]) | UInt64(bytes[9]) << 8
      let reserved = UInt64(bytes[10]) | UInt64(bytes[11]) << 8
      let ageSchema = names.lastCommandAge
      let batterySchema = names.battery
      fields.append(
        .init(names.state.literal, .enumeration(state, raw: Int64(bytes[4])), range: 4..<5))
      fields.append(
        .init(names.errorCode.literal, .enumeration(error, raw: Int64(bytes[5])), range: 5..<6))
      fields.append(.init(ageSchema.literal, .unsigned(age), unit: ageSchema.unitLiteral, range: 6..<8))
      fields.append(
        .init(batterySchema.literal, .unsigned(battery), unit: batterySchema.unitLiteral, range: 8..<10))
      fields.append(.init(names.reserved.literal, .unsigned(reserved), range: 10..<12))
    }
    return true
  }

  // MARK: Probe

  func probe(raw bytes: UnsafeRawBufferPointer) -> Int {
    guard bytes.count >= 4, bytes[0] == 1, Int(bytes[2]) <= Self.maxPayloadLength,
      bytes.count == 4 + Int(bytes[2])
    else { return 0 }
    switch (bytes[1], bytes[2]) {
    case (LegCtrlMsgType.setServoCh0, 2), (LegCtrlMsgType.telemetry, 8):
      return bytes[3] == 0 ? 80 : 50
    case (LegCtrlMsgType.arm, 0), (LegCtrlMsgType.disarm, 0), (LegCtrlMsgType.ping, 0):
      return bytes[3] == 0 ? 60 : 30
    default:
      return 10
    }
  }
}

extension LegCtrlCodec: FrameResealing {
  /// `payload_len` (offset 2) counts what follows the 4-byte header.
  public func reseal(_ frame: inout [UInt8], choice: UInt64) {
    guard frame.count >= Self.headerLength else { return }
    frame[2] = UInt8(truncatingIfNeeded: frame.count - Self.headerLength)
  }
}
