import PacketKit

/// Builds a flat JSON object with JSONWriter, refusing what JSON cannot say.
struct RiderObjectWriter: ~Copyable {
  private var writer = JSONWriter(capacity: 96)
  private var keys: Set<String> = []

  init() { writer.raw("{") }

  private mutating func key(_ name: String) {
    if !keys.isEmpty { writer.raw(",") }
    keys.insert(name)
    writer.string(name)
    writer.raw(":")
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
      guard allowDuplicates || !keys.contains(extra.name) else {
        throw EncodeError(
          code: "duplicate-key", text: "key \(JSONWriter.quoted(extra.name)) would be written twice",
          field: extra.name)
      }
      key(extra.name)
      writer.value(extra.value)
    }
  }

  func finish() -> [UInt8] { writer.bytes + [UInt8(ascii: "}")] }
}
