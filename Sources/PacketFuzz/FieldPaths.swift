/// The distinct field paths (`telemetry.header.msg_type`) and parser event
/// names a target's inputs have shown: a coverage signal, counted, at most
/// `limit` of them (parsers name things after the bytes they saw).
///
/// A path is held as the 64-bit FNV-1a hash of its UTF-8, in an
/// open-addressed table, so a decode's paths are checked without building
/// them: the strings (`"\(prefix).\(name)"` per node, and a set of them)
/// cost more than a binary frame's decode. Two paths share a hash with
/// odds of about 4096² / 2⁶⁵ per run; the count would then be one short.
public struct FieldPaths: Sendable {
  public static let limit = 4096

  /// The hash of the empty path, to continue from.
  public static let emptyPath: UInt64 = 0xCBF2_9CE4_8422_2325
  private static let prime: UInt64 = 0x0000_0100_0000_01B3

  /// Hashes, 0 for an empty slot; twice `limit` slots, made on first use.
  private var slots: [UInt64] = []
  public private(set) var count = 0

  public init() {}

  /// `path`'s hash continued with `text`'s UTF-8.
  @inline(__always)
  public static func hash(_ path: UInt64, appending text: String) -> UInt64 {
    var hash = path
    let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
    }
    if done == nil {
      for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* prime }
    }
    return hash
  }

  /// `path`'s hash continued with one byte (a separator).
  @inline(__always)
  public static func hash(_ path: UInt64, appending byte: UInt8) -> UInt64 {
    (path ^ UInt64(byte)) &* prime
  }

  /// Adds the path with this hash; true when it is new and there was room.
  @discardableResult
  public mutating func insert(hash: UInt64) -> Bool {
    guard count < Self.limit else { return false }
    if slots.isEmpty { slots = Array(repeating: 0, count: 2 * Self.limit) }
    let key = hash == 0 ? 1 : hash
    let mask = slots.count - 1
    var index = Int(truncatingIfNeeded: key ^ key >> 32) & mask
    while true {
      let slot = slots[index]
      if slot == key { return false }
      if slot == 0 {
        slots[index] = key
        count += 1
        return true
      }
      index = (index + 1) & mask
    }
  }

  /// Adds every path of `other` (another worker's), up to `limit`.
  public mutating func formUnion(_ other: FieldPaths) {
    for hash in other.slots where hash != 0 { insert(hash: hash) }
  }

  /// Adds `path`; true when it is new and there was room.
  @discardableResult
  public mutating func insert(_ path: String) -> Bool {
    insert(hash: Self.hash(Self.emptyPath, appending: path))
  }
}
