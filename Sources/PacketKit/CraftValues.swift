/// The values a user gave to `craft` (or a generator produced), by field
/// name, after defaults were applied. Codecs read them by field name.
///
/// A message has a dozen fields at most, so they are a `NameList`: the
/// fuzzer builds a set of values and reads it back for every generated
/// message.
public struct CraftValues: Sendable {
  private var entries: NameList<FieldValue>
  /// Skip range validation: `--force` crafts out-of-range frames on purpose.
  public var force: Bool
  /// Write a wrong check byte (`--bad-check`), for codecs that have one.
  public var badCheck: Bool

  public init(_ values: [String: FieldValue] = [:], force: Bool = false, badCheck: Bool = false) {
    entries = NameList(capacity: values.count)
    for (name, value) in values { entries[name] = value }
    self.force = force
    self.badCheck = badCheck
  }

  /// No values, and no range checks: how the fuzzer's self-check encodes
  /// a decoded message again (made once, not per decoded input).
  public static let forced = CraftValues(force: true)

  /// No values yet, with room for `capacity` without growing.
  public init(capacity: Int) {
    entries = NameList(capacity: capacity)
    force = false
    badCheck = false
  }

  public subscript(name: String) -> FieldValue? {
    get { entries[name] }
    set { entries[name] = newValue }
  }

  public func has(_ name: String) -> Bool { self[name] != nil }

  public func required(_ name: String) throws(EncodeError) -> FieldValue {
    guard let value = self[name] else {
      throw EncodeError(code: "missing-field", text: "\(name) is required", field: name)
    }
    return value
  }

  public func number(_ name: String) throws(EncodeError) -> Double {
    try Self.number(required(name), named: name)
  }

  /// An integer field; fractional values are refused.
  public func integer(_ name: String) throws(EncodeError) -> Int64 {
    try Self.integer(required(name), named: name)
  }

  /// `value` read as a number, for the field `name` (which the error names).
  /// Codecs that take a value from elsewhere (a schema default) read it
  /// here, without building a one-entry CraftValues.
  public static func number(_ value: FieldValue, named name: String) throws(EncodeError) -> Double {
    guard let number = value.numericValue else {
      throw EncodeError(
        code: "wrong-type", text: "\(name) must be a number, not \(value.display)", field: name)
    }
    return number
  }

  /// `value` read as a whole number, for the field `name`; fractional
  /// values are refused.
  public static func integer(_ value: FieldValue, named name: String) throws(EncodeError) -> Int64 {
    let number = try number(value, named: name)
    guard number.rounded() == number, let exact = Int64(exactly: number) else {
      throw EncodeError(
        code: "wrong-type",
        text: "\(name) must be a whole number, not \(JSONWriter.formatNumber(number))",
        field: name)
    }
    return exact
  }

  public func string(_ name: String) throws(EncodeError) -> String {
    let value = try required(name)
    guard let string = value.stringValue else {
      throw EncodeError(
        code: "wrong-type", text: "\(name) must be text, not \(value.display)", field: name)
    }
    return string
  }

  public func bool(_ name: String) throws(EncodeError) -> Bool {
    let value = try required(name)
    guard let bool = value.boolValue else {
      throw EncodeError(
        code: "wrong-type", text: "\(name) must be true or false, not \(value.display)", field: name
      )
    }
    return bool
  }

  public func bytes(_ name: String) throws(EncodeError) -> [UInt8] {
    let value = try required(name)
    guard case .bytes(let bytes) = value else {
      throw EncodeError(code: "wrong-type", text: "\(name) must be bytes", field: name)
    }
    return bytes
  }
}
