import PacketKit

/// Rider (docs/protocols.md §1): one motor command per UDP datagram, as JSON
/// (`drive`, `move`) or as the legacy text `left,right,direction`.
public struct RiderCodec: FastFrameCodec {
  public typealias Message = RiderMessage

  public init() {}

  public var info: CodecInfo { RiderSchema.info }

  /// A datagram is at most 64 KiB; a command object is flat and small.
  static let jsonLimits = JSONTape.Limits(maxBytes: 65_536, maxDepth: 32, maxElements: 4096)

  public func kind(of message: RiderMessage) -> String {
    switch message {
    case .drive: "drive"
    case .legacy: "legacy"
    case .move: "move"
    }
  }

  // MARK: Decode

  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<RiderMessage> {
    try bytes.withUnsafeBytes { raw throws(DecodeError) in try decode(raw: raw) }
  }

  public func probe(_ bytes: ByteView) -> Int {
    bytes.withUnsafeBytes { probe(raw: $0) }
  }

  /// `decode` on the bytes where they lie (the hot path's own form).
  func decode(raw bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<RiderMessage> {
    if let clean = RiderCleanCommand.scan(bytes) { return clean.decoded() }
    do {
      return try decodeGeneral(bytes)
    } catch {
      throw Self.withRobotsView(error, bytes)
    }
  }

  /// NaN and ±Infinity are not JSON, but the robot's parser (Python's json)
  /// takes them and runs the motors at full speed: the error says so. Only
  /// an error at an `N`, `I` or `-` copies the bytes (the fuzzer and the
  /// probes refuse input far more often than a person reads the words).
  static func withRobotsView(_ error: DecodeError, _ bytes: UnsafeRawBufferPointer) -> DecodeError {
    guard error.code == "bad-json" || error.code == "bad-number", let offset = error.offset,
      offset < bytes.count, [UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "-")].contains(bytes[offset])
    else { return error }
    let datagram = [UInt8](bytes)
    return DecodeError(code: error.code, offset: error.offset, keyPath: error.keyPath) {
      var words = error.words
      if case .applied(let left, let right, _) = RiderRobotParser.read(datagram) {
        words.text +=
          "; the robot's Python json accepts it and applies left \(RiderRobotParser.motor(left)), "
          + "right \(RiderRobotParser.motor(right))"
          + (!left.isFinite || !right.isFinite ? " (full speed)" : "")
      }
      return words
    }
  }

  /// Indices in `info.messages`.
  private static let driveIndex = 0
  private static let moveIndex = 2

  public func cleanKind(_ bytes: UnsafeRawBufferPointer) -> Int? {
    guard let isMove = RiderCleanCommand.variant(bytes) else { return nil }
    return isMove ? Self.moveIndex : Self.driveIndex
  }

  public func cleanFields(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
    RiderCleanCommand.flat(bytes, into: &fields)
  }

  /// Every datagram, clean or not, through the JSON tree (or the legacy
  /// text reader), with every diagnostic. `decode` takes a shortcut for
  /// clean commands; tests check the two agree.
  func decodeGeneral(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<RiderMessage> {
    var oversize: [Diagnostic] = []
    if bytes.count > RiderSchema.robotReadLimit {
      oversize.append(
        .warning(
          "oversize",
          "datagram is \(bytes.count) bytes; the robot reads at most \(RiderSchema.robotReadLimit), "
            + "so it sees a cut-off command",
          range: RiderSchema.robotReadLimit..<bytes.count))
    }
    var decoded =
      RiderLegacyText.looksLegacy(bytes) ? try decodeLegacy(bytes) : try decodeObject(bytes)
    decoded.diagnostics = oversize + decoded.diagnostics
    return decoded
  }

  private func decodeObject(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<RiderMessage> {
    try JSONTape.read(bytes, limits: Self.jsonLimits) { root throws(DecodeError) in try decodeObject(root) }
  }

  /// The command in `value`, read while its tape is alive.
  private func decodeObject(_ value: JSONNode) throws(DecodeError) -> Decoded<RiderMessage> {
    guard value.kind == .object else {
      let (offset, typeName) = (value.range.lowerBound, value.typeName)
      throw DecodeError(code: "not-object", offset: offset) {
        .init(
          "a Rider command is a JSON object, but this datagram holds \(typeName) "
            + "at offset \(offset)", expected: "object", found: typeName)
      }
    }
    let members = Array(value.members)
    var reader = RiderObjectDecoder(members: members, objectRange: value.range)
    let message: RiderMessage
    // The move variant is told apart by its "command" key.
    if members.contains(where: { $0.key.textEquals("command") }) {
      let command = try reader.command()
      let speed = try reader.motorValue("speed", unit: "%")
      let direction = try reader.motorValue("direction", unit: nil)
      let timestamp = reader.timestamp()
      message = .move(
        RiderMove(
          command: command, speed: speed, direction: direction, timestamp: timestamp,
          extraKeys: reader.extraKeys(known: RiderSchema.moveKeys)))
    } else {
      let left = try reader.motorValue("left", unit: "%")
      let right = try reader.motorValue("right", unit: "%")
      let timestamp = reader.timestamp()
      message = .drive(
        RiderDrive(
          left: left, right: right, timestamp: timestamp,
          extraKeys: reader.extraKeys(known: RiderSchema.driveKeys)))
    }
    return Decoded(
      message: message, messageName: kind(of: message), fields: reader.fields,
      diagnostics: reader.diagnostics)
  }

  private func decodeLegacy(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<RiderMessage> {
    let values = try RiderLegacyText.parse(bytes)
    guard values.count == 3, let left = values.first, let right = values.dropFirst().first,
      let direction = values.last
    else {
      throw DecodeError(code: "bad-legacy", offset: bytes.count) { .init("legacy form needs 3 integers") }
    }
    var diagnostics: [Diagnostic] = []
    for (name, entry) in [("left", left), ("right", right)]
    where !RiderSchema.speedRange.contains(Double(entry.value)) {
      diagnostics.append(
        .warning(
          "out-of-range", "\(name) \(entry.value) is outside \(RiderSchema.speedRangeText) %",
          range: entry.range))
    }
    let directionCase = RiderSchema.legacyDirection.enumCase(raw: Int64(direction.value))
    if directionCase == nil {
      diagnostics.append(
        .warning(
          "unknown-enum",
          "direction \(direction.value) is unknown; known are 0 straight, 1 left, 2 right",
          range: direction.range))
    }
    let fields = [
      DissectionNode("left", .integer(Int64(left.value)), unit: "%", range: left.range),
      DissectionNode("right", .integer(Int64(right.value)), unit: "%", range: right.range),
      DissectionNode(
        "direction",
        .enumeration(
          name: directionCase?.name ?? "unknown(\(direction.value))", raw: Int64(direction.value)),
        range: direction.range),
    ]
    let message = RiderMessage.legacy(
      RiderLegacy(left: left.value, right: right.value, direction: direction.value))
    return Decoded(message: message, messageName: "legacy", fields: fields, diagnostics: diagnostics)
  }

  // MARK: Encode

  public func encode(_ message: RiderMessage) throws(EncodeError) -> [UInt8] {
    try validate(message)
    return try write(message, force: false)
  }

  public func craftBytes(_ message: RiderMessage, values: CraftValues) throws(EncodeError) -> [UInt8] {
    values.force ? try write(message, force: true) : try encode(message)
  }

  /// Refuses what the decoder would warn about.
  private func validate(_ message: RiderMessage) throws(EncodeError) {
    switch message {
    case .drive(let drive):
      try checkSpeed("left", drive.left, unit: "%")
      try checkSpeed("right", drive.right, unit: "%")
    case .move(let move):
      guard move.command == RiderMoveCommand.move || move.command == RiderMoveCommand.stop else {
        throw EncodeError(
          code: "out-of-range", text: "command \(JSONWriter.quoted(move.command)) is neither move nor stop",
          field: "command")
      }
      try checkSpeed("speed", move.speed, unit: "%")
      try checkSpeed("direction", move.direction, unit: nil)
    case .legacy(let legacy):
      try checkSpeed("left", Double(legacy.left), unit: "%")
      try checkSpeed("right", Double(legacy.right), unit: "%")
      guard RiderSchema.legacyDirection.enumCase(raw: Int64(legacy.direction)) != nil else {
        throw .outOfRange("direction", String(legacy.direction), allowed: "0 (straight), 1 (left), 2 (right)")
      }
    }
  }

  private func checkSpeed(_ name: String, _ value: Double, unit: FieldUnit?) throws(EncodeError) {
    guard RiderSchema.speedRange.contains(value) else {
      throw .outOfRange(name, JSONWriter.formatNumber(value), allowed: RiderSchema.speedRangeText, unit: unit)
    }
  }

  /// The canonical text: known keys first in the documented order, no
  /// spaces, then the extra keys in their order.
  private func write(_ message: RiderMessage, force: Bool) throws(EncodeError) -> [UInt8] {
    switch message {
    case .legacy(let legacy):
      return RiderLegacyText.format(legacy)
    case .drive(let drive):
      var object = RiderObjectWriter()
      try object.number("left", drive.left)
      try object.number("right", drive.right)
      if let timestamp = drive.timestamp { try object.number("timestamp", timestamp) }
      try object.extras(drive.extraKeys, allowDuplicates: force)
      return object.finish()
    case .move(let move):
      var object = RiderObjectWriter()
      object.string("command", move.command)
      try object.number("speed", move.speed)
      try object.number("direction", move.direction)
      if let timestamp = move.timestamp { try object.number("timestamp", timestamp) }
      try object.extras(move.extraKeys, allowDuplicates: force)
      return object.finish()
    }
  }

  // MARK: Craft

  public func message(_ message: String, from values: CraftValues) throws(EncodeError) -> RiderMessage {
    // The static schema itself, not `info`'s copy of it.
    try RiderCraft.message(message, from: values, info: RiderSchema.info)
  }

  // MARK: Probe

  /// Only a datagram this small is worth parsing to probe.
  static let probeLimit = 8192

  func probe(raw bytes: UnsafeRawBufferPointer) -> Int {
    guard !bytes.isEmpty, bytes.count <= Self.probeLimit,
      let first = bytes.firstIndex(where: { !Self.isSpace($0) }),
      let last = bytes.lastIndex(where: { !Self.isSpace($0) })
    else { return 0 }
    switch bytes[first] {
    case UInt8(ascii: "{"):
      guard bytes[last] == UInt8(ascii: "}") else { return 0 }
      let score = try? JSONTape.read(bytes, limits: Self.jsonLimits) { root -> Int in
        let members = root.members  // empty unless an object
        if members.contains(where: { $0.key.textEquals("command") }) { return 85 }
        if members.contains(where: { $0.key.textEquals("left") || $0.key.textEquals("right") }) { return 90 }
        return 0
      }
      return score ?? 0
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"):
      guard RiderLegacyText.looksLegacy(bytes), (try? RiderLegacyText.parse(bytes)) != nil else { return 0 }
      return 40
    default:
      return 0
    }
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
      || byte == UInt8(ascii: "\n")
  }
}
