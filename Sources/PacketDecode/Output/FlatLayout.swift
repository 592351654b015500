import PacketKit

/// The names and groups of a flat message's fields. Names are the codecs'
/// static strings, so two messages whose fields have names at the same
/// addresses (with the same lengths and groups) are laid out alike: what
/// depends on the layout alone (a summary line's key fields, the constant
/// text of an ndjson record) is worked out once per layout.
struct FlatLayout {
  private let names: [(address: UnsafeRawPointer, length: Int, members: Int?)]

  package init(_ fields: UnsafeBufferPointer<FlatFields.Field>) {
    names = fields.map { (UnsafeRawPointer($0.name.utf8Start), $0.name.utf8CodeUnitCount, $0.members) }
  }

  /// Whether two names are one literal: the same address and length.
  package static func same(_ left: StaticString, _ right: StaticString) -> Bool {
    left.utf8Start == right.utf8Start && left.utf8CodeUnitCount == right.utf8CodeUnitCount
  }

  /// Whether `fields` are named and grouped as this layout.
  package func matches(_ fields: UnsafeBufferPointer<FlatFields.Field>) -> Bool {
    guard names.count == fields.count else { return false }
    for index in fields.indices {
      let name = fields[index].name
      guard names[index].address == UnsafeRawPointer(name.utf8Start),
        names[index].length == name.utf8CodeUnitCount,
        names[index].members == fields[index].members
      else { return false }
    }
    return true
  }
}
