/// Hex text in and out.
public enum Hex {
  /// `01 03 02 00 DC 05`
  @inlinable
  public static func spaced<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    inMemory(bytes) { spaced($0) }
  }

  /// `text` on the bytes where they lie, or on a contiguous copy.
  @inlinable
  static func inMemory<C: Collection>(_ bytes: C, _ text: (UnsafeRawBufferPointer) -> String) -> String
  where C.Element == UInt8 {
    bytes.withContiguousStorageIfAvailable { text(UnsafeRawBufferPointer($0)) }
      ?? Array(bytes).withUnsafeBytes(text)
  }

  /// `spaced` for bytes in memory: the text is written into the string's
  /// own storage, two digits and a space per byte (decode errors show the
  /// bytes they found, so this runs for every refused fuzz input).
  public static func spaced(_ bytes: UnsafeRawBufferPointer) -> String {
    guard !bytes.isEmpty else { return "" }
    return String(unsafeUninitializedCapacity: bytes.count * 3 - 1) { out in
      for index in bytes.indices {
        let byte = bytes[index]
        if index > 0 { out[index * 3 - 1] = UInt8(ascii: " ") }
        out[index * 3] = upper(byte >> 4)
        out[index * 3 + 1] = upper(byte & 0x0F)
      }
      return bytes.count * 3 - 1
    }
  }

  /// `010302` (lower case, as xxd -p writes it).
  @inlinable
  public static func compact<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    inMemory(bytes) { compact($0) }
  }

  /// `compact` for bytes in memory.
  public static func compact(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { out in
      for index in bytes.indices {
        let byte = bytes[index]
        out[index * 2] = lowerDigit(byte >> 4)
        out[index * 2 + 1] = lowerDigit(byte & 0x0F)
      }
      return bytes.count * 2
    }
  }

  private static func upper(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
  }

  /// A nibble's lower-case hex digit (also JSON's `\u00XX` escapes).
  static func lowerDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
  }

  public struct ParseError: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// Parses hex with optional spaces, colons, commas and `0x` prefixes:
  /// `01 03 02 00`, `01:03`, `0x01,0x03`, `5AA583`.
  public static func parse(_ text: String) throws(ParseError) -> [UInt8] {
    var cleaned: [UInt8] = []
    let utf8 = Array(text.utf8)
    var index = 0
    while index < utf8.count {
      let c = utf8[index]
      if c == UInt8(ascii: "0"), index + 1 < utf8.count,
        utf8[index + 1] == UInt8(ascii: "x") || utf8[index + 1] == UInt8(ascii: "X")
      {
        index += 2
        continue
      }
      switch c {
      case UInt8(ascii: " "), UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "-"),
        UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
        index += 1
        continue
      default:
        guard nibble(c) != nil else {
          throw ParseError(
            description:
              "hex text has '\(Character(Unicode.Scalar(c)))' at character \(index + 1); allowed are 0-9, a-f, spaces, ':' and 0x prefixes"
          )
        }
        cleaned.append(c)
        index += 1
      }
    }
    guard cleaned.count % 2 == 0 else {
      throw ParseError(
        description: "hex text has an odd number of digits (\(cleaned.count)); each byte needs two")
    }
    var out: [UInt8] = []
    out.reserveCapacity(cleaned.count / 2)
    var i = 0
    while i < cleaned.count {
      if let high = nibble(cleaned[i]), let low = nibble(cleaned[i + 1]) {
        out.append(high << 4 | low)
      }
      i += 2
    }
    return out
  }

  /// The value of one hex digit (either case), or nil.
  public static func value(of c: UInt8) -> UInt8? { nibble(c) }

  private static func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
