import PacketKit

/// A static type of the expression language, as the compiler infers it.
indirect enum KsType: Sendable, Equatable {
  case integer
  case float
  case bool
  case bytes
  case string
  /// An integer read with an enum (by index in `KsPlan.enums`).
  case enumeration(Int)
  /// An object of one user type (by index in `KsPlan.types`).
  case user(Int)
  /// An object of one of these user types (a switch's cases, a `_parent`
  /// of several types): members are found by name at run time.
  case users([Int])
  case array(KsType)
  case stream
  /// What a switch of mixed cases holds: usable only through `.as<…>`.
  case unknown

  var spelling: String {
    switch self {
    case .integer: "an integer"
    case .float: "a float"
    case .bool: "a boolean"
    case .bytes: "bytes"
    case .string: "a string"
    case .enumeration: "an enum value"
    case .user, .users: "an object"
    case .array(let element): "an array of \(element.spelling)"
    case .stream: "a stream"
    case .unknown: "a value of no one type (use .as<type>)"
    }
  }

  var isNumber: Bool { self == .integer || self == .float }
}

/// A constant of the expression language.
enum KsConstant: Sendable, Equatable {
  case integer(Int64)
  case float(Double)
  case bool(Bool)
  case bytes([UInt8])
  case string([UInt8])
}

/// Byte order of one read: fixed, or the object's (a calculated endian).
enum KsEndianChoice: Sendable, Equatable {
  case little, big, object
}

/// A compiled expression: names resolved to slots, methods to operations.
indirect enum KsCode: Sendable {
  case constant(KsConstant)
  /// Slot `slot` of the current object (an instance is computed on first read).
  case slot(Int)
  /// The current object, its parent, its root.
  case this
  case parent(KsCode)
  case root(KsCode)
  /// Slot `slot` of the object `base` evaluates to.
  case member(KsCode, slot: Int)
  /// A member found by the object's type at run time: slot per type index.
  case dynamicMember(KsCode, name: String, slots: [Int: Int])
  /// `_` (the element just read, or the value being validated) and `_index`.
  case underscore
  case index
  /// `_io` of an object: the stream it was read from.
  case stream(KsCode)
  case streamSize(KsCode)
  case streamPos(KsCode)
  case streamEof(KsCode)
  case negate(KsCode, float: Bool)
  case invert(KsCode)
  case not(KsCode)
  case arithmetic(KsBinary, KsCode, KsCode, float: Bool)
  case concatenate(KsCode, KsCode)
  case compare(KsBinary, KsCode, KsCode, KsType)
  case logical(KsBinary, KsCode, KsCode)
  case ternary(KsCode, KsCode, KsCode)
  case method(KsMethod, KsCode, [KsCode])
  case subscriptArray(KsCode, KsCode)
  case subscriptBytes(KsCode, KsCode)
  /// `.as<T>`: the object, checked to be of one of these types.
  case cast(KsCode, [Int])
  case arrayLiteral([KsCode])
  /// An integer made a float (ternaries and arithmetic that mix them).
  case toFloat(KsCode)
}

enum KsMethod: Sendable, Equatable {
  case integerToString, floatToInteger, boolToInteger, stringToInteger, stringToIntegerRadix
  case stringLength, stringReverse, substring
  case bytesLength, bytesToString(String)
  case arraySize, first, last, min, max
  case bytesFirst, bytesLast, bytesMin, bytesMax
}

/// How many bytes a field takes, and what is done to them.
struct KsSizePlan: Sendable {
  enum Kind: Sendable {
    case expression(KsCode)
    case eos
    /// Up to a terminator (no size given).
    case terminated
  }

  var kind: Kind
  /// With `size`: cut at the first terminator inside; alone: read up to it.
  var terminator: UInt8?
  var include = false
  var consume = true
  var eosError = true
  var padRight: UInt8?
  var process: KsProcessPlan?
  /// The size expression's attribute, when it is one (`header.payload_len`):
  /// where a size error points.
  var lengthPath: KsCode?
}

enum KsProcessPlan: Sendable {
  case xor(KsCode)
  case rol(KsCode)
  case ror(KsCode)
  case zlib
}

/// How one element of an attribute is read.
indirect enum KsRead: Sendable {
  case integer(bytes: Int, signed: Bool, endian: KsEndianChoice)
  case bits(count: Int, little: Bool)
  case float(bytes: Int, endian: KsEndianChoice)
  case contents([UInt8])
  case bytes(KsSizePlan)
  case string(KsSizePlan, encoding: String)
  /// A user type: in its own substream when sized, else in the current one.
  case user(type: Int, arguments: [KsCode], size: KsSizePlan?)
  /// The first case whose value equals `on`'s; `fallback` (`_`) else; with
  /// a size and no case, the bytes.
  case switched(
    on: KsCode, onType: KsType, cases: [(match: KsConstant, read: KsRead)], fallback: KsRead?,
    size: KsSizePlan?)
  /// A value instance.
  case value(KsCode)
}

extension KsRead {
  /// The size plan an attribute's bytes are taken by, when it has one.
  var size: KsSizePlan? {
    switch self {
    case .bytes(let size), .string(let size, _): return size
    case .user(_, _, let size), .switched(_, _, _, _, let size): return size
    default: return nil
    }
  }
}

enum KsRepeatPlan: Sendable {
  case none
  case eos
  case expression(KsCode)
  case until(KsCode)
}

/// A `valid` key compiled: each present part checked in turn.
struct KsValidPlan: Sendable {
  var equal: KsCode?
  var min: KsCode?
  var max: KsCode?
  var anyOf: [KsCode] = []
  var expr: KsCode?
  var inEnum: Int?
  var type: KsType
}

/// A check field compiled.
struct KsCheckPlan: Sendable {
  var check: KsyCheck
  /// The attributes bounding what it covers, found from the check's own
  /// type outwards: how many parents up, and the slot.
  var from: (up: Int, slot: Int)?
  var through: (up: Int, slot: Int)?
  var extra: KsCode?
  var width: Int
  var little: Bool
}

/// One attribute of a type, compiled. A class: the interpreter reads it
/// per field per frame, and a reference is one retain where a struct of
/// strings and expressions was copied whole. Its properties are set while
/// it is compiled and never after.
final class KsAttributePlan: @unchecked Sendable {
  let id: String
  let slot: Int
  let line: Int
  let isInstance: Bool
  let doc: String
  let condition: KsCode?
  let repeatKind: KsRepeatPlan
  let read: KsRead
  let pos: KsCode?
  let io: KsCode?
  let valid: KsValidPlan?
  /// The element's type (the attribute's is an array of it when repeated).
  let type: KsType
  var enumeration: Int?
  let keys: KsyFieldKeys
  /// `keys.unit` as a dissection node carries it.
  var unit: FieldUnit?
  var check: KsCheckPlan?
  var errorAt: KsCode?
  /// Whether an element needs judging at all (valid, expected value, enum, range).
  var needsJudging = false

  init(
    id: String, slot: Int, line: Int, isInstance: Bool, doc: String, condition: KsCode?,
    repeatKind: KsRepeatPlan, read: KsRead, pos: KsCode?, io: KsCode?, valid: KsValidPlan?, type: KsType,
    enumeration: Int?, keys: KsyFieldKeys
  ) {
    self.id = id
    self.slot = slot
    self.line = line
    self.isInstance = isInstance
    self.doc = doc
    self.condition = condition
    self.repeatKind = repeatKind
    self.read = read
    self.pos = pos
    self.io = io
    self.valid = valid
    self.type = type
    self.enumeration = enumeration
    self.keys = keys
  }

  var isRepeated: Bool {
    if case .none = repeatKind { return false }
    return true
  }
}

enum KsEndianPlan: Sendable {
  case fixed(little: Bool)
  case switched(on: KsCode, cases: [(match: KsConstant, little: Bool)], fallback: Bool?)
  /// Nested in a type of calculated endian: the creating object's.
  case inherited
  /// No endianness said: a type that reads no multi-byte number.
  case none
}

/// One type, compiled: its slots are its parameters, then its seq, then
/// its instances. A class, read per object per frame (see `KsAttributePlan`).
final class KsTypePlan: Sendable {
  let name: String
  /// `outer::inner`, for messages.
  let path: String
  let line: Int
  let doc: String
  let parameters: [(id: String, type: KsType)]
  let seq: [KsAttributePlan]
  let instances: [KsAttributePlan]
  let endian: KsEndianPlan
  let isFileRoot: Bool
  let message: KsyMessageKeys
  let slotCount: Int

  init(
    name: String, path: String, line: Int, doc: String, parameters: [(id: String, type: KsType)],
    seq: [KsAttributePlan], instances: [KsAttributePlan], endian: KsEndianPlan, isFileRoot: Bool,
    message: KsyMessageKeys
  ) {
    self.name = name
    self.path = path
    self.line = line
    self.doc = doc
    self.parameters = parameters
    self.seq = seq
    self.instances = instances
    self.endian = endian
    self.isFileRoot = isFileRoot
    self.message = message
    slotCount = parameters.count + seq.count + instances.count
  }

  func attribute(slot: Int) -> KsAttributePlan? {
    let index = slot - parameters.count
    if index >= 0, index < seq.count { return seq[index] }
    let instance = index - seq.count
    if instance >= 0, instance < instances.count { return instances[instance] }
    return nil
  }

  func slot(named name: String) -> Int? {
    if let index = parameters.firstIndex(where: { $0.id == name }) { return index }
    if let index = seq.firstIndex(where: { $0.id == name }) { return parameters.count + index }
    if let index = instances.firstIndex(where: { $0.id == name }) {
      return parameters.count + seq.count + index
    }
    return nil
  }
}

struct KsEnumPlan: Sendable {
  var name: String
  var values: [(value: Int64, id: String, shown: String, doc: String)]
  /// Shown names of 0…255, nil where none (built once: hot).
  var small: [String?]

  func shown(_ value: Int64) -> String? {
    if value >= 0, value < 256 { return small[Int(value)] }
    return values.first { $0.value == value }?.shown
  }
}
