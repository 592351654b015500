import PacketKit

/// The common case of a Rider datagram, read in one pass without a JSON
/// tree: a flat object holding exactly the keys of one variant, each once,
/// motor values in range, with a timestamp — what the app sends 20 times a
/// second. Such a datagram decodes with no diagnostics, so `decode` builds
/// its result straight from this scan and `cleanKind` answers without
/// decoding. Anything else (legacy text, extra or repeated keys, escapes,
/// values out of range, numbers only strtod reads exactly, bad JSON) returns
/// nil and goes to the general decoder, which explains it.
struct RiderCleanCommand {
  enum Key: UInt8 {
    case left, right, timestamp, command, speed, direction
  }

  struct Member {
    var key: Key
    var number: Double
    var isInteger: Bool
    /// The value's bytes (for `command`, with its quotes).
    var range: Range<Int>
    /// Whether those bytes are the number as JSON output writes it.
    var verbatim: Bool
  }

  /// Members in wire order; `count` of the four slots are used.
  private(set) var members: (Member, Member, Member, Member)
  private(set) var count = 0
  /// For `move`: whether the command word is "move" (else "stop").
  private(set) var commandIsMove = false

  var isMove: Bool { seen & Self.moveKeys == Self.moveKeys }
  private var seen: UInt8 = 0

  private static let driveKeys: UInt8 =
    1 << Key.left.rawValue | 1 << Key.right.rawValue | 1 << Key.timestamp.rawValue
  private static let moveKeys: UInt8 =
    1 << Key.command.rawValue | 1 << Key.speed.rawValue | 1 << Key.direction.rawValue
    | 1 << Key.timestamp.rawValue

  private static let unused = Member(key: .left, number: 0, isInteger: true, range: 0..<0, verbatim: false)

  private init() {
    members = (Self.unused, Self.unused, Self.unused, Self.unused)
  }

  func member(_ index: Int) -> Member {
    switch index {
    case 0: members.0
    case 1: members.1
    case 2: members.2
    default: members.3
    }
  }

  func number(_ key: Key) -> Double {
    for index in 0..<count where member(index).key == key { return member(index).number }
    return 0
  }

  private mutating func append(_ member: Member) -> Bool {
    guard count < 4 else { return false }
    switch count {
    case 0: members.0 = member
    case 1: members.1 = member
    case 2: members.2 = member
    default: members.3 = member
    }
    count += 1
    return true
  }

  /// The clean command in `bytes`, or nil when the general decoder must look.
  static func scan(_ bytes: UnsafeRawBufferPointer) -> RiderCleanCommand? {
    var command = RiderCleanCommand()
    return command.read(bytes, keepMembers: true) ? command : nil
  }

  /// `scan` straight into flat fields (nothing handed back to copy).
  static func flat(_ bytes: UnsafeRawBufferPointer, into fields: inout FlatFields) -> Bool {
    var command = RiderCleanCommand()
    guard command.read(bytes, keepMembers: true) else { return false }
    command.write(into: &fields)
    return true
  }

  /// Whether `bytes` hold a clean command, and which variant: true for
  /// `move`, false for `drive`, nil when not clean.
  static func variant(_ bytes: UnsafeRawBufferPointer) -> Bool? {
    var command = RiderCleanCommand()
    return command.read(bytes, keepMembers: false) ? command.isMove : nil
  }

  /// Reads `bytes` as compact JSON first (what the app sends), not looking
  /// for white space between tokens (a tenth of the scan), and again in
  /// full only when they hold a byte below 0x21: without one, the full
  /// read would fail where the compact one did. `keepMembers`: false when
  /// only the variant is wanted (a constant at each call, so the inlined
  /// copy drops the stores).
  @inline(__always)
  private mutating func read(_ bytes: UnsafeRawBufferPointer, keepMembers: Bool) -> Bool {
    if read(bytes, keepMembers: keepMembers, compact: true) { return true }
    guard JSONWordScan.hasByte(below: 0x21, in: bytes) else { return false }
    // Members past `count` are never read: the counts alone start over.
    (count, seen, commandIsMove) = (0, 0, false)
    return read(bytes, keepMembers: keepMembers, compact: false)
  }

  /// One pass over `bytes`; `compact`: true to take no white space between
  /// tokens. Both flags are constants at each call, so each inlined copy
  /// keeps only its own steps.
  @inline(__always)
  private mutating func read(_ bytes: UnsafeRawBufferPointer, keepMembers: Bool, compact: Bool) -> Bool {
    guard bytes.count <= RiderSchema.robotReadLimit,
      let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    else { return false }
    let end = bytes.count
    var index = 0
    let speedRange = RiderSchema.speedRange
    Self.skipSpace(base, &index, end, compact: compact)
    guard Self.take(UInt8(ascii: "{"), base, &index, end) else { return false }
    while true {
      Self.skipSpace(base, &index, end, compact: compact)
      guard Self.take(UInt8(ascii: "\""), base, &index, end), let key = Self.key(base, &index, end) else {
        return false
      }
      Self.skipSpace(base, &index, end, compact: compact)
      guard Self.take(UInt8(ascii: ":"), base, &index, end) else { return false }
      Self.skipSpace(base, &index, end, compact: compact)
      let start = index
      var number = 0.0
      var isInteger = true
      var verbatim = false
      if key == .command {
        guard let isMove = Self.commandWord(base, &index, end) else { return false }
        commandIsMove = isMove
      } else if !keepMembers, let digits = JSONNumber.digitCounts(base, &index, end),
        digits.whole + digits.fraction <= 15, key == .timestamp || digits.whole <= 2
      {
        // Counting only: with at most 15 digits and no exponent the fast
        // path reads it exactly, and under 100 in magnitude it is in range,
        // so its value is not needed.
      } else {
        index = start
        guard let (value, integral) = JSONNumber.scan(base, &index, end) else { return false }
        number = value
        isInteger = integral
        if key != .timestamp, !speedRange.contains(number) { return false }
        if keepMembers {
          verbatim = JSONNumber.isWritersForm(base, start, index, value: value, isInteger: integral)
        }
      }
      let bit: UInt8 = 1 << key.rawValue
      guard seen & bit == 0 else { return false }
      seen |= bit
      if keepMembers {
        guard
          append(
            Member(key: key, number: number, isInteger: isInteger, range: start..<index, verbatim: verbatim))
        else {
          return false
        }
      }
      Self.skipSpace(base, &index, end, compact: compact)
      if Self.take(UInt8(ascii: ","), base, &index, end) { continue }
      guard Self.take(UInt8(ascii: "}"), base, &index, end) else { return false }
      break
    }
    Self.skipSpace(base, &index, end, compact: compact)
    return index == end && (seen == Self.driveKeys || seen == Self.moveKeys)
  }

  // Static, with `index` passed inout: nested functions capturing the
  // local `index` made each access a dynamic exclusivity check.
  @inline(__always)
  private static func skipSpace(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int, compact: Bool) {
    if compact { return }
    while index < end {
      switch base[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"): index += 1
      default: return
      }
    }
  }

  @inline(__always)
  private static func take(_ byte: UInt8, _ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int)
    -> Bool
  {
    guard index < end, base[index] == byte else { return false }
    index += 1
    return true
  }

  /// The key after an opening quote, when it is one of the six known ones,
  /// written without escapes; `index` ends after its closing quote. A key
  /// is compared with its closing quote as a few whole words of memory (the
  /// constants are the little-endian ASCII of the text in the comment).
  @inline(__always)
  private static func key(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int) -> Key? {
    let start = index
    let available = end - start
    guard available >= 5 else { return nil }
    let raw = UnsafeRawPointer(base + start)
    @inline(__always) func word<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
      T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
    let key: Key
    let length: Int
    switch base[start] {
    case UInt8(ascii: "l"):  // left"
      guard available >= 5, word(at: 0, as: UInt32.self) == 0x7466656C && word(at: 4, as: UInt8.self) == 0x22
      else { return nil }
      (key, length) = (.left, 5)
    case UInt8(ascii: "r"):  // right"
      guard available >= 6,
        word(at: 0, as: UInt32.self) == 0x68676972 && word(at: 4, as: UInt16.self) == 0x2274
      else { return nil }
      (key, length) = (.right, 6)
    case UInt8(ascii: "s"):  // speed"
      guard available >= 6,
        word(at: 0, as: UInt32.self) == 0x65657073 && word(at: 4, as: UInt16.self) == 0x2264
      else { return nil }
      (key, length) = (.speed, 6)
    case UInt8(ascii: "c"):  // command"
      guard available >= 8, word(at: 0, as: UInt64.self) == 0x22646E616D6D6F63 else { return nil }
      (key, length) = (.command, 8)
    case UInt8(ascii: "t"):  // timestamp"
      guard available >= 10,
        word(at: 0, as: UInt64.self) == 0x6D617473656D6974 && word(at: 8, as: UInt16.self) == 0x2270
      else { return nil }
      (key, length) = (.timestamp, 10)
    case UInt8(ascii: "d"):  // direction"
      guard available >= 10,
        word(at: 0, as: UInt64.self) == 0x6F69746365726964 && word(at: 8, as: UInt16.self) == 0x226E
      else { return nil }
      (key, length) = (.direction, 10)
    default: return nil
    }
    index = start + length
    return key
  }

  /// `"move"` (true) or `"stop"` (false).
  @inline(__always)
  private static func commandWord(_ base: UnsafePointer<UInt8>, _ index: inout Int, _ end: Int) -> Bool? {
    guard end - index >= 6, base[index] == UInt8(ascii: "\""), base[index + 5] == UInt8(ascii: "\"")
    else { return nil }
    let word = UnsafeRawPointer(base + index + 1).loadUnaligned(as: UInt32.self)
    index += 6
    if word == UInt32(littleEndian: 0x6576_6F6D) { return true }  // "move"
    if word == UInt32(littleEndian: 0x706F_7473) { return false }  // "stop"
    return nil
  }
}

extension RiderCleanCommand {
  /// The message name and fields, flat: what `decode` returns for the same
  /// bytes (`decoded()` builds its tree from these).
  func write(into fields: inout FlatFields) {
    fields.removeAll()
    fields.message = isMove ? "move" : "drive"
    for index in 0..<count {
      let member = member(index)
      let value: FlatFields.Value
      // As JSONNode.fieldValue: integral numbers below 2^53-ish are integers.
      if member.isInteger, member.number.magnitude < 9.0e15 {
        value = .integer(Int64(member.number))
      } else {
        value = .number(member.number)
      }
      let range = member.range
      let verbatim = member.verbatim
      switch member.key {
      case .left: fields.append(FlatFields.Field("left", value, unit: "%", range: range, verbatim: verbatim))
      case .right:
        fields.append(FlatFields.Field("right", value, unit: "%", range: range, verbatim: verbatim))
      case .timestamp:
        fields.append(FlatFields.Field("timestamp", value, unit: "s", range: range, verbatim: verbatim))
      case .command:
        fields.append(FlatFields.Field("command", .text(commandIsMove ? "move" : "stop"), range: range))
      case .speed:
        fields.append(FlatFields.Field("speed", value, unit: "%", range: range, verbatim: verbatim))
      case .direction: fields.append(FlatFields.Field("direction", value, range: range, verbatim: verbatim))
      }
    }
  }

  /// The message, fields and (empty) diagnostics the general decoder gives
  /// for the same bytes.
  func decoded() -> Decoded<RiderMessage> {
    var fields = FlatFields()
    write(into: &fields)
    if isMove {
      let message = RiderMessage.move(
        RiderMove(
          command: commandIsMove ? RiderMoveCommand.move : RiderMoveCommand.stop, speed: number(.speed),
          direction: number(.direction), timestamp: number(.timestamp)))
      return Decoded(message: message, messageName: "move", fields: fields.nodes)
    }
    let message = RiderMessage.drive(
      RiderDrive(left: number(.left), right: number(.right), timestamp: number(.timestamp)))
    return Decoded(message: message, messageName: "drive", fields: fields.nodes)
  }
}
