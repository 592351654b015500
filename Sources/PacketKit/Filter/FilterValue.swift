/// One value of a field in one record, as the filter reads it: scalars by
/// value, text and bytes borrowed from the record for the duration of one
/// call, so that reading a field copies and allocates nothing.
public enum FilterValue {
  case integer(Int64)
  case unsigned(UInt64)
  case number(Double)
  case boolean(Bool)
  /// UTF-8 text.
  case text(UnsafeRawBufferPointer)
  /// An enumeration's case name (UTF-8) and number.
  case enumeration(name: UnsafeRawBufferPointer, raw: Int64)
  /// Raw bytes; they compare as the lower-case hex that JSON output shows.
  case bytes(UnsafeRawBufferPointer)
  /// A group, object or protocol: it exists, and compares with nothing.
  case present
}

extension FilterValue {
  /// Calls `visit` with `value` as a filter value, and with each element
  /// of an array in turn (an array's elements are a field's occurrences);
  /// returns false when `visit` asked to stop.
  @discardableResult
  public static func visit(_ value: FieldValue, _ visit: (FilterValue) -> Bool) -> Bool {
    switch value {
    case .integer(let v): return visit(.integer(v))
    case .unsigned(let v): return visit(.unsigned(v))
    case .number(let v): return visit(.number(v))
    case .bool(let v): return visit(.boolean(v))
    case .string(let text): return withText(text) { visit(.text($0)) }
    case .enumeration(let name, let raw): return withText(name) { visit(.enumeration(name: $0, raw: raw)) }
    case .bytes(let bytes): return bytes.withUnsafeBytes { visit(.bytes($0)) }
    case .array(let items):
      for item in items where !Self.visit(item, visit) { return false }
      return true
    case .object, .null: return visit(.present)
    }
  }

  /// A flat field's value (a group exists, with no value).
  @inlinable
  public static func visit(_ field: FlatFields.Value, _ visit: (FilterValue) -> Bool) -> Bool {
    switch field {
    case .integer(let v): return visit(.integer(v))
    case .unsigned(let v): return visit(.unsigned(v))
    case .number(let v): return visit(.number(v))
    case .text(let text): return text.withUTF8Buffer { visit(.text(UnsafeRawBufferPointer($0))) }
    case .enumeration(let name, let raw):
      return name.withUTF8Buffer { visit(.enumeration(name: UnsafeRawBufferPointer($0), raw: raw)) }
    case .group: return visit(.present)
    }
  }

  /// `text`'s UTF-8 bytes in place (a native string's storage, or a small
  /// string's copy on the stack): no String is made.
  public static func withText<R>(_ text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
      return result
    }
    var copy = text
    return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
  }
}
