import PacketKit

/// One field of a message's layout, as the spec states it: what it is on
/// the wire (`type`), what part it plays (`role`), and how people see it
/// (unit, range, names of its values, help).
public struct SpecField: Sendable {
  /// The protocol's name (`pulse_us`): output, the display filter, craft.
  public var name: String
  /// The spec file's line that defines it, for messages about it.
  public var line: Int
  public var type: SpecType
  public var role: SpecRole
  /// As the spec writes it (`µs`, `%`, `mV`): one of the literals a
  /// dissection node can carry (`SpecUnits`), found once at load.
  public var unit: FieldUnit?
  /// The documented range: outside it decodes with a warning, and `craft`
  /// refuses it unless `--force`.
  public var range: ClosedRange<Double>?
  /// Named values of an integer (or JSON text) field.
  public var enumeration: SpecEnum?
  /// Named bits of an integer field: it decodes as a group of yes/no values.
  public var flags: [SpecFlag]
  /// How numbers are shown where the spec has a choice (an unknown enum
  /// value: `unknown(63)` or `unknown(0x3f)`; Wireshark's base).
  public var display: SpecDisplay
  public var help: String
  /// The `craft` flag without dashes; nil: the name with `-` for `_`.
  public var craftFlag: String?
  /// The value `craft` uses when none is given; nil: required.
  public var defaultValue: SpecLiteral?
  /// An enum's cases may be given as flags of their own (`--start`).
  public var casesAreFlags: Bool
  /// The byte offset from the start of the frame, when every frame of its
  /// message has it at the same place (nil after a variable-size field).
  public var offset: Int?
  /// JSON: the key may be absent.
  public var optional: Bool

  public init(
    name: String, line: Int, type: SpecType, role: SpecRole = .value, unit: FieldUnit? = nil,
    range: ClosedRange<Double>? = nil, enumeration: SpecEnum? = nil, flags: [SpecFlag] = [],
    display: SpecDisplay = .decimal, help: String = "", craftFlag: String? = nil,
    defaultValue: SpecLiteral? = nil, casesAreFlags: Bool = false, offset: Int? = nil, optional: Bool = false
  ) {
    self.name = name
    self.line = line
    self.type = type
    self.role = role
    self.unit = unit
    self.range = range
    self.enumeration = enumeration
    self.flags = flags
    self.display = display
    self.help = help
    self.craftFlag = craftFlag
    self.defaultValue = defaultValue
    self.casesAreFlags = casesAreFlags
    self.offset = offset
    self.optional = optional
  }

  /// Bytes on the wire when that does not depend on the message's values.
  public var staticSize: Int? {
    switch type {
    case .integer(let width, _, _), .float(let width, _): return width / 8
    case .bytes(.fixed(let count)), .text(.fixed(let count)): return count
    case .group(let fields):
      var total = 0
      for field in fields {
        guard let size = field.staticSize else { return nil }
        total += size
      }
      return total
    case .repeated(.fixed(let count), let element):
      var total = 0
      for field in element {
        guard let size = field.staticSize else { return nil }
        total += size
      }
      return total * count
    default: return nil
    }
  }

  /// Whether `craft` takes a value for it (others are fixed, computed or kept).
  public var isCrafted: Bool {
    if case .value = role { return true }
    return false
  }
}

/// What a field is on the wire.
public indirect enum SpecType: Sendable {
  /// An integer of `width` bits (8, 16, 24, 32, 64).
  case integer(width: Int, signed: Bool, order: SpecByteOrder)
  /// IEEE 754, `width` 32 or 64.
  case float(width: Int, order: SpecByteOrder)
  /// Raw bytes, shown as hex.
  case bytes(SpecSize)
  /// UTF-8 text.
  case text(SpecSize)
  /// Fields shown together under one name (a header).
  case group([SpecField])
  /// Elements of the same fields, one after another.
  case repeated(SpecCount, element: [SpecField])
  /// A JSON value of this kind (JSON protocols only).
  case json(SpecJSONType)

  /// The name the spec language uses for it, for messages.
  public var spelling: String {
    switch self {
    case .integer(let width, let signed, _): return "\(signed ? "i" : "u")\(width)"
    case .float(let width, _): return "f\(width)"
    case .bytes: return "bytes"
    case .text: return "string"
    case .group: return "group"
    case .repeated: return "repeat"
    case .json(let type): return type.rawValue
    }
  }
}

public enum SpecByteOrder: String, Sendable, Equatable {
  case little, big
}

/// JSON value kinds a key may hold.
public enum SpecJSONType: String, Sendable, Equatable {
  case number, integer, string, bool
}

/// How many bytes a byte string or text takes.
public enum SpecSize: Sendable, Equatable {
  case fixed(Int)
  /// As many as the named length field says.
  case lengthField(String)
  /// Up to the end of the message's body.
  case rest
}

/// How many elements a repeated field has.
public enum SpecCount: Sendable, Equatable {
  case fixed(Int)
  /// As many as the named count field says.
  case countField(String)
  /// Whole elements up to the end of the message's body.
  case rest
}

public enum SpecDisplay: String, Sendable, Equatable {
  case decimal, hex
}

/// The part a field plays.
public enum SpecRole: Sendable {
  /// A value of the message: decoded, and given to `craft`.
  case value
  /// Always this value: anything else is structural damage (magic bytes,
  /// a version the receiver refuses), reported with `error` as its code.
  case fixed(SpecLiteral, error: String)
  /// Normally this value: anything else decodes with a warning of code
  /// `warning` (a reserved byte), and is kept so the frame re-encodes as it came.
  case expected(SpecLiteral, warning: String)
  /// The size in bytes of `target`; more than `max` is structural damage.
  case length(of: SpecLengthTarget, max: Int?, error: String)
  /// The number of elements of the named repeated field.
  case count(of: String, max: Int?, error: String)
  /// The value that tells the message's kind (`discriminator:` names it).
  case discriminator
  /// A check over other bytes of the frame.
  case check(SpecCheck)
}

/// What a length field measures.
public enum SpecLengthTarget: Sendable, Equatable {
  /// The whole frame, header and trailer included.
  case frame
  /// The message's own fields: everything between header and trailer.
  case body
  /// A byte string or text field of the message.
  case field(String)
}

/// A literal in the spec: a number, text, or bytes (hex).
public enum SpecLiteral: Sendable, Equatable {
  case integer(Int64)
  case number(Double)
  case text(String)
  case bytes([UInt8])
  case bool(Bool)
}
