import PacketKit

/// An expression as a `.ksy` file writes it, with where it is written, so
/// a name it cannot resolve is reported at its line and key.
struct KsyExpression: Sendable {
  var expression: KsExpression
  var text: String
  var line: Int
  var key: String
}

/// Byte order of a type's integers and floats.
enum KsyEndian: Sendable {
  case little, big
  /// Calculated default endianness: chosen per object by a switch.
  case switched(on: KsyExpression, cases: [(match: KsyExpression?, little: Bool)])
}

/// One type of a `.ksy` file: the file's root (named by `meta/id`) or one
/// under `types`. Kept as the file says it; `KsCompiler` resolves it.
final class KsyType: @unchecked Sendable {
  let name: String
  let line: Int
  /// The file it came from (a type of an imported file says so in errors).
  let file: String
  var doc: String = ""
  var endian: KsyEndian?
  /// `be` (the default) or `le`.
  var bitEndianLittle: Bool?
  var encoding: String?
  var params: [KsyParameter] = []
  var seq: [KsyAttribute] = []
  var instances: [KsyAttribute] = []
  var types: [KsyType] = []
  var enums: [KsyEnum] = []
  /// The type's `-pktbench-…` keys: what it is as a message kind.
  var message = KsyMessageKeys()
  /// Set by the compiler: the type it is nested in.
  weak var parent: KsyType?
  /// The root of a file (its own or an imported one): `_root` inside it is its own.
  var isFileRoot = false
  /// A file root's `meta/imports`, with their lines, and `meta/title`.
  var imports: [(path: String, line: Int)] = []
  var title: String?
  /// The main file's `-pktbench` section: the codec around the format.
  var protocolKeys: KsyProtocolKeys?

  init(name: String, line: Int, file: String) {
    self.name = name
    self.line = line
    self.file = file
  }
}

struct KsyParameter: Sendable {
  var id: String
  var line: Int
  /// `u1` …, `s8`, `f4`, `f8`, `bool`, `str`, `bytes`, `struct`, `io`, `any`, a user type, or an enum.
  var type: String
  var enumName: String?
}

/// `enums/NAME`: values with their identifiers.
struct KsyEnum: Sendable {
  struct Value: Sendable {
    var value: Int64
    var id: String
    /// `-orig-id`: the protocol's own spelling, shown instead of `id`.
    var original: String?
    var doc: String
  }

  var name: String
  var line: Int
  var values: [Value]
}

/// How an attribute is typed: nothing (bytes), a named type (primitive,
/// user type with arguments), or a switch.
enum KsyTypeReference: Sendable {
  case none
  case named(String, line: Int)
  case switched(on: KsyExpression, cases: [(match: KsyExpression?, type: String)], line: Int)
}

enum KsyRepeat: Sendable {
  case none
  case eos
  case expr(KsyExpression)
  case until(KsyExpression)
}

enum KsyProcess: Sendable {
  case xor(KsyExpression)
  case rol(KsyExpression)
  case ror(KsyExpression)
  case zlib
}

/// `valid`: the value must be this, within these bounds, one of these, or
/// make this expression true.
struct KsyValid: Sendable {
  var equal: KsyExpression?
  var min: KsyExpression?
  var max: KsyExpression?
  var anyOf: [KsyExpression] = []
  var expr: KsyExpression?
  var inEnum = false
  var line: Int
}

/// One attribute: a `seq` entry or an instance.
struct KsyAttribute: Sendable {
  var id: String
  var line: Int
  var isInstance: Bool
  var doc: String = ""
  var type: KsyTypeReference = .none
  var size: KsyExpression?
  var sizeEos = false
  var terminator: UInt8?
  var consume = true
  var include = false
  var eosError = true
  var padRight: UInt8?
  var encoding: String?
  var enumName: String?
  var contents: [UInt8]?
  var repeatKind: KsyRepeat = .none
  var condition: KsyExpression?
  var process: KsyProcess?
  var valid: KsyValid?
  /// Instances: where they are read, and from which stream.
  var pos: KsyExpression?
  var io: KsyExpression?
  /// A value instance's expression.
  var value: KsyExpression?
  var keys = KsyFieldKeys()

  var isRepeated: Bool {
    if case .none = repeatKind { return false }
    return true
  }
}

/// A field's `-pktbench-…` keys: how people see it and craft it, and the
/// part it plays (a reserved value, a check, the code of its damage).
struct KsyFieldKeys: Sendable {
  var unit: String?
  var scale: Double?
  var offset: Double?
  var range: ClosedRange<Double>?
  var flag: String?
  var defaultValue: SpecLiteral?
  var casesAreFlags = false
  var hex = false
  /// The decode error's code for this field's damage (a `valid` or
  /// `contents` mismatch, a size past the end), and where it points.
  var error: String?
  var errorAt: KsyExpression?
  /// A value the field normally has: anything else is a warning.
  var expect: SpecLiteral?
  var expectWarning = "unexpected-value"
  var check: KsyCheck?
  /// The message switch's: what a kind it has no case for decodes as.
  var unknown: SpecUnknownMessage?
  var line = 0
}

/// A type's `-pktbench-…` keys, read when it is a message kind.
struct KsyMessageKeys: Sendable {
  var craftNames: [String] = []
  var direction: MessageSchema.Direction = .either
  var rate: SpecRate?
  var probe: Int?
  var sizeMismatch: SpecSizeMismatch?
  /// The fields of a type that is one's own message: none is the default.
  var summary: String?
}
