import PacketKit

/// Reads the keys of a JSON command object the way the robot's Python does
/// (`json.loads`, then `int()` of the motor values), collecting the
/// dissection in wire order and the diagnostics as it goes.
struct RiderObjectDecoder {
  /// The object's members: key and value nodes of its tape (the tape must
  /// outlive the decoder).
  private let members: [JSONNode.Member]
  /// Where a missing key's node points: the closing brace.
  private let closingBrace: Int
  /// Dissection nodes of the members read so far, by member index. Arrays,
  /// not dictionaries: a command has three or four keys and this runs once
  /// per datagram, so hashing would cost more than it saves.
  private var nodes: [DissectionNode?]
  /// Last index of each key, built only for objects with many keys, so that
  /// lookups stay linear in the input whatever a hostile datagram holds.
  private let lastIndexByKey: [String: Int]?
  private var missingNodes: [DissectionNode] = []
  private(set) var diagnostics: [Diagnostic] = []

  init(members: [JSONNode.Member], objectRange: Range<Int>) {
    self.members = members
    self.closingBrace = max(objectRange.lowerBound, objectRange.upperBound - 1)
    self.nodes = Array(repeating: nil, count: members.count)
    // Repeated keys: counted with a dictionary only when there are many keys.
    var counts: [String: (first: Int, count: Int)] = [:]
    if members.count <= 16 {
      for (index, member) in members.enumerated()
      where !members[..<index].contains(where: { $0.key.sameText(as: member.key) }) {
        let count = members[index...].reduce(0) { $0 + ($1.key.sameText(as: member.key) ? 1 : 0) }
        if count > 1 { counts[member.key.text] = (index, count) }
      }
      lastIndexByKey = nil
    } else {
      var last: [String: Int] = [:]
      for (index, member) in members.enumerated() {
        let key = member.key.text
        counts[key, default: (index, 0)].count += 1
        last[key] = index
      }
      lastIndexByKey = last
    }
    for (key, entry) in counts.sorted(by: { $0.value.first < $1.value.first }) where entry.count > 1 {
      diagnostics.append(
        .warning(
          "duplicate-key",
          "key \(Excerpt.quoted(key)) appears \(entry.count) times; the robot (Python json.loads) uses the last",
          range: members[entry.first].range))
    }
  }

  /// The member that counts for `key`: the last one, because Python's
  /// `json.loads` keeps the last of repeated keys.
  private func effectiveIndex(_ key: String) -> Int? {
    if let lastIndexByKey { return lastIndexByKey[key] }
    return members.lastIndex { $0.key.textEquals(key) }
  }

  /// A motor value (`left`, `right`, `speed`, `direction`). Missing counts
  /// as 0 and a bool as 1/0, as on the robot; any other non-number makes
  /// the robot drop the datagram, so it is a decode error.
  mutating func motorValue(_ key: String, unit: FieldUnit?) throws(DecodeError) -> Double {
    guard let index = effectiveIndex(key), let member = members.element(at: index) else {
      diagnostics.append(
        .warning(
          "missing-key", "no \"\(key)\" key: the robot treats it as 0", range: closingBrace..<closingBrace))
      missingNodes.append(DissectionNode(key, .integer(0), unit: unit, range: closingBrace..<closingBrace))
      return 0
    }
    let value = member.value
    let number: Double
    let shown: FieldValue
    switch (value.number, value.bool) {
    case (let n?, _):
      number = n
      shown = value.fieldValue
    case (_, let b?):
      number = b ? 1 : 0
      shown = .integer(b ? 1 : 0)
      diagnostics.append(
        .warning(
          "bool-as-number",
          "\(key) is \(b) at offset \(value.range.lowerBound); the robot's check passes it "
            + "(a Python bool is an int) and uses \(b ? 1 : 0)",
          range: value.range))
    default:
      let (offset, typeName) = (value.range.lowerBound, value.typeName)
      throw DecodeError(code: "wrong-type", offset: offset, keyPath: key) {
        .init(
          "\(key) at offset \(offset) is \(Self.article(typeName)); "
            + "it must be a number (the robot ignores the datagram)", expected: "number",
          found: typeName)
      }
    }
    if !RiderSchema.speedRange.contains(number) {
      diagnostics.append(
        .warning(
          "out-of-range",
          "\(key) \(JSONWriter.formatNumber(number)) is outside \(RiderSchema.speedRangeText)"
            + "\(unit.map { " \($0)" } ?? ""); the robot clamps it",
          range: value.range))
    }
    nodes[index] = DissectionNode(key, shown, unit: unit, range: value.range)
    return number
  }

  /// `timestamp`: optional; the robot ignores it, so a non-number is only a
  /// warning and stays among the extra keys.
  mutating func timestamp() -> Double? {
    guard let index = effectiveIndex("timestamp"), let member = members.element(at: index) else {
      diagnostics.append(
        .note("missing-timestamp", "no \"timestamp\" key: one-way delay and staleness cannot be measured"))
      return nil
    }
    guard let seconds = member.value.number else {
      diagnostics.append(
        .warning(
          "wrong-type",
          "timestamp at offset \(member.value.range.lowerBound) is \(Self.article(member.value.typeName)), "
            + "not Unix seconds; the robot ignores it",
          range: member.value.range))
      return nil
    }
    nodes[index] = DissectionNode("timestamp", member.value.fieldValue, unit: "s", range: member.value.range)
    return seconds
  }

  /// The `move` variant's command word.
  mutating func command() throws(DecodeError) -> String {
    guard let index = effectiveIndex("command"), let member = members.element(at: index) else {
      throw DecodeError(code: "missing-key", keyPath: "command") { .init("no \"command\" key") }
    }
    guard let word = member.value.string else {
      let (offset, typeName) = (member.value.range.lowerBound, member.value.typeName)
      throw DecodeError(code: "wrong-type", offset: offset, keyPath: "command") {
        .init(
          "command at offset \(offset) is \(Self.article(typeName)); "
            + "it must be \"move\" or \"stop\"", expected: "string", found: typeName)
      }
    }
    if word != RiderMoveCommand.move && word != RiderMoveCommand.stop {
      diagnostics.append(
        .warning(
          "unknown-enum", "command \(Excerpt.quoted(word)) is neither \"move\" nor \"stop\"",
          range: member.value.range))
    }
    nodes[index] = DissectionNode("command", .string(word), range: member.value.range)
    return word
  }

  /// Every member not read as a field, in wire order, except earlier copies
  /// of a repeated key that was read. Names outside `known` get one note.
  mutating func extraKeys(known: Set<String>) -> [RiderExtraKey] {
    var extras: [RiderExtraKey] = []
    var unknownNames: [String] = []
    var firstUnknown: Range<Int>?
    for (index, member) in members.enumerated() where nodes[index] == nil {
      let key = member.key.text
      if let used = effectiveIndex(key), nodes[used] != nil { continue }
      extras.append(RiderExtraKey(key, Self.roundTripValue(member.value.fieldValue)))
      nodes[index] = member.value.dissection(name: key)
      if !known.contains(key) {
        if !unknownNames.contains(key) { unknownNames.append(key) }
        if firstUnknown == nil { firstUnknown = member.range }
      }
    }
    if !unknownNames.isEmpty {
      diagnostics.append(
        .note(
          "unknown-key",
          "unknown key\(unknownNames.count == 1 ? "" : "s") ignored by the robot: "
            // The keys are the sender's: a few, each cut, say enough.
            + unknownNames.prefix(8).map { Excerpt.short($0) }.joined(separator: ", ")
            + (unknownNames.count > 8 ? " and \(unknownNames.count - 8) more" : ""),
          range: firstUnknown))
    }
    return extras
  }

  /// The dissection: members in wire order, then keys the robot defaulted.
  var fields: [DissectionNode] {
    // One array of the final size (compactMap grew one, then `+` made another).
    var fields: [DissectionNode] = []
    fields.reserveCapacity(nodes.count + missingNodes.count)
    for case let node? in nodes { fields.append(node) }
    fields.append(contentsOf: missingNodes)
    return fields
  }

  /// Whole numbers as integers, as they read back after JSONWriter wrote
  /// them, so that decode(encode(m)) == m for extra keys too.
  static func roundTripValue(_ value: FieldValue) -> FieldValue {
    switch value {
    case .number(let n) where n == n.rounded() && n.magnitude < 1e15:
      return .integer(Int64(n))
    case .array(let items): return .array(items.map(roundTripValue))
    case .object(let members): return .object(members.map { .init($0.key, roundTripValue($0.value)) })
    default: return value
    }
  }

  private static func article(_ typeName: String) -> String {
    switch typeName {
    case "null": "null"
    case "array", "object": "an \(typeName)"
    default: "a \(typeName)"
    }
  }
}

extension Array {
  /// The element at `index`, or nil when it is out of bounds.
  func element(at index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
