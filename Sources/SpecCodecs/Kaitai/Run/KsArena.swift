/// A byte range of the payload (or of a derived buffer), as 32-bit offsets.
struct KsRange: Sendable, Equatable {
  var start: Int32
  var end: Int32

  static let empty = KsRange(start: 0, end: 0)

  var range: Range<Int> { Int(start)..<Int(max(start, end)) }
}

/// Bytes of a buffer: 0 is the payload, 1 the arena's derived bytes
/// (processed, decoded from another encoding, or made by an expression).
struct KsSlice: Sendable, Equatable {
  var buffer: Int32
  var start: Int32
  var end: Int32

  var count: Int { Int(end - start) }
}

/// A value while a frame is read: 16 bytes, nothing reference-counted.
enum KsValue: Sendable, Equatable {
  case absent
  case integer(Int64)
  case float(Double)
  case bool(Bool)
  case bytes(KsSlice)
  /// UTF-8 (text of other encodings is decoded into the derived bytes).
  case string(KsSlice)
  case object(Int32)
  case array(Int32)
  case stream(Int32)
}

/// An object of a user type while a frame is read.
struct KsObject: Sendable {
  var type: Int32
  var parent: Int32
  var root: Int32
  var stream: Int32
  var slotBase: Int32
  var range: KsRange
  var little: Bool
}

/// A stream: a window of a buffer, a position in it and the bits of a
/// byte partly read. `payload` is where it lies in the payload (for a
/// derived buffer, the whole field it came from).
struct KsStream: Sendable {
  var buffer: Int32
  var start: Int32
  var end: Int32
  var pos: Int32
  var bitCount: Int32 = 0
  var bits: UInt64 = 0
  var payload: KsRange
}

/// Everything a frame's reading makes, in flat arrays reused frame after
/// frame (`KsArenaPool`): reading a clean frame allocates nothing once
/// they have grown to its size.
struct KsArena: Sendable {
  var objects: [KsObject] = []
  var slots: [KsValue] = []
  var slotRanges: [KsRange] = []
  /// 0: not read; 1: being computed (an instance that needs itself); 2: read.
  var slotStates: [UInt8] = []
  /// Arrays: where their elements start in `elements`, and how many.
  var arrays: [(start: Int32, count: Int32)] = []
  var elements: [KsValue] = []
  var elementRanges: [KsRange] = []
  var streams: [KsStream] = []
  var derived: [UInt8] = []
  /// Elements of repeats being read (nested repeats stack on it).
  var scratch: [KsValue] = []
  var scratchRanges: [KsRange] = []
  /// Check fields read (object, slot), verified once the frame is read,
  /// and the variant each matched.
  var checks: [(object: Int32, slot: Int32, variant: Int32)] = []

  mutating func reset() {
    objects.removeAll(keepingCapacity: true)
    slots.removeAll(keepingCapacity: true)
    slotRanges.removeAll(keepingCapacity: true)
    slotStates.removeAll(keepingCapacity: true)
    arrays.removeAll(keepingCapacity: true)
    elements.removeAll(keepingCapacity: true)
    elementRanges.removeAll(keepingCapacity: true)
    streams.removeAll(keepingCapacity: true)
    derived.removeAll(keepingCapacity: true)
    scratch.removeAll(keepingCapacity: true)
    scratchRanges.removeAll(keepingCapacity: true)
    checks.removeAll(keepingCapacity: true)
  }

  /// Whether it grew past what is worth keeping for the next frame.
  var isLarge: Bool { slots.count > 65536 || elements.count > 65536 || derived.count > 1 << 20 }
}
