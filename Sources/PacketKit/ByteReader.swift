/// A cursor over untrusted bytes. Every read checks the length first and
/// throws a `DecodeError` naming the offset and what was expected, so a codec
/// never traps on short input.
///
/// It reads from a raw buffer so capture readers can hand a codec the bytes
/// in libpcap's own buffer without copying; a reader must not outlive the
/// `withUnsafeBytes` scope it was made in (values read are copied out).
public struct ByteReader {
  public let bytes: UnsafeRawBufferPointer
  public private(set) var offset: Int

  public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  public var remaining: Int { bytes.count - offset }
  public var isAtEnd: Bool { offset >= bytes.count }

  /// Checks that `count` bytes are available for `field`.
  public func require(_ count: Int, for field: String) throws(DecodeError) {
    guard count >= 0, remaining >= count else {
      let (offset, remaining) = (offset, max(remaining, 0))
      throw DecodeError(code: "truncated", offset: offset) {
        .init(
          "\(field) needs \(Self.bytes(count)) at offset \(offset), but only \(remaining) remain",
          expected: Self.bytes(count), found: Self.bytes(remaining))
      }
    }
  }

  private static func bytes(_ count: Int) -> String {
    count == 1 ? "1 byte" : "\(count) bytes"
  }

  public mutating func readUInt8(_ field: String) throws(DecodeError) -> UInt8 {
    try require(1, for: field)
    let value = bytes[offset]
    offset += 1
    return value
  }

  public mutating func readUInt16LE(_ field: String) throws(DecodeError) -> UInt16 {
    try require(2, for: field)
    let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    offset += 2
    return UInt16(littleEndian: value)
  }

  public mutating func readUInt16BE(_ field: String) throws(DecodeError) -> UInt16 {
    try require(2, for: field)
    let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
    offset += 2
    return UInt16(bigEndian: value)
  }

  public mutating func readUInt32LE(_ field: String) throws(DecodeError) -> UInt32 {
    try require(4, for: field)
    let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    offset += 4
    return UInt32(littleEndian: value)
  }

  public mutating func readUInt32BE(_ field: String) throws(DecodeError) -> UInt32 {
    try require(4, for: field)
    let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    offset += 4
    return UInt32(bigEndian: value)
  }

  public mutating func readBytes(_ count: Int, _ field: String) throws(DecodeError) -> [UInt8] {
    [UInt8](try readView(count, field))
  }

  /// The next `count` bytes as a view of the input, without copying them.
  public mutating func readView(_ count: Int, _ field: String) throws(DecodeError) -> UnsafeRawBufferPointer {
    try require(count, for: field)
    let view = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    offset += count
    return view
  }

  public mutating func skip(_ count: Int, _ field: String) throws(DecodeError) {
    try require(count, for: field)
    offset += count
  }

  /// The byte at `index` without moving, or nil past the end.
  public func peek(at index: Int) -> UInt8? {
    guard index >= 0, index < bytes.count else { return nil }
    return bytes[index]
  }
}
