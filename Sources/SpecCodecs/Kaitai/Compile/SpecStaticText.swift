import Synchronization

/// Text from a spec (a unit, a field or message name) as a `StaticString`,
/// which dissection nodes and flat fields hold without reference counting
/// (`FieldUnit`, `FlatFields`). Each distinct text is copied once into
/// memory that is never freed, and the same text gives the same string
/// again, so what a process holds grows only with the distinct names of
/// the specs it loads.
enum SpecStaticText {
  private static let table = Mutex<[String: StaticString]>([:])

  /// The layout of `StaticString`: a pointer, a byte count, and flags
  /// (bit 0 clear: a pointer; bit 1: the bytes are ASCII).
  private struct Layout {
    var start: UInt
    var count: UInt
    var flags: UInt8
  }

  /// `text` as a static string; nil if this toolchain lays
  /// `StaticString` out otherwise (checked on the first one made).
  static func intern(_ text: String) -> StaticString? {
    guard MemoryLayout<StaticString>.size == MemoryLayout<Layout>.size else { return nil }
    return table.withLock { table in
      if let known = table[text] { return known }
      var bytes = Array(text.utf8)
      bytes.append(0)
      let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
      storage.initialize(from: bytes, count: bytes.count)
      let ascii = text.utf8.allSatisfy { $0 < 0x80 }
      let made = unsafeBitCast(
        Layout(start: UInt(bitPattern: storage), count: UInt(bytes.count - 1), flags: ascii ? 2 : 0),
        to: StaticString.self)
      guard made.hasPointerRepresentation, made.utf8CodeUnitCount == bytes.count - 1, made.description == text
      else { return nil }
      table[text] = made
      return made
    }
  }
}
