import PacketKit

extension KsRunner {
  /// The root's message switch: the kind its value names, read in its
  /// own substream when sized; a kind it has no case for is the unknown
  /// message (with a warning at the value that named it); a body its
  /// kind does not fill exactly is what the kind's `-pktbench-size-mismatch`
  /// says (damage, the unknown message, or bytes kept after the fields).
  mutating func readMessage(_ attribute: KsAttributePlan, object: Int32) throws(DecodeError) {
    let slotIndex = Int(arena.objects[Int(object)].slotBase) + attribute.slot
    defer { arena.slotStates[slotIndex] = 2 }
    guard case .switched(let on, _, let cases, let fallback, let size) = attribute.read else { return }
    if let condition = attribute.condition, !(try evalBool(condition, object, KsLocal())) { return }
    let stream = arena.objects[Int(object)].stream
    let value = try eval(on, object, KsLocal())
    var chosen = fallback
    for item in cases where matches(value, item.match) {
      chosen = item.read
      break
    }
    var body: (slice: KsSlice, range: KsRange)?
    if let size { body = try take(size, attribute, object: object, stream: stream, local: KsLocal()) }
    reachedKind = true
    guard let chosen, case .user(let caseType, let argumentCodes, _) = chosen else {
      kind = -1
      if let body {
        arena.slots[slotIndex] = .bytes(body.slice)
        arena.slotRanges[slotIndex] = body.range
      }
      let range = try discriminatorRange(object)
      let (unknown, shown) = (program.unknown, describe(value, hex: true))
      try warn(unknown.warning, range) {
        unknown.text ?? "\(shown) at offset \(range.start) names no message kind"
      }
      return
    }
    kind = program.kindByType[caseType] ?? -1
    var arguments: [KsValue] = []
    for code in argumentCodes { arguments.append(try eval(code, object, KsLocal())) }
    guard let body else {
      let child = try readObject(type: caseType, stream: stream, parent: object, arguments: arguments)
      arena.slots[slotIndex] = .object(child)
      arena.slotRanges[slotIndex] = arena.objects[Int(child)].range
      return
    }
    let sub = newStream(
      buffer: body.slice.buffer, start: body.slice.start, end: body.slice.end, payload: body.range)
    let mismatch = plan.types[caseType].message.sizeMismatch
    let (diagnosticsBefore, warningsBefore, notesBefore, checksBefore) = (
      diagnostics.count, warnings, notes, arena.checks.count
    )
    var failure: DecodeError?
    var child: Int32 = -1
    ranPast = -1
    do {
      child = try readObject(type: caseType, stream: sub, parent: object, arguments: arguments)
    } catch {
      guard mismatch != nil, ranPast == sub else { throw error }
      failure = error
    }
    let leftover = arena.streams[Int(sub)].end - arena.streams[Int(sub)].pos
    if failure == nil, leftover == 0 || mismatch == nil {
      arena.slots[slotIndex] = .object(child)
      arena.slotRanges[slotIndex] = body.range
      return
    }
    guard let mismatch else { return }
    let name = plan.types[caseType].name
    let lengthRange =
      try size.flatMap(\.lengthPath).map { path throws(DecodeError) in
        try pathRange(path, object: object, local: KsLocal())
      } ?? body.range
    switch mismatch {
    case .error(let code):
      let (offset, count) = (Int(lengthRange.start), body.slice.count)
      pendingMismatch = DecodeError(code: code, offset: offset) {
        .init(
          "\(name) does not take the \(count) bytes its length at offset \(offset) gives it",
          found: String(count))
      }
      if mode == .build { diagnostics.removeSubrange(diagnosticsBefore...) }
      (warnings, notes) = (warningsBefore, notesBefore)
      arena.checks.removeSubrange(checksBefore...)
      arena.slots[slotIndex] = .bytes(body.slice)
      arena.slotRanges[slotIndex] = body.range
    case .unknown(let warning, let text):
      if mode == .build { diagnostics.removeSubrange(diagnosticsBefore...) }
      (warnings, notes) = (warningsBefore, notesBefore)
      arena.checks.removeSubrange(checksBefore...)
      kind = -1
      arena.slots[slotIndex] = .bytes(body.slice)
      arena.slotRanges[slotIndex] = body.range
      let count = body.slice.count
      try warn(warning, lengthRange) { text ?? "\(name)'s fields do not fill its body (\(count) bytes)" }
    case .keep(_, let warning, let text):
      if failure != nil {
        let offset = Int(lengthRange.start)
        pendingMismatch = DecodeError(code: "bad-length", offset: offset) {
          .init("\(name) needs more bytes than its length at offset \(offset) gives it")
        }
        arena.slots[slotIndex] = .bytes(body.slice)
        arena.slotRanges[slotIndex] = body.range
        return
      }
      let record = arena.streams[Int(sub)]
      extra = KsSlice(buffer: record.buffer, start: record.pos, end: record.end)
      extraRange = payload(sub, record.pos, record.end)
      arena.slots[slotIndex] = .object(child)
      arena.slotRanges[slotIndex] = body.range
      let range = extraRange
      try warn(warning, range) { text ?? "\(range.end - range.start) bytes follow \(name)'s fields" }
    }
  }

  /// Where the value that names the message kind lies.
  mutating func discriminatorRange(_ object: Int32) throws(DecodeError) -> KsRange {
    guard let path = program.discriminatorPath else { return .empty }
    return try pathRange(path, object: object, local: KsLocal())
  }
}
