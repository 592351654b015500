import PacketKit

/// An integer expression of a fixed-layout frame, in prefix order: what a
/// `valid`, a message switch or a body's size says with fields, constants,
/// comparisons and `+ - * & | ^`. Booleans are 0 and 1.
enum KsFastOp: Sendable {
  case constant(Int64)
  /// The value of a field, by its index in the frame's values.
  case field(Int)
  /// `_io.size` of the frame, or of the message body.
  case frameSize
  case bodySize
  case not
  case negate
  case binary(KsBinary)
  case ternary
  /// Whether the next operand's value is one its enum names (`program.enumIsKnown`).
  case known(Int)
  /// Whether a field's value, scaled and offset, lies in a range (`-pktbench-range`).
  case shown(field: Int, scale: Double, offset: Double, lower: Double, upper: Double)
}

/// A condition of a clean frame: the common ones said directly, the rest
/// an expression (by index in its region's `expressions`).
enum KsFastCheck: Sendable {
  case compare(KsBinary, field: Int, constant: Int64)
  case known(field: Int, enumeration: Int)
  case shown(field: Int, scale: Double, offset: Double, lower: Double, upper: Double)
  case expression(Int)
}

/// One integer (or fixed bytes, `contents`) at a constant offset from the
/// start of its region: the frame's head, or the message body.
struct KsFastField: Sendable {
  var offset: Int
  var width: Int
  var signed: Bool
  var little: Bool
  var contents: [UInt8]?
  /// For flat fields: its name, how its value shows, its unit.
  var name: StaticString?
  var enumeration: Int?
  var scale: Double?
  var valueOffset: Double?
  var unit: StaticString
}

/// What `cleanFields` writes, in order: a group of the next `count`
/// fields (its range in region offsets), or a field.
enum KsFastFlatItem: Sendable {
  case group(StaticString, count: Int, start: Int, end: Int)
  case field(Int)
}

/// A fixed run of fields, the conditions a clean frame meets on them, and
/// what they write as flat fields (nil: something that cannot be one).
struct KsFastRegion: Sendable {
  var fields: [KsFastField] = []
  var size = 0
  var checks: [KsFastCheck] = []
  var expressions: [[KsFastOp]] = []
  var flat: [KsFastFlatItem]? = []
}

/// A message body: its kind and layout, and whether bytes its fields
/// leave in a sized body are a diagnostic (`-pktbench-size-mismatch`).
struct KsFastBody: Sendable {
  var kind: Int
  var region: KsFastRegion
  var leftoverIsDiagnostic: Bool
}

/// A frame whose layout is fixed once its message kind is known (LegCtrl,
/// a beacon): read without the interpreter for the clean path (`probe`,
/// `cleanKind`, `cleanFields`), where most frames of a capture go. It
/// only ever says "clean, of this kind, with these fields" or "ask the
/// interpreter": a frame it is unsure of is read the slow way, so its
/// answers are the interpreter's (tests hold the two together).
final class KsFastPlan: Sendable {
  /// Immutable, so reading it per frame takes no reference counts and no
  /// exclusivity checks (a class of `var`s paid both on every array).
  let layout: KsFastLayout

  init(_ layout: KsFastLayout) {
    self.layout = layout
  }

  /// A clean frame's kind (its index in the program's kinds); nil: ask the interpreter.
  func kind(_ bytes: UnsafeRawBufferPointer) -> Int? {
    layout.withValues { layout.read(bytes, $0)?.kind }
  }

  /// `probe`'s score of a clean frame; nil: ask the interpreter.
  func probeScore(_ bytes: UnsafeRawBufferPointer) -> Int? {
    layout.withValues { values in layout.read(bytes, values).map { layout.probeScores[$0.kind] } }
  }

  /// `cleanFields` of a frame it is sure of; nil: ask the interpreter.
  func cleanFields(_ bytes: UnsafeRawBufferPointer, names: KsFlatNames, into fields: inout FlatFields)
    -> Bool?
  {
    layout.withValues { values in
      guard let frame = layout.read(bytes, values) else { return nil }
      return layout.flat(frame, values, names: names, into: &fields)
    }
  }
}

/// What the fast plan knows, built by `KsFastCompiler`.
struct KsFastLayout: Sendable {
  var head: KsFastRegion
  /// The message: what the switch is on (a field's value, else an
  /// expression), the body of each value, the body's size.
  var onField = -1
  var on: [KsFastOp]?
  var bodyByValue: [Int64: Int] = [:]
  var bodyBySmallValue: [Int16] = []
  var bodies: [KsFastBody] = []
  var sizeField = -1
  var size: [KsFastOp]?
  var sizeIsEos = false
  /// Kinds by an enum field's value (no message switch).
  var enumKind: [KsFastOp]?
  var kindByValue: [Int64: Int] = [:]
  var trailingIgnored: Bool
  var frameSizes: [Int64]
  var frameSizesRefuse: Bool
  var enumIsKnown: [KsKnownValues]
  /// Bytes at fixed offsets checked before anything (`KsProgram.early`), byte by byte.
  var earlyOffsets: [Int]
  var earlyBytes: [UInt8]
  /// Values per frame at most (head and the largest body).
  var valueCount: Int
  var probeScores: [Int]

  init(
    head: KsFastRegion, trailingIgnored: Bool, frameSizes: [Int64], frameSizesRefuse: Bool,
    enumIsKnown: [KsKnownValues], early: [(offset: Int, bytes: [UInt8])], valueCount: Int, probeScores: [Int]
  ) {
    self.head = head
    self.trailingIgnored = trailingIgnored
    self.frameSizes = frameSizes
    self.frameSizesRefuse = frameSizesRefuse
    self.enumIsKnown = enumIsKnown
    earlyOffsets = early.flatMap { check in check.bytes.indices.map { check.offset + $0 } }
    earlyBytes = early.flatMap(\.bytes)
    self.valueCount = valueCount
    self.probeScores = probeScores
  }
}
