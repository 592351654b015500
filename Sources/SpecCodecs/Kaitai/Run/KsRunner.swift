import PacketKit

/// Reads one frame by a `KsPlan`: objects, their attributes in `seq`
/// order, instances when something reads them, substreams, repeats and
/// switches, as the Kaitai user guide describes; and pktbench's own
/// additions (reserved values, checks, message kinds). Structural damage
/// throws a `DecodeError` at its payload offset; the rest is diagnostics.
/// Bounded: at most `maxWork` objects, elements and iterations, and
/// `maxDepth` nested objects or instances, whatever the spec or input.
struct KsRunner {
  enum Mode {
    /// Everything, diagnostics with their words.
    case build
    /// `cleanKind`/`cleanFields`: the first diagnostic stops the reading.
    case clean
    /// `probe`: diagnostics counted by severity, no words.
    case probe
  }

  static let maxWork = 1 << 16
  static let maxDepth = 64

  let program: KsProgram
  var plan: KsPlan { program.plan }
  let input: UnsafeRawBufferPointer
  var arena: KsArena
  let mode: Mode
  var diagnostics: [Diagnostic] = []
  var warnings = 0
  var notes = 0
  var work = 0
  var depth = 0
  /// The stream whose end a read last ran past (a message body that is too short).
  var ranPast: Int32 = -1
  /// The message kind found (-1: unknown), bytes kept after its fields.
  var kind = -1
  var extra: KsSlice?
  /// A body its kind does not fit, thrown once the frame's size is judged.
  var pendingMismatch: DecodeError?
  var extraRange = KsRange.empty
  /// Whether the reading got as far as the message's kind (`probe` scores damage after it higher).
  var reachedKind = false

  init(program: KsProgram, input: UnsafeRawBufferPointer, arena: consuming KsArena, mode: Mode) {
    self.program = program
    self.input = input
    self.arena = arena
    self.mode = mode
  }

  static let notClean = DecodeError(code: "not-clean") { .init("a diagnostic: not a clean frame") }

  // MARK: Diagnostics

  /// A warning: its words are made only when they are kept.
  mutating func warn(_ code: String, _ range: KsRange, _ text: () -> String) throws(DecodeError) {
    switch mode {
    case .clean: throw Self.notClean
    case .probe: warnings += 1
    case .build: diagnostics.append(.warning(code, text(), range: range.range))
    }
  }

  mutating func note(_ code: String, _ range: KsRange, _ text: () -> String) throws(DecodeError) {
    switch mode {
    case .clean: throw Self.notClean
    case .probe: notes += 1
    case .build: diagnostics.append(.note(code, text(), range: range.range))
    }
  }

  mutating func spend(_ amount: Int = 1) throws(DecodeError) {
    work += amount
    guard work <= Self.maxWork else {
      let limit = Self.maxWork
      throw DecodeError(code: "too-complex", offset: 0) {
        .init("reading this frame takes more than \(limit) objects, elements and steps; stopped")
      }
    }
  }

  // MARK: Streams and positions

  func payload(_ stream: Int32, _ start: Int32, _ end: Int32) -> KsRange {
    let record = arena.streams[Int(stream)]
    return record.buffer == 0 ? KsRange(start: start, end: end) : record.payload
  }

  func payloadOffset(_ stream: Int32, _ position: Int32) -> Int {
    let record = arena.streams[Int(stream)]
    return Int(record.buffer == 0 ? position : record.payload.start)
  }

  mutating func newStream(buffer: Int32, start: Int32, end: Int32, payload: KsRange) -> Int32 {
    arena.streams.append(KsStream(buffer: buffer, start: start, end: end, pos: start, payload: payload))
    return Int32(arena.streams.count - 1)
  }

  @inline(__always)
  func byte(_ buffer: Int32, _ index: Int32) -> UInt8 {
    buffer == 0 ? input[Int(index)] : arena.derived[Int(index)]
  }

  // MARK: Objects

  /// An object of `type` read from `stream` at its position: its
  /// parameters (already evaluated), endianness, then its seq.
  mutating func readObject(
    type: Int, stream: Int32, parent: Int32, arguments: [KsValue]
  ) throws(DecodeError) -> Int32 {
    try spend()
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maxDepth else {
      let limit = Self.maxDepth
      let offset = payloadOffset(stream, arena.streams[Int(stream)].pos)
      throw DecodeError(code: "too-deep", offset: offset) { .init("objects nested deeper than \(limit)") }
    }
    let typePlan = plan.types[type]
    let index = Int32(arena.objects.count)
    let root: Int32 = parent < 0 || typePlan.isFileRoot ? index : arena.objects[Int(parent)].root
    let start = arena.streams[Int(stream)].pos
    let base = Int32(arena.slots.count)
    arena.objects.append(
      KsObject(
        type: Int32(type), parent: parent, root: root, stream: stream, slotBase: base,
        range: KsRange(start: start, end: start), little: false))
    let count = typePlan.slotCount
    for _ in 0..<count {
      arena.slots.append(.absent)
      arena.slotRanges.append(.empty)
      arena.slotStates.append(0)
    }
    for (slot, value) in arguments.enumerated() where slot < typePlan.parameters.count {
      arena.slots[Int(base) + slot] = value
      arena.slotStates[Int(base) + slot] = 2
    }
    arena.objects[Int(index)].little = try endianness(typePlan.endian, object: index, parent: parent)
    for attribute in typePlan.seq {
      if attribute.slot == program.messageSlot, type == 0, parent < 0 {
        try readMessage(attribute, object: index)
      } else {
        try readAttribute(attribute, object: index)
      }
    }
    let streamRecord = arena.streams[Int(stream)]
    let end = streamRecord.pos
    arena.objects[Int(index)].range = payload(stream, start, end)
    return index
  }

  private mutating func endianness(_ endian: KsEndianPlan, object: Int32, parent: Int32) throws(DecodeError)
    -> Bool
  {
    switch endian {
    case .fixed(let little): return little
    case .none: return false
    case .inherited: return parent >= 0 ? arena.objects[Int(parent)].little : false
    case .switched(let on, let cases, let fallback):
      let value = try eval(on, object, KsLocal())
      for item in cases where matches(value, item.match) { return item.little }
      if let fallback { return fallback }
      let offset = Int(arena.objects[Int(object)].range.start)
      throw DecodeError(code: "unknown-endian", offset: offset) {
        .init("no case of the calculated endianness matches")
      }
    }
  }

  // MARK: Attributes

  mutating func readAttribute(_ attribute: KsAttributePlan, object: Int32) throws(DecodeError) {
    let slotIndex = Int(arena.objects[Int(object)].slotBase) + attribute.slot
    if let condition = attribute.condition {
      guard try evalBool(condition, object, KsLocal()) else {
        arena.slotStates[slotIndex] = 2
        return
      }
    }
    let stream = arena.objects[Int(object)].stream
    let (value, range) = try readRepeated(attribute, object: object, stream: stream)
    arena.slots[slotIndex] = value
    arena.slotRanges[slotIndex] = range
    arena.slotStates[slotIndex] = 2
    if attribute.check != nil { arena.checks.append((object, Int32(attribute.slot), -1)) }
  }

  /// The attribute's value and range: one element, or an array of them.
  mutating func readRepeated(_ attribute: KsAttributePlan, object: Int32, stream: Int32) throws(DecodeError)
    -> (
      KsValue, KsRange
    )
  {
    switch attribute.repeatKind {
    case .none:
      let result = try readElement(
        attribute.read, attribute, object: object, stream: stream, local: KsLocal())
      if attribute.needsJudging { try judge(attribute, result.0, result.1, object: object) }
      return result
    case .expression(let count):
      let total = try evalInteger(count, object, KsLocal())
      guard total >= 0 else {
        let offset = payloadOffset(stream, arena.streams[Int(stream)].pos)
        throw DecodeError(code: "bad-count", offset: offset) {
          .init("\(attribute.id) repeats \(total) times")
        }
      }
      try spend(Int(min(total, Int64(Self.maxWork))) / 8)
      let mark = arena.scratch.count
      let start = arena.streams[Int(stream)].pos
      var index: Int64 = 0
      while index < total {
        try spend()
        let (value, range) = try readElement(
          attribute.read, attribute, object: object, stream: stream, local: KsLocal(index: index))
        if attribute.needsJudging { try judge(attribute, value, range, object: object) }
        arena.scratch.append(value)
        arena.scratchRanges.append(range)
        index += 1
      }
      return (finishArray(from: mark), payload(stream, start, arena.streams[Int(stream)].pos))
    case .eos:
      let mark = arena.scratch.count
      let start = arena.streams[Int(stream)].pos
      var index: Int64 = 0
      while !isEof(stream) {
        let (_, stalled) = try nextElement(attribute, object: object, stream: stream, index: index)
        index += 1
        if stalled { throw self.stalled(attribute, stream) }
      }
      return (finishArray(from: mark), payload(stream, start, arena.streams[Int(stream)].pos))
    case .until(let condition):
      let mark = arena.scratch.count
      let start = arena.streams[Int(stream)].pos
      var index: Int64 = 0
      while true {
        let (value, stalled) = try nextElement(attribute, object: object, stream: stream, index: index)
        if try evalBool(condition, object, KsLocal(underscore: value, index: index)) { break }
        index += 1
        if stalled { throw self.stalled(attribute, stream) }
      }
      return (finishArray(from: mark), payload(stream, start, arena.streams[Int(stream)].pos))
    }
  }

  /// One element of a repeat to the end or until a condition, judged and
  /// kept, and whether it took no bytes (its repeat would never end).
  private mutating func nextElement(_ attribute: KsAttributePlan, object: Int32, stream: Int32, index: Int64)
    throws(DecodeError) -> (KsValue, stalled: Bool)
  {
    try spend()
    let before = (arena.streams[Int(stream)].pos, arena.streams[Int(stream)].bitCount)
    let (value, range) = try readElement(
      attribute.read, attribute, object: object, stream: stream, local: KsLocal(index: index))
    if attribute.needsJudging { try judge(attribute, value, range, object: object) }
    arena.scratch.append(value)
    arena.scratchRanges.append(range)
    return (value, (arena.streams[Int(stream)].pos, arena.streams[Int(stream)].bitCount) == before)
  }

  private func stalled(_ attribute: KsAttributePlan, _ stream: Int32) -> DecodeError {
    let id = attribute.id
    return DecodeError(code: "no-progress", offset: payloadOffset(stream, arena.streams[Int(stream)].pos)) {
      .init("an element of \(id) took no bytes: its repeat would never end")
    }
  }

  /// The elements read since `mark` as one array.
  private mutating func finishArray(from mark: Int) -> KsValue {
    let start = Int32(arena.elements.count)
    let count = arena.scratch.count - mark
    arena.elements.append(contentsOf: arena.scratch[mark...])
    arena.elementRanges.append(contentsOf: arena.scratchRanges[mark...])
    arena.scratch.removeSubrange(mark...)
    arena.scratchRanges.removeSubrange(mark...)
    arena.arrays.append((start, Int32(count)))
    return .array(Int32(arena.arrays.count - 1))
  }

  func isEof(_ stream: Int32) -> Bool {
    let record = arena.streams[Int(stream)]
    return record.bitCount == 0 && record.pos >= record.end
  }

  // MARK: Instances

  /// A slot's value, computing an instance the first time it is read.
  mutating func slotValue(_ object: Int32, _ slot: Int) throws(DecodeError) -> KsValue {
    let index = Int(arena.objects[Int(object)].slotBase) + slot
    switch arena.slotStates[index] {
    case 2: return arena.slots[index]
    case 1:
      let type = Int(arena.objects[Int(object)].type)
      let name = plan.types[type].attribute(slot: slot)?.id ?? "?"
      throw DecodeError(code: "instance-cycle", offset: Int(arena.objects[Int(object)].range.start)) {
        .init("\(name) needs its own value")
      }
    default:
      let type = Int(arena.objects[Int(object)].type)
      guard let attribute = plan.types[type].attribute(slot: slot), attribute.isInstance else {
        let name = plan.types[type].attribute(slot: slot)?.id ?? "?"
        throw DecodeError(code: "not-yet-read", offset: Int(arena.objects[Int(object)].range.start)) {
          .init("\(name) is read after the expression that needs it")
        }
      }
      arena.slotStates[index] = 1
      try readInstance(attribute, object: object, slot: index)
      return arena.slots[index]
    }
  }

  private mutating func readInstance(_ attribute: KsAttributePlan, object: Int32, slot: Int)
    throws(DecodeError)
  {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maxDepth else {
      let limit = Self.maxDepth
      throw DecodeError(code: "too-deep", offset: Int(arena.objects[Int(object)].range.start)) {
        .init("instances that need instances, deeper than \(limit)")
      }
    }
    try spend()
    if let condition = attribute.condition, !(try evalBool(condition, object, KsLocal())) {
      arena.slotStates[slot] = 2
      return
    }
    if case .value(let code) = attribute.read {
      let value = try eval(code, object, KsLocal())
      arena.slots[slot] = value
      arena.slotRanges[slot] = try valueRange(code, object: object)
      arena.slotStates[slot] = 2
      return
    }
    var stream = arena.objects[Int(object)].stream
    if let io = attribute.io {
      guard case .stream(let chosen) = try eval(io, object, KsLocal()) else {
        throw DecodeError(code: "bad-io", offset: Int(arena.objects[Int(object)].range.start)) {
          .init("io is not a stream")
        }
      }
      stream = chosen
    }
    let saved = arena.streams[Int(stream)]
    if let pos = attribute.pos {
      let position = try evalInteger(pos, object, KsLocal())
      let record = arena.streams[Int(stream)]
      guard position >= 0, position <= Int64(record.end - record.start) else {
        let id = attribute.id
        throw DecodeError(code: "bad-pos", offset: payloadOffset(stream, record.start)) {
          .init("\(id) is at \(position), outside its stream of \(record.end - record.start) bytes")
        }
      }
      arena.streams[Int(stream)].pos = record.start + Int32(position)
      arena.streams[Int(stream)].bitCount = 0
    }
    defer { arena.streams[Int(stream)] = saved }
    let (value, range) = try readRepeated(attribute, object: object, stream: stream)
    arena.slots[slot] = value
    arena.slotRanges[slot] = range
    arena.slotStates[slot] = 2
  }

  /// Where a value instance "is": the bytes of the attributes of this
  /// object its expression reads (DNS flags' bits show on the flag word).
  private func valueRange(_ code: KsCode, object: Int32) throws(DecodeError) -> KsRange {
    var range: KsRange?
    collectRange(code, object: object, into: &range)
    if let range { return range }
    let end = arena.objects[Int(object)].range.end
    return KsRange(start: end, end: end)
  }

  private func collectRange(_ code: KsCode, object: Int32, into range: inout KsRange?) {
    switch code {
    case .slot(let slot):
      let index = Int(arena.objects[Int(object)].slotBase) + slot
      guard arena.slotStates[index] == 2 else { return }
      let found = arena.slotRanges[index]
      guard found.end > found.start else { return }
      if let known = range {
        range = KsRange(start: min(known.start, found.start), end: max(known.end, found.end))
      } else {
        range = found
      }
    case .negate(let a, _), .invert(let a), .not(let a), .toFloat(let a), .method(_, let a, _):
      collectRange(a, object: object, into: &range)
    case .arithmetic(_, let a, let b, _), .compare(_, let a, let b, _), .logical(_, let a, let b),
      .concatenate(let a, let b):
      collectRange(a, object: object, into: &range)
      collectRange(b, object: object, into: &range)
    case .ternary(let a, let b, let c):
      collectRange(a, object: object, into: &range)
      collectRange(b, object: object, into: &range)
      collectRange(c, object: object, into: &range)
    default: return
    }
  }
}

/// `_` and `_index` where an expression is evaluated.
struct KsLocal {
  var underscore: KsValue = .absent
  var index: Int64 = -1
}
