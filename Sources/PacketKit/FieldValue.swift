/// A decoded or crafted value, independent of any codec. Enumerations keep
/// both their protocol name (`ARMED`) and the raw number on the wire.
public enum FieldValue: Sendable, Hashable {
  case integer(Int64)
  case unsigned(UInt64)
  case number(Double)
  case bool(Bool)
  case string(String)
  case enumeration(name: String, raw: Int64)
  case bytes([UInt8])
  case array([FieldValue])
  case object([Member])
  case null

  public struct Member: Sendable, Hashable {
    public var key: String
    public var value: FieldValue
    public init(_ key: String, _ value: FieldValue) {
      self.key = key
      self.value = value
    }
  }

  /// The value as a Double when it is numeric (integers, numbers, enum raws).
  public var numericValue: Double? {
    switch self {
    case .integer(let v): return Double(v)
    case .unsigned(let v): return Double(v)
    case .number(let v): return v
    case .enumeration(_, let raw): return Double(raw)
    case .bool(let b): return b ? 1 : 0
    default: return nil
    }
  }

  public var stringValue: String? {
    switch self {
    case .string(let s): return s
    case .enumeration(let name, _): return name
    default: return nil
    }
  }

  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  /// A short human rendering, as shown in summary lines and trees. Text
  /// is quoted as JSON and terminal-safe (`TerminalText`): JSON's escapes
  /// leave DEL and the C1 controls raw.
  public var display: String {
    switch self {
    case .integer(let v): return String(v)
    case .unsigned(let v): return String(v)
    case .number(let v): return JSONWriter.formatNumber(v)
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return TerminalText.escaped(JSONWriter.quoted(s))
    case .enumeration(let name, let raw): return "\(TerminalText.escaped(name)) (\(raw))"
    case .bytes(let b):
      return b.count <= 16 ? Hex.spaced(b) : "\(b.count) bytes: \(Hex.spaced(b.prefix(16))) …"
    case .array(let items): return "[\(items.count) item\(items.count == 1 ? "" : "s")]"
    case .object(let members): return "{\(members.count) key\(members.count == 1 ? "" : "s")}"
    case .null: return "null"
    }
  }
}
