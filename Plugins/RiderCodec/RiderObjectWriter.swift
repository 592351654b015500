import PacketKit

/// Builds a flat JSON object with JSONWriter, refusing what JSON cannot say.
struct RiderObjectWriter: ~Copyable {
  private var writer = JSONWriter(capacity: 96)
  /// The keys written, searched in order while few (a command has three or
  /// four); past `listLimit`, also hashed in `keySet`.
  private var keys: [String] = []
  private var keySet: Set<String> = []
  private static let listLimit = 16

  init() {
    writer.raw("{")
    keys.reserveCapacity(4)  // a command's keys in one allocation, not three
  }

  private mutating func key(_ name: String) {
    if !keys.isEmpty { writer.raw(",") }
    keys.append(name)
    if keys.count > Self.listLimit {
      if keySet.isEmpty { keySet = Set(keys) } else { keySet.insert(name) }
    }
    writer.string(name)
    writer.raw(":")
  }

  private func wrote(_ name: String) -> Bool {
    keys.count > Self.listLimit ? keySet.contains(name) : keys.contains(name)
  }

  mutating func number(_ name: String, _ value: Double) throws(EncodeError) {
    guard value.isFinite else {
      throw EncodeError(
        code: "not-finite", text: "\(name) must be a finite number, not \(value)", field: name)
    }
    key(name)
    writer.number(value)
  }

  mutating func string(_ name: String, _ value: String) {
    key(name)
    writer.string(value)
  }

  mutating func extras(_ extras: [RiderExtraKey], allowDuplicates: Bool) throws(EncodeError) {
    for extra in extras {
      guard allowDuplicates || !wrote(extra.name) else {
        throw EncodeError(
          code: "duplicate-key", text: "key \(JSONWriter.quoted(extra.name)) would be written twice",
          field: extra.name)
      }
      key(extra.name)
      writer.value(extra.value)
    }
  }

  consuming func finish() -> [UInt8] {
    writer.raw("}")
    return writer.bytes
  }
}
