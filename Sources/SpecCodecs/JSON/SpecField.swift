import PacketKit

/// One key of a JSON protocol's message, as the `-pktbench` section says
/// it: its JSON type, the part it plays (a value, or fixed or expected
/// text such as `"type": "set"`), and how people see and craft it.
public struct SpecField: Sendable {
  public var name: String
  /// The spec file's line that defines it.
  public var line: Int
  public var type: SpecJSONType
  public var role: SpecRole
  public var unit: FieldUnit?
  /// The documented range: outside it decodes with a warning, and `craft`
  /// refuses it unless `--force`.
  public var range: ClosedRange<Double>?
  /// Named values (of an integer, or of text).
  public var enumeration: SpecEnum?
  public var help: String
  /// The `craft` flag without dashes; nil: the name with `-` for `_`.
  public var craftFlag: String?
  /// The value `craft` uses when none is given; nil: required.
  public var defaultValue: SpecLiteral?
  /// An enum's cases may be given as flags of their own (`--start`).
  public var casesAreFlags: Bool
  /// The key may be absent.
  public var optional: Bool

  public init(
    name: String, line: Int, type: SpecJSONType, role: SpecRole = .value, unit: FieldUnit? = nil,
    range: ClosedRange<Double>? = nil, enumeration: SpecEnum? = nil, help: String = "",
    craftFlag: String? = nil,
    defaultValue: SpecLiteral? = nil, casesAreFlags: Bool = false, optional: Bool = false
  ) {
    self.name = name
    self.line = line
    self.type = type
    self.role = role
    self.unit = unit
    self.range = range
    self.enumeration = enumeration
    self.help = help
    self.craftFlag = craftFlag
    self.defaultValue = defaultValue
    self.casesAreFlags = casesAreFlags
    self.optional = optional
  }
}

/// JSON value kinds a key may hold.
public enum SpecJSONType: String, Sendable, Equatable {
  case number, integer, string, bool
}

/// The part a key plays.
public enum SpecRole: Sendable {
  /// A value of the message: decoded, and given to `craft`.
  case value
  /// Always this value: anything else is damage with `error` as its code.
  case fixed(SpecLiteral, error: String)
  /// Normally this value: anything else is a warning of code `warning`.
  case expected(SpecLiteral, warning: String)
}

/// A literal in the spec: a number, text, bytes, or a boolean.
public enum SpecLiteral: Sendable, Equatable {
  case integer(Int64)
  case number(Double)
  case text(String)
  case bytes([UInt8])
  case bool(Bool)

  /// As texts show it.
  var described: String {
    switch self {
    case .integer(let number): String(number)
    case .number(let number): JSONWriter.formatNumber(number)
    case .text(let text): "'\(text)'"
    case .bytes(let bytes): Hex.spaced(bytes)
    case .bool(let flag): flag ? "true" : "false"
    }
  }
}
