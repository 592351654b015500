/// Writes JSON text into a byte buffer: canonical encodings of the JSON
/// protocols and pktbench's own JSON output.
public struct JSONWriter: Sendable {
  public var bytes: [UInt8] = []

  public init(capacity: Int = 256) {
    bytes.reserveCapacity(capacity)
  }

  public mutating func raw(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  public mutating func raw(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  public mutating func string(_ text: String) {
    JSONWriter.appendQuoted(text, to: &bytes)
  }

  public mutating func number(_ value: Double) {
    raw(JSONWriter.formatNumber(value))
  }

  public mutating func integer<T: BinaryInteger>(_ value: T) {
    raw(String(value))
  }

  public mutating func bool(_ value: Bool) {
    value ? raw("true") : raw("false")
  }

  public mutating func null() { raw("null") }

  /// Writes any FieldValue; enumerations as their names, bytes as hex.
  public mutating func value(_ value: FieldValue) {
    switch value {
    case .integer(let v): integer(v)
    case .unsigned(let v): integer(v)
    case .number(let v): v.isFinite ? number(v) : null()
    case .bool(let b): bool(b)
    case .string(let s): string(s)
    case .enumeration(let name, _): string(name)
    case .bytes(let b): string(Hex.compact(b))
    case .array(let items):
      bytes.append(UInt8(ascii: "["))
      for (index, item) in items.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        self.value(item)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        string(member.key)
        bytes.append(UInt8(ascii: ":"))
        self.value(member.value)
      }
      bytes.append(UInt8(ascii: "}"))
    case .null: null()
    }
  }

  public var text: String { String(decoding: bytes, as: UTF8.self) }

  /// Shortest text that reads back as the same Double; whole numbers
  /// without a fraction (`50`, not `50.0`), as JSONEncoder writes them.
  public static func formatNumber(_ value: Double) -> String {
    guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity") }
    if value == value.rounded(), value.magnitude < 1e15 {
      if value == 0 { return "0" }
      return String(Int64(value))
    }
    return value.description
  }

  /// `"text"` with JSON escapes.
  public static func quoted(_ text: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 2)
    appendQuoted(text, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0..<0x20:
        out.append(contentsOf: Array("\\u00".utf8))
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0F)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
