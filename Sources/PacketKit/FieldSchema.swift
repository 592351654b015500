/// The description of one field of a message kind. One description drives
/// the dissection display, `craft` flags and help, range validation and
/// random generation of valid messages.
///
/// A class, and immutable: a codec's schemas are made once and read on
/// every message crafted, validated or generated. As a struct of six
/// reference-counted fields, each use of a codec's `static let` schema
/// copied all of it out (the fuzzer's Rallie round trips copied ten schemas
/// per message); a reference is one retain.
public final class FieldSchema: Sendable {
  public enum Kind: Sendable {
    case integer
    case number
    case bool
    case string
    case enumeration([EnumCase])
    /// Raw bytes given on the command line as hex.
    case bytes
    /// A path the CLI reads; the codec receives `.bytes`.
    case file
  }

  public struct EnumCase: Sendable, Hashable {
    /// The name in docs/protocols.md (`ARMED`, `DEADMAN_TIMEOUT`, `start`).
    public var name: String
    public var raw: Int64
    public init(_ name: String, _ raw: Int64) {
      self.name = name
      self.raw = raw
    }
    /// The spelling accepted on the command line: lower case, `-` for `_`.
    public var flagSpelling: String { String(name.lowercased().map { $0 == "_" ? "-" : $0 }) }
  }

  public enum Role: Sendable {
    /// A field of the message on the wire.
    case field
    /// An input to `craft` that is not itself on the wire (a secret, a
    /// joystick position, a checksum variant).
    case craftParameter
  }

  /// What a field's value holds when it is a file's bytes (a camera
  /// frame's JPEG), so that tools can save it without knowing the codec
  /// (`decode --export-jpeg`), as tshark's `--export-objects` does.
  public struct Content: Sendable {
    public enum Encoding: Sendable {
      /// The field's dissection value is the bytes themselves (`.bytes`).
      case raw
      /// The field's dissection value is text: the bytes in base64.
      case base64
      /// The dissection shows something else (a size and the first bytes):
      /// `extract` gets the bytes from the message's payload.
      case extracted(@Sendable ([UInt8]) -> [UInt8]?)
    }

    /// The IANA media type (`image/jpeg`).
    public var mediaType: String
    /// The usual file name extension, without the dot (`jpg`).
    public var fileExtension: String
    public var encoding: Encoding
    /// A field of the same message whose value names the object (a frame's
    /// `frameId`); nil when nothing does.
    public var nameField: String?

    public init(mediaType: String, fileExtension: String, encoding: Encoding, nameField: String? = nil) {
      self.mediaType = mediaType
      self.fileExtension = fileExtension
      self.encoding = encoding
      self.nameField = nameField
    }

    /// A JPEG image; `encoding` says how to get its bytes.
    public static func jpeg(_ encoding: Encoding, namedBy field: String?) -> Content {
      Content(mediaType: "image/jpeg", fileExtension: "jpg", encoding: encoding, nameField: field)
    }
  }

  /// The protocol's name for the field (`pulse_us`, `upper_wheel`, `deviceId`).
  public let name: String
  /// The same name as the literal it was written as, for a codec's fast
  /// path (`FlatFields` names are static); nil for a name made at run time
  /// (a spec file's).
  public let staticName: StaticString?
  /// The `craft` flag without dashes (`us`, `upper`, `device-id`).
  public let flag: String
  public let kind: Kind
  public let unit: FieldUnit?
  /// The documented range; values outside it are refused by `craft` unless
  /// `--force`, and decode with a warning.
  public let range: ClosedRange<Double>?
  /// nil means the field is required when crafting.
  public let defaultValue: FieldValue?
  /// Shown as the default in help when the real default is computed (e.g. "now").
  public let defaultDescription: String?
  public let help: String
  public let role: Role
  /// For enumerations: each case may be given as its own flag (`--start`).
  public let casesAreFlags: Bool
  /// For text: what the receiver accepts (nil: any text).
  public let textRule: TextRule?
  /// When the value is a file's bytes: which kind (nil: an ordinary value).
  public let content: Content?

  /// The name as a fast path's flat fields carry it: the literal it was
  /// written as ("" for a run-time name, which no fast path has).
  public var flatName: StaticString { staticName ?? "" }

  /// The unit as flat fields carry it ("" when the field has none).
  public var flatUnit: StaticString { unit?.text ?? "" }

  /// A field named by a literal: its name serves the fast path too.
  public convenience init(
    _ name: StaticString, flag: String? = nil, kind: Kind, unit: FieldUnit? = nil,
    range: ClosedRange<Double>? = nil, default defaultValue: FieldValue? = nil,
    defaultDescription: String? = nil, help: String, role: Role = .field,
    casesAreFlags: Bool = false, textRule: TextRule? = nil, content: Content? = nil
  ) {
    self.init(
      name: name.description, staticName: name, flag: flag, kind: kind, unit: unit, range: range,
      default: defaultValue, defaultDescription: defaultDescription, help: help, role: role,
      casesAreFlags: casesAreFlags, textRule: textRule, content: content)
  }

  /// A field whose name is made at run time (a spec file's).
  public convenience init(
    named name: String, flag: String? = nil, kind: Kind, unit: FieldUnit? = nil,
    range: ClosedRange<Double>? = nil, default defaultValue: FieldValue? = nil,
    defaultDescription: String? = nil, help: String, role: Role = .field,
    casesAreFlags: Bool = false, textRule: TextRule? = nil, content: Content? = nil
  ) {
    self.init(
      name: name, staticName: nil, flag: flag, kind: kind, unit: unit, range: range, default: defaultValue,
      defaultDescription: defaultDescription, help: help, role: role, casesAreFlags: casesAreFlags,
      textRule: textRule, content: content)
  }

  private init(
    name: String, staticName: StaticString?, flag: String?, kind: Kind, unit: FieldUnit?,
    range: ClosedRange<Double>?, default defaultValue: FieldValue?, defaultDescription: String?, help: String,
    role: Role, casesAreFlags: Bool, textRule: TextRule?, content: Content?
  ) {
    self.name = name
    self.staticName = staticName
    self.flag = flag ?? String(name.map { $0 == "_" ? "-" : $0 })
    self.kind = kind
    self.unit = unit
    self.range = range
    self.defaultValue = defaultValue
    self.defaultDescription = defaultDescription
    self.help = help
    self.role = role
    self.casesAreFlags = casesAreFlags
    self.textRule = textRule
    self.content = content
  }

  /// "0…100 %" style text for help and errors.
  public var rangeText: String? {
    guard let range else { return nil }
    let low = JSONWriter.formatNumber(range.lowerBound)
    let high = JSONWriter.formatNumber(range.upperBound)
    return "\(low)…\(high)"
  }

  public var enumCases: [EnumCase] {
    if case .enumeration(let cases) = kind { return cases }
    return []
  }

  /// The enum case with this raw value, or nil.
  public func enumCase(raw: Int64) -> EnumCase? {
    enumCases.first { $0.raw == raw }
  }

  /// Checks a numeric value against the documented range.
  public func validate(_ value: FieldValue) throws(EncodeError) {
    guard let range, let number = value.numericValue else { return }
    guard range.contains(number) else {
      throw .outOfRange(name, value.display, allowed: rangeText ?? "", unit: unit)
    }
  }
}
