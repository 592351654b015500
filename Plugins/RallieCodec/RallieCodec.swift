import PacketKit

/// Rallie v0.3 (docs/protocols.md §3): fixed-length binary frames that start with
/// the magic `5A A5` and end with a one-byte check of one of two variants.
public struct RallieCodec: FrameCodec {
  public typealias Message = RallieMessage

  public init() {}

  public var info: CodecInfo { RallieSchema.info }

  public func kind(of message: RallieMessage) -> String {
    switch message.body {
    case .command: "command"
    case .response: "response"
    }
  }

  // MARK: Decode

  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<RallieMessage> {
    try bytes.withUnsafeBytes { raw throws(DecodeError) in try decode(raw: raw) }
  }

  public func probe(_ bytes: ByteView) -> Int {
    bytes.withUnsafeBytes { probe(raw: $0) }
  }

  /// `decode` on the bytes where they lie (the hot path's own form).
  func decode(raw bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<RallieMessage> {
    try Self.checkMagic(bytes)
    guard bytes.count == RallieSchema.commandLength || bytes.count == RallieSchema.responseLength
    else {
      let count = bytes.count
      throw DecodeError(code: "bad-length", offset: min(count, RallieSchema.commandLength)) {
        .init(
          "frame is \(count) bytes; a Rallie frame is 10 (command) or 5 (response)",
          expected: "10 (command) or 5 (response)", found: "\(count) bytes")
      }
    }
    let variant = try Self.matchingCheckVariant(bytes)
    let checkOffset = bytes.count - 1

    var reader = ByteReader(bytes)
    var diagnostics: [Diagnostic] = []
    let magic = try reader.readBytes(2, "magic")
    let source = try reader.readUInt8("source")
    let isCommand = bytes.count == RallieSchema.commandLength
    // Sized for every field at once: magic, source, a command's six or a
    // response's code, check and check_variant.
    var fields: [DissectionNode] = []
    fields.reserveCapacity(isCommand ? 10 : 5)
    fields.append(DissectionNode("magic", .bytes(magic), range: 0..<2))
    // "hex": shown as the byte it is (0x83), as docs/protocols.md writes it.
    fields.append(DissectionNode("source", .unsigned(UInt64(source)), unit: "hex", range: 2..<3))
    let expectedSource = isCommand ? RallieSource.command : RallieSource.response
    if source != expectedSource {
      diagnostics.append(
        .warning(
          "unexpected-source",
          "source at offset 2 is 0x\(Hex.spaced([source])); a \(isCommand ? "command" : "response") "
            + "carries 0x\(Hex.spaced([expectedSource]))",
          range: 2..<3))
    }

    let body: RallieMessage.Body
    if isCommand {
      body = .command(try decodeCommand(&reader, source: source, &fields, &diagnostics))
    } else {
      let code = try reader.readUInt8("code")
      fields.append(Self.enumNode(RallieSchema.code, code, at: 3, &diagnostics))
      body = .response(RallieResponse(code: code, source: source))
    }

    let check = try reader.readUInt8("check")
    let checkRange = checkOffset..<(checkOffset + 1)
    fields.append(DissectionNode("check", .unsigned(UInt64(check)), unit: "hex", range: checkRange))
    fields.append(
      DissectionNode(
        "check_variant", .enumeration(name: variant.rawValue, raw: variant.raw), range: checkRange))
    let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<checkOffset])
    if RallieCheckVariant.allCases.allSatisfy({ $0.check(covered) == check }) {
      // One frame in 256 carries a byte valid under both variants; the wire
      // cannot say which firmware wrote it.
      diagnostics.append(
        .note(
          "check-ambiguous",
          "check 0x\(Hex.spaced([check])) is valid under both XOR and MODBUS-low; reported as XOR",
          range: checkRange))
    }
    let message = RallieMessage(body, checkVariant: variant)
    return Decoded(
      message: message, messageName: kind(of: message), fields: fields, diagnostics: diagnostics)
  }

  private func decodeCommand(
    _ reader: inout ByteReader, source: UInt8, _ fields: inout [DissectionNode],
    _ diagnostics: inout [Diagnostic]
  ) throws(DecodeError) -> RallieCommand {
    let upperWheel = try Self.readRanged(RallieSchema.upperWheel, &reader, &fields, &diagnostics)
    let lowerWheel = try Self.readRanged(RallieSchema.lowerWheel, &reader, &fields, &diagnostics)
    let pitch = try Self.readRanged(RallieSchema.pitch, &reader, &fields, &diagnostics)
    let yaw = try Self.readRanged(RallieSchema.yaw, &reader, &fields, &diagnostics)
    let feed = try Self.readRanged(RallieSchema.feed, &reader, &fields, &diagnostics)
    let controlOffset = reader.offset
    let control = try reader.readUInt8("control")
    fields.append(Self.enumNode(RallieSchema.control, control, at: controlOffset, &diagnostics))
    return RallieCommand(
      upperWheel: upperWheel, lowerWheel: lowerWheel, pitch: pitch, yaw: yaw, feed: feed,
      control: control, source: source)
  }

  /// One byte with a documented range; outside it decodes with a warning
  /// because the machine's own handling of such values is not documented.
  private static func readRanged(
    _ schema: FieldSchema, _ reader: inout ByteReader, _ fields: inout [DissectionNode],
    _ diagnostics: inout [Diagnostic]
  ) throws(DecodeError) -> UInt8 {
    let offset = reader.offset
    let value = try reader.readUInt8(schema.name)
    fields.append(
      DissectionNode(schema.name, .unsigned(UInt64(value)), unit: schema.unit, range: offset..<offset + 1))
    if let range = schema.range, !range.contains(Double(value)) {
      let unit = schema.unit.map { " \($0)" } ?? ""
      diagnostics.append(
        .warning(
          "out-of-range",
          "\(schema.name) \(value)\(unit) at offset \(offset) is outside \(schema.rangeText ?? "")\(unit)",
          range: offset..<offset + 1))
    }
    return value
  }

  /// An enumeration byte by name, or `unknown(n)` with a warning.
  private static func enumNode(
    _ schema: FieldSchema, _ raw: UInt8, at offset: Int, _ diagnostics: inout [Diagnostic]
  ) -> DissectionNode {
    let known = schema.enumCase(raw: Int64(raw))
    if known == nil {
      diagnostics.append(
        .warning(
          "unknown-enum",
          "\(schema.name) \(raw) at offset \(offset) is unknown; known are "
            + schema.enumCases.map { "\($0.name) (\($0.raw))" }.joined(separator: ", "),
          range: offset..<offset + 1))
    }
    return DissectionNode(
      schema.name, .enumeration(name: known?.name ?? "unknown(\(raw))", raw: Int64(raw)),
      range: offset..<offset + 1)
  }

  private static func checkMagic(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) {
    for (offset, expected) in RallieMagic.bytes.enumerated() {
      guard offset < bytes.count else { return }
      let found = bytes[offset]
      guard found == expected else {
        throw DecodeError(code: "bad-magic", offset: offset) {
          .init(
            "magic byte at offset \(offset) is 0x\(Hex.spaced([found])); "
              + "expected 0x\(Hex.spaced([expected])) (a Rallie frame starts 5A A5)",
            expected: Hex.spaced([expected]), found: Hex.spaced([found]))
        }
      }
    }
  }

  /// The variant whose check matches the last byte; XOR wins a tie because
  /// it is v0.3's own. A frame matching neither shows both expected values.
  private static func matchingCheckVariant(_ bytes: UnsafeRawBufferPointer) throws(DecodeError)
    -> RallieCheckVariant
  {
    let checkOffset = bytes.count - 1
    guard checkOffset >= 0 else {
      throw DecodeError(code: "truncated", offset: 0) { .init("frame has no check byte") }
    }
    let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<checkOffset])
    let found = bytes[checkOffset]
    if let variant = RallieCheckVariant.allCases.first(where: { $0.check(covered) == found }) {
      return variant
    }
    // The words are written later, from each variant's check: not from
    // `covered`, whose bytes may be gone by then.
    let checks = RallieCheckVariant.allCases.map { ($0.check(covered), $0.label) }
    @Sendable func expected() -> String {
      checks.map { "0x\(Hex.spaced([$0.0])) (\($0.1))" }.joined(separator: " or ")
    }
    throw DecodeError(code: "bad-check", offset: checkOffset) {
      .init(
        "check at offset \(checkOffset) is 0x\(Hex.spaced([found])); expected \(expected())",
        expected: expected(), found: "0x\(Hex.spaced([found]))")
    }
  }

  // MARK: Encode

  public func encode(_ message: RallieMessage) throws(EncodeError) -> [UInt8] {
    try validate(message)
    return unchecked(message)
  }

  public func craftBytes(_ message: RallieMessage, values: CraftValues) throws(EncodeError)
    -> [UInt8]
  {
    var bytes = values.force ? unchecked(message) : try encode(message)
    if values.badCheck, let check = bytes.last {
      bytes[bytes.count - 1] = check ^ 0xFF
    }
    return bytes
  }

  /// Refuses what the decoder would warn about.
  private func validate(_ message: RallieMessage) throws(EncodeError) {
    switch message.body {
    case .command(let command):
      try checkSource(command.source, expected: RallieSource.command)
      try RallieSchema.upperWheel.validate(.unsigned(UInt64(command.upperWheel)))
      try RallieSchema.lowerWheel.validate(.unsigned(UInt64(command.lowerWheel)))
      try RallieSchema.pitch.validate(.unsigned(UInt64(command.pitch)))
      try RallieSchema.yaw.validate(.unsigned(UInt64(command.yaw)))
      try RallieSchema.feed.validate(.unsigned(UInt64(command.feed)))
      try RallieCraft.checkKnown(RallieSchema.control, Int64(command.control))
    case .response(let response):
      try checkSource(response.source, expected: RallieSource.response)
      try RallieCraft.checkKnown(RallieSchema.code, Int64(response.code))
    }
  }

  private func checkSource(_ source: UInt8, expected: UInt8) throws(EncodeError) {
    guard source == expected else {
      throw EncodeError(
        code: "out-of-range",
        text: "source 0x\(Hex.spaced([source])) is not 0x\(Hex.spaced([expected]))", field: "source")
    }
  }

  /// The frame in one allocation: magic, body, check byte.
  private func unchecked(_ message: RallieMessage) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(RallieSchema.commandLength)
    bytes.append(contentsOf: RallieMagic.bytes)
    switch message.body {
    case .command(let c):
      bytes.append(c.source)
      bytes.append(c.upperWheel)
      bytes.append(c.lowerWheel)
      bytes.append(c.pitch)
      bytes.append(c.yaw)
      bytes.append(c.feed)
      bytes.append(c.control)
    case .response(let r):
      bytes.append(r.source)
      bytes.append(r.code)
    }
    bytes.append(message.checkVariant.check(bytes))
    return bytes
  }

  // MARK: Craft

  public func message(_ message: String, from values: CraftValues) throws(EncodeError)
    -> RallieMessage
  {
    // The static schema itself, not `info`'s copy of it.
    try RallieCraft.message(message, from: values, info: RallieSchema.info)
  }

  // MARK: Probe

  func probe(raw bytes: UnsafeRawBufferPointer) -> Int {
    guard bytes.count == RallieSchema.commandLength || bytes.count == RallieSchema.responseLength,
      bytes[0] == RallieMagic.bytes[0], bytes[1] == RallieMagic.bytes[1]
    else { return 0 }
    let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 1)])
    let check = bytes[bytes.count - 1]
    return RallieCheckVariant.allCases.contains { $0.check(covered) == check } ? 100 : 50
  }
}

extension RallieCodec: FrameResealing {
  /// The last byte checks the ones before it: XOR (v0.3) or the low byte
  /// of CRC-16/MODBUS (later firmware), as `choice` picks.
  public func reseal(_ frame: inout [UInt8], choice: UInt64) {
    guard frame.count >= 2 else { return }
    let body = frame.dropLast()
    frame[frame.count - 1] =
      choice & 1 == 0 ? Checksums.xor(body) : UInt8(truncatingIfNeeded: Checksums.crc16Modbus(body))
  }
}
