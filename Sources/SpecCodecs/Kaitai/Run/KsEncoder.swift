import PacketKit

/// What a write pass keeps: the bytes, the bits of a byte being filled,
/// and whether a length or count field changed (another pass is needed).
struct KsWriteState {
  var out: [UInt8] = []
  var bits: UInt64 = 0
  var bitCount = 0
  var bitsLittle = false
  var changed = false
  /// A size the content does not fit, said only once the lengths settle.
  var violation: EncodeError?
  let validate: Bool
  let extra: [UInt8]
}

/// Writes a `SpecMessage` as bytes by the same plan decode reads: each
/// attribute in order (conditions, switches and repeats evaluated on the
/// message's own values), length and count fields made what the content
/// makes them (passes until they settle), then the checks over the result.
struct KsEncoder {
  let program: KsProgram

  func encode(_ message: SpecMessage, validate: Bool) throws(EncodeError) -> [UInt8] {
    guard case .object(0, _) = message.tree else {
      throw EncodeError(code: "wrong-shape", text: "the message does not have the spec's fields")
    }
    let none: [UInt8] = []
    do {
      return try none.withUnsafeBytes { (buffer) throws(DecodeError) -> [UInt8] in
        try program.withRunner(buffer, mode: .build) { (runner) throws(DecodeError) -> [UInt8] in
          // Stream 0, which every object is "in" while it is written.
          _ = runner.newStream(buffer: -1, start: 0, end: 0, payload: .empty)
          _ = runner.materialize(message.tree, parent: -1)
          try runner.settleEndianness()
          var state = KsWriteState(validate: validate, extra: message.extra)
          for _ in 0..<4 {
            state.out.removeAll(keepingCapacity: true)
            state.changed = false
            state.violation = nil
            try runner.writeObject(0, &state)
            runner.alignWrite(&state)
            if !state.changed { break }
          }
          if let violation = state.violation { throw KsEncoder.wrap(violation) }
          try runner.writeChecks(&state)
          return state.out
        }
      }
    } catch let error as DecodeError {
      throw KsEncoder.unwrap(error)
    } catch {
      throw EncodeError(code: "cannot-write", text: "cannot write it")
    }
  }

  /// An `EncodeError` carried through the interpreter's `DecodeError`s.
  static func wrap(_ error: EncodeError) -> DecodeError {
    DecodeError(code: "encode:" + error.code, keyPath: error.field) {
      .init(error.text, expected: error.forceCrafts ? "force" : nil)
    }
  }

  static func unwrap(_ error: DecodeError) -> EncodeError {
    if error.code.hasPrefix("encode:") {
      return EncodeError(
        code: String(error.code.dropFirst(7)), text: error.text, field: error.keyPath,
        forceCrafts: error.expected == "force")
    }
    return EncodeError(code: "cannot-write", text: "cannot write it: \(error.text)")
  }

  /// `craft --bad-check`: every check's bytes inverted, found by decoding the frame.
  func spoilChecks(_ bytes: inout [UInt8]) {
    let ranges: [Range<Int>] = bytes.withUnsafeBytes { buffer in
      (try? program.withRunner(buffer, mode: .build) { (runner) throws(DecodeError) -> [Range<Int>] in
        _ = try runner.readFrame()
        return runner.arena.checks.map { check in
          runner.arena.slotRanges[Int(runner.arena.objects[Int(check.object)].slotBase) + Int(check.slot)]
            .range
        }
      }) ?? []
    }
    for range in ranges {
      for index in range where index < bytes.count { bytes[index] ^= 0xFF }
    }
  }
}

extension KsRunner {
  mutating func writeObject(_ object: Int32, _ state: inout KsWriteState) throws(DecodeError) {
    let record = arena.objects[Int(object)]
    let type = plan.types[Int(record.type)]
    let isRoot = record.parent < 0 && object == 0
    for attribute in type.seq {
      let index = Int(record.slotBase) + attribute.slot
      let value = arena.slots[index]
      if let condition = attribute.condition {
        do {
          if !(try evalBool(condition, object, KsLocal())) { continue }
        } catch  where error.code == KsRunner.unwritten.code {
          // A condition on the stream's size: the message has the field or not.
          if case .absent = value { continue }
        }
      }
      if case .absent = value, !isAbsentAllowed(attribute, isRoot: isRoot) {
        throw KsEncoder.wrap(
          EncodeError(
            code: "missing", text: "\(attribute.id) is needed here and has no value", field: attribute.id))
      }
      if case .contents = attribute.read {} else if case .bits = attribute.read {} else { alignWrite(&state) }
      let start = Int32(state.out.count)
      if attribute.isRepeated {
        guard case .array(let array) = value else {
          throw KsEncoder.wrap(
            EncodeError(code: "wrong-shape", text: "\(attribute.id) is a list", field: attribute.id))
        }
        let elements = arena.arrays[Int(array)]
        try measured(attribute, object: object, size: Int64(elements.count), counts: true, &state)
        if case .expression(let count) = attribute.repeatKind, !state.changed {
          let expected = try evalInteger(count, object, KsLocal())
          if expected != Int64(elements.count), state.violation == nil {
            state.violation = EncodeError(
              code: "wrong-size",
              text: "\(attribute.id) has \(elements.count) elements; the spec says \(expected)",
              field: attribute.id)
          }
        }
        for position in 0..<Int(elements.count) {
          try writeElement(
            attribute.read, attribute, arena.elements[Int(elements.start) + position], object: object,
            local: KsLocal(index: Int64(position)), &state)
        }
      } else if isRoot, attribute.slot == program.messageSlot {
        try writeMessage(attribute, value, object: object, &state)
      } else {
        try writeElement(attribute.read, attribute, value, object: object, local: KsLocal(), &state)
      }
      arena.slotRanges[index] = KsRange(start: start, end: Int32(state.out.count))
    }
  }

  private func isAbsentAllowed(_ attribute: KsAttributePlan, isRoot: Bool) -> Bool {
    if case .contents = attribute.read { return true }
    if isRoot, attribute.slot == program.messageSlot { return true }
    if case .switched(_, _, _, _, nil) = attribute.read { return true }
    return false
  }

  /// The message switch's value: its kind's object (and bytes kept
  /// after it), or the unknown message's bytes, in the body's size.
  private mutating func writeMessage(
    _ attribute: KsAttributePlan, _ value: KsValue, object: Int32, _ state: inout KsWriteState
  ) throws(DecodeError) {
    let start = state.out.count
    switch value {
    case .object(let child):
      if case .switched(_, _, _, _, let size) = attribute.read, size != nil {
        try writeChild(child, object: object, state: &state)
        state.out += state.extra
        try finishSized(attribute, attribute.read.size, start: start, object: object, &state)
      } else {
        try writeChild(child, object: object, state: &state)
      }
    case .bytes(let slice):
      state.out += bytes(slice)
      try finishSized(attribute, attribute.read.size, start: start, object: object, &state)
    default: break
    }
  }

  private mutating func writeChild(_ child: Int32, object: Int32, state: inout KsWriteState)
    throws(DecodeError)
  {
    try writeObject(child, &state)
    alignWrite(&state)
  }

  mutating func writeElement(
    _ read: KsRead, _ attribute: KsAttributePlan, _ value: KsValue, object: Int32, local: KsLocal,
    _ state: inout KsWriteState
  ) throws(DecodeError) {
    switch read {
    case .integer(let bytes, let signed, let endian):
      let raw = try integerToWrite(attribute, value, bits: bytes * 8, signed: signed, object: object, state)
      let little = endian == .little || (endian == .object && arena.objects[Int(object)].little)
      for index in 0..<bytes {
        let shift = little ? index * 8 : (bytes - 1 - index) * 8
        state.out.append(UInt8(truncatingIfNeeded: raw >> UInt64(shift)))
      }
    case .bits(let count, let little):
      let raw: UInt64
      if case .bool(let flag) = value {
        raw = flag ? 1 : 0
      } else {
        raw = try integerToWrite(attribute, value, bits: count, signed: false, object: object, state)
      }
      writeBits(raw, count: count, little: little, &state)
    case .float(let bytes, let endian):
      guard case .float(let number) = value else { throw typeMismatch(attribute, "a number") }
      if state.validate { try checkRange(attribute, number) }
      let raw = bytes == 4 ? UInt64(Float(number).bitPattern) : number.bitPattern
      let little = endian == .little || (endian == .object && arena.objects[Int(object)].little)
      for index in 0..<bytes {
        let shift = little ? index * 8 : (bytes - 1 - index) * 8
        state.out.append(UInt8(truncatingIfNeeded: raw >> UInt64(shift)))
      }
    case .contents(let bytes):
      state.out += bytes
    case .bytes(let size), .string(let size, _):
      let data: [UInt8]
      switch value {
      case .bytes(let slice), .string(let slice): data = bytes(slice)
      default: throw typeMismatch(attribute, "bytes or text")
      }
      try writeSized(data, size, attribute, object: object, local: local, &state)
    case .user(let type, let arguments, let size):
      switch value {
      case .object(let child):
        for (slot, code) in arguments.enumerated() {
          arena.slots[Int(arena.objects[Int(child)].slotBase) + slot] = try eval(code, object, local)
        }
        _ = type
        let start = state.out.count
        try writeChild(child, object: object, state: &state)
        if size != nil {
          try finishSized(attribute, size, start: start, object: object, local: local, &state)
        }
      case .bytes(let slice):
        try writeSized(
          bytes(slice), size ?? KsSizePlan(kind: .eos), attribute, object: object, local: local, &state)
      default: throw typeMismatch(attribute, "an object")
      }
    case .switched(let on, _, let cases, let fallback, let size):
      switch value {
      case .object(let child):
        let start = state.out.count
        try writeChild(child, object: object, state: &state)
        if size != nil {
          try finishSized(attribute, size, start: start, object: object, local: local, &state)
        }
      case .bytes(let slice):
        guard let size else { throw typeMismatch(attribute, "a value its switch has a case for") }
        try writeSized(bytes(slice), size, attribute, object: object, local: local, &state)
      case .absent: break
      default:
        let selector = try eval(on, object, local)
        var chosen = fallback
        for item in cases where matches(selector, item.match) {
          chosen = item.read
          break
        }
        guard let chosen else { throw typeMismatch(attribute, "a value its switch has a case for") }
        let start = state.out.count
        try writeElement(chosen, attribute, value, object: object, local: local, &state)
        if size != nil {
          try finishSized(attribute, size, start: start, object: object, local: local, &state)
        }
      }
    case .value:
      break
    }
  }

  private func typeMismatch(_ attribute: KsAttributePlan, _ expected: String) -> DecodeError {
    KsEncoder.wrap(
      EncodeError(code: "wrong-type", text: "\(attribute.id) must be \(expected)", field: attribute.id))
  }

  /// An integer's bits to write: it must fit the field; unless forced, its
  /// range, enum and `valid` too.
  private mutating func integerToWrite(
    _ attribute: KsAttributePlan, _ value: KsValue, bits: Int, signed: Bool, object: Int32,
    _ state: KsWriteState
  ) throws(DecodeError) -> UInt64 {
    let integer: Int64
    switch value {
    case .integer(let found): integer = found
    case .bool(let flag): integer = flag ? 1 : 0
    default: throw typeMismatch(attribute, "an integer")
    }
    let fits: Bool
    if bits >= 64 {
      fits = true
    } else if signed {
      fits = integer >= -(Int64(1) << (bits - 1)) && integer < (Int64(1) << (bits - 1))
    } else {
      fits = integer >= 0 && integer < (Int64(1) << bits)
    }
    guard fits else {
      let allowed =
        signed
        ? "\(-(Int64(1) << (bits - 1)))…\((Int64(1) << (bits - 1)) - 1)"
        : "0…\((UInt64(1) << UInt64(bits)) - 1)"
      throw KsEncoder.wrap(
        .tooWide(attribute.id, String(integer), wire: "\(bits) bits", allowed: allowed, unit: attribute.unit))
    }
    if state.validate {
      if let enumeration = attribute.enumeration, !program.enumIsKnown[enumeration].contains(integer) {
        throw KsEncoder.wrap(
          .outOfRange(
            attribute.id, String(integer),
            allowed: plan.enums[enumeration].values.map { "\($0.shown) (\($0.value))" }.joined(
              separator: ", ")))
      }
      if let number = shown(value, attribute.keys) { try checkRange(attribute, number) }
      if let valid = attribute.valid { try validate(valid, attribute, value, object: object) }
    }
    return UInt64(bitPattern: integer)
  }

  private func checkRange(_ attribute: KsAttributePlan, _ number: Double) throws(DecodeError) {
    guard let range = attribute.keys.range, !range.contains(number) else { return }
    throw KsEncoder.wrap(
      .outOfRange(
        attribute.id, JSONWriter.formatNumber(number),
        allowed: "\(JSONWriter.formatNumber(range.lowerBound))…\(JSONWriter.formatNumber(range.upperBound))",
        unit: attribute.unit))
  }

  private mutating func validate(
    _ valid: KsValidPlan, _ attribute: KsAttributePlan, _ value: KsValue, object: Int32
  )
    throws(DecodeError)
  {
    do {
      try self.valid(valid, attribute, value, .empty, object: object)
    } catch {
      throw KsEncoder.wrap(
        EncodeError(
          code: "not-valid", text: "\(attribute.id) \(describe(value, hex: false)) is not valid here",
          field: attribute.id, forceCrafts: true))
    }
  }
}
