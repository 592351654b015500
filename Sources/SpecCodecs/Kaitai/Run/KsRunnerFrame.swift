import PacketKit

extension KsRunner {
  /// The whole frame: the fixed bytes first, the frame's size when it
  /// tells the message kind, the root type, bytes left after it, every
  /// instance (output shows them; a broken one is damage), and last the
  /// checks. Returns the root object.
  mutating func readFrame() throws(DecodeError) -> Int32 {
    try checkEarly()
    try checkFrameSize()
    let stream = newStream(
      buffer: 0, start: 0, end: Int32(input.count), payload: KsRange(start: 0, end: Int32(input.count)))
    let root = try readObject(type: 0, stream: stream, parent: -1, arguments: [])
    if program.messageSlot < 0 { reachedKind = true }
    let record = arena.streams[Int(stream)]
    if record.pos < record.end {
      let (end, count) = (Int(record.pos), input.count)
      switch program.keys.trailing {
      case .ignored: break
      case .error(let code):
        throw DecodeError(code: code, offset: end) {
          .init(
            "\(count - end) bytes follow the frame's last field at offset \(end)", found: "\(count) bytes")
        }
      case .warning(let code):
        try warn(code, KsRange(start: record.pos, end: record.end)) {
          "\(count - end) bytes follow the frame's last field at offset \(end)"
        }
      }
    }
    // A message body its kind does not fit is said after the frame's own size.
    if let pending = pendingMismatch { throw pending }
    try readInstances()
    if !arena.checks.isEmpty { try verifyChecks() }
    return root
  }

  private func checkEarly() throws(DecodeError) {
    for check in program.early {
      for (index, expected) in check.bytes.enumerated() {
        let offset = check.offset + index
        guard offset < input.count else { return }
        let found = input[offset]
        guard found == expected else {
          let id = check.id
          throw DecodeError(code: check.code, offset: offset) {
            .init(
              "\(id) byte at offset \(offset) is 0x\(Hex.spaced([found])); expected 0x\(Hex.spaced([expected]))",
              expected: Hex.spaced([expected]), found: Hex.spaced([found]))
          }
        }
      }
    }
  }

  /// Kinds told by the frame's size: a size no kind has is refused before
  /// anything is read (unless the spec says what an unknown kind is).
  private func checkFrameSize() throws(DecodeError) {
    let sizes = program.frameSizes
    guard !sizes.isEmpty, !sizes.contains(Int64(input.count)), program.messageAttribute?.keys.unknown == nil
    else {
      return
    }
    let count = input.count
    let longest = Int(sizes.max() ?? 0)
    let names = zip(
      sizes,
      program.messageAttribute.map { attribute -> [String] in
        guard case .switched(_, _, let cases, _, _) = attribute.read else { return [] }
        return cases.map { item in
          if case .user(let type, _, _) = item.read { return program.plan.types[type].name }
          return "?"
        }
      } ?? []
    ).map { "\($0.0) (\($0.1))" }
    let name = program.name
    throw DecodeError(code: program.messageAttribute?.keys.error ?? "bad-length", offset: min(count, longest))
    {
      .init(
        "frame is \(count) bytes; a \(name) frame is \(SpecNode.alternatives(names))",
        expected: SpecNode.alternatives(names), found: "\(count) bytes")
    }
  }

  /// Every instance of every object, in the order the objects were made
  /// (an instance may make more).
  private mutating func readInstances() throws(DecodeError) {
    var index = 0
    while index < arena.objects.count {
      let type = plan.types[Int(arena.objects[index].type)]
      for instance in type.instances { _ = try slotValue(Int32(index), instance.slot) }
      index += 1
    }
  }

  /// Each check over the bytes it covers: the first variant that matches
  /// is the frame's; none is damage at the check; more than one is a note.
  private mutating func verifyChecks() throws(DecodeError) {
    for index in arena.checks.indices {
      let (object, slot, _) = arena.checks[index]
      let type = Int(arena.objects[Int(object)].type)
      guard let attribute = plan.types[type].attribute(slot: Int(slot)), let check = attribute.check else {
        continue
      }
      let slotIndex = Int(arena.objects[Int(object)].slotBase) + Int(slot)
      guard case .integer(let stored) = arena.slots[slotIndex] else { continue }
      let value = UInt64(bitPattern: stored)
      let fieldRange = arena.slotRanges[slotIndex]
      let (from, through, extra) = try checkSpan(check, object: object, field: fieldRange)
      let covered = UnsafeRawBufferPointer(rebasing: input[Int(from)..<Int(max(from, through))])
      var first = -1
      var ambiguous = false
      for (position, variant) in check.check.variants.enumerated()
      where variant.algorithm.compute(covered, extra: extra) == value {
        if first < 0 { first = position } else { ambiguous = true }
      }
      guard first >= 0 else {
        let results = check.check.variants.map { $0.algorithm.compute(covered, extra: extra) }
        let labels = check.check.variants.map(\.algorithm.label)
        let (id, offset, width) = (attribute.id, Int(fieldRange.start), check.width)
        throw DecodeError(code: check.check.error, offset: offset) {
          let expected = zip(results, labels).map { "\(KsRunner.hex($0.0, width)) (\($0.1))" }.joined(
            separator: " or ")
          return .init(
            "\(id) at offset \(offset) is \(KsRunner.hex(value, width)); expected \(expected)",
            expected: expected,
            found: KsRunner.hex(value, width))
        }
      }
      arena.checks[index].variant = Int32(first)
      if ambiguous {
        let names = check.check.variants.indices.filter {
          check.check.variants[$0].algorithm.compute(covered, extra: extra) == value
        }.map { check.check.variants[$0].name }
        let (id, width) = (attribute.id, check.width)
        try note("check-ambiguous", fieldRange) {
          "\(id) \(KsRunner.hex(value, width)) is valid under \(names.joined(separator: " and ")); reported as \(names[0])"
        }
      }
    }
  }

  /// What a check covers (from, through: payload offsets) and the extra
  /// byte after it, for the check field at `field` of `object`.
  mutating func checkSpan(_ check: KsCheckPlan, object: Int32, field: KsRange) throws(DecodeError)
    -> (from: Int32, through: Int32, extra: UInt8?)
  {
    var from: Int32 = 0
    var through = field.start
    if let (up, target) = check.from, let owner = ancestor(object, up) {
      from = arena.slotRanges[Int(arena.objects[Int(owner)].slotBase) + target].start
    }
    if let (up, target) = check.through, let owner = ancestor(object, up) {
      through = arena.slotRanges[Int(arena.objects[Int(owner)].slotBase) + target].end
    }
    var extra: UInt8?
    if let code = check.extra { extra = UInt8(truncatingIfNeeded: try evalInteger(code, object, KsLocal())) }
    return (from, through, extra)
  }

  private func ancestor(_ object: Int32, _ up: Int) -> Int32? {
    var current = object
    for _ in 0..<up {
      current = arena.objects[Int(current)].parent
      if current < 0 { return nil }
    }
    return current
  }

  static func hex(_ value: UInt64, _ width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, (width + 3) / 4 - digits.count)) + digits
  }
}
