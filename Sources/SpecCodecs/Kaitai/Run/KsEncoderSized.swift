import CZlib
import PacketKit

/// Writing what sizes, bits and checks make: a sized field's bytes and
/// the length field that measures them, bit fields packed as they are
/// read, checks computed once the frame's bytes are all written.
extension KsRunner {
  // MARK: Sized fields and what measures them

  mutating func writeSized(
    _ data: [UInt8], _ size: KsSizePlan, _ attribute: KsAttributePlan, object: Int32, local: KsLocal,
    _ state: inout KsWriteState
  ) throws(DecodeError) {
    let start = state.out.count
    state.out += data
    switch size.kind {
    case .terminated:
      if !size.include, size.consume { state.out.append(size.terminator ?? 0) }
      if let process = size.process {
        try unprocess(process, from: start, object: object, local: local, &state)
      }
    case .eos:
      if let process = size.process {
        try unprocess(process, from: start, object: object, local: local, &state)
      }
    case .expression:
      if let terminator = size.terminator, !size.include, !data.contains(terminator) {
        state.out.append(terminator)
      }
      try finishSized(attribute, size, start: start, object: object, local: local, &state)
    }
  }

  /// After a sized field's content: processed, its length field told,
  /// and padded to the size its expression gives (or refused when longer).
  mutating func finishSized(
    _ attribute: KsAttributePlan, _ size: KsSizePlan?, start: Int, object: Int32, local: KsLocal = KsLocal(),
    _ state: inout KsWriteState
  ) throws(DecodeError) {
    guard let size else { return }
    if let process = size.process {
      try unprocess(process, from: start, object: object, local: local, &state)
    }
    let written = Int64(state.out.count - start)
    try measured(attribute, object: object, size: written, counts: false, &state)
    guard case .expression(let code) = size.kind else { return }
    let declared = (try? evalInteger(code, object, local)) ?? written
    if declared > written {
      state.out += Array(
        repeating: size.padRight ?? size.terminator ?? 0, count: Int(min(declared - written, 1 << 20)))
    } else if declared < written, state.violation == nil {
      state.violation = EncodeError(
        code: "wrong-size", text: "\(attribute.id) is \(written) bytes; its size says \(declared)",
        field: attribute.id)
    }
  }

  /// A length or count field made what the content makes it.
  mutating func measured(
    _ attribute: KsAttributePlan, object: Int32, size: Int64, counts: Bool, _ state: inout KsWriteState
  ) throws(DecodeError) {
    let type = Int(arena.objects[Int(object)].type)
    for measure in program.measures
    where measure.source.type == type && measure.source.slot == attribute.slot && measure.counts == counts {
      guard let needed = measure.value(for: size) else {
        if state.violation == nil {
          state.violation = EncodeError(
            code: "wrong-size", text: "no length field value gives \(attribute.id) its \(size) bytes",
            field: attribute.id)
        }
        continue
      }
      let owner: Int32
      let slot: Int
      switch measure.path {
      case .slot(let found):
        (owner, slot) = (object, found)
      case .member(let base, let found):
        guard case .object(let resolved) = try eval(base, object, KsLocal()) else { continue }
        (owner, slot) = (resolved, found)
      default: continue
      }
      let index = Int(arena.objects[Int(owner)].slotBase) + slot
      if arena.slots[index] != .integer(needed) {
        arena.slots[index] = .integer(needed)
        state.changed = true
      }
    }
  }

  /// `process` undone, on what was just written.
  private mutating func unprocess(
    _ process: KsProcessPlan, from start: Int, object: Int32, local: KsLocal, _ state: inout KsWriteState
  ) throws(DecodeError) {
    switch process {
    case .xor(let code):
      let key: [UInt8]
      switch try eval(code, object, local) {
      case .integer(let byte): key = [UInt8(truncatingIfNeeded: byte)]
      case .bytes(let slice): key = bytes(slice)
      default: key = []
      }
      guard !key.isEmpty else { return }
      for index in start..<state.out.count { state.out[index] ^= key[(index - start) % key.count] }
    case .rol(let code), .ror(let code):
      var amount = Int(((try evalInteger(code, object, local)) % 8 + 8) % 8)
      if case .rol = process { amount = (8 - amount) % 8 }
      if amount != 0 {
        for index in start..<state.out.count {
          state.out[index] = (state.out[index] << UInt8(amount)) | (state.out[index] >> UInt8(8 - amount))
        }
      }
    case .zlib:
      let plain = Array(state.out[start...])
      var length = compressBound(uLong(plain.count))
      var compressed = [UInt8](repeating: 0, count: Int(length))
      let status = compressed.withUnsafeMutableBufferPointer { out in
        plain.withUnsafeBufferPointer { source in
          compress2(out.baseAddress, &length, source.baseAddress, uLong(source.count), Z_DEFAULT_COMPRESSION)
        }
      }
      guard status == Z_OK else { return }
      state.out.removeSubrange(start...)
      state.out += compressed[0..<Int(length)]
    }
  }

  // MARK: Bits

  mutating func writeBits(_ value: UInt64, count: Int, little: Bool, _ state: inout KsWriteState) {
    if state.bitCount > 0, state.bitsLittle != little { alignWrite(&state) }
    state.bitsLittle = little
    var remaining = count
    var value = count < 64 ? value & ((UInt64(1) << UInt64(count)) - 1) : value
    while remaining > 0 {
      let take = min(remaining, 8)
      let part: UInt64
      if little {
        part = value & ((UInt64(1) << UInt64(take)) - 1)
        value >>= UInt64(take)
        state.bits |= part << UInt64(state.bitCount)
      } else {
        part = (value >> UInt64(remaining - take)) & ((UInt64(1) << UInt64(take)) - 1)
        state.bits = (state.bits << UInt64(take)) | part
      }
      state.bitCount += take
      remaining -= take
      while state.bitCount >= 8 {
        if little {
          state.out.append(UInt8(truncatingIfNeeded: state.bits))
          state.bits >>= 8
        } else {
          state.out.append(UInt8(truncatingIfNeeded: state.bits >> UInt64(state.bitCount - 8)))
          state.bits &= (UInt64(1) << UInt64(state.bitCount - 8)) - 1
        }
        state.bitCount -= 8
      }
    }
  }

  mutating func alignWrite(_ state: inout KsWriteState) {
    guard state.bitCount > 0 else { return }
    if state.bitsLittle {
      state.out.append(UInt8(truncatingIfNeeded: state.bits))
    } else {
      state.out.append(UInt8(truncatingIfNeeded: state.bits << UInt64(8 - state.bitCount)))
    }
    state.bits = 0
    state.bitCount = 0
  }

  // MARK: Checks

  /// Each check computed over what it covers in the written bytes, with
  /// the variant the message says.
  mutating func writeChecks(_ state: inout KsWriteState) throws(DecodeError) {
    for (object, slot, variant) in arena.checks {
      let type = Int(arena.objects[Int(object)].type)
      guard let attribute = plan.types[type].attribute(slot: Int(slot)), let check = attribute.check else {
        continue
      }
      let field = arena.slotRanges[Int(arena.objects[Int(object)].slotBase) + Int(slot)]
      let (from, through, extra) = try checkSpan(check, object: object, field: field)
      let chosen = check.check.variants[min(max(Int(variant), 0), check.check.variants.count - 1)]
      let covered = Array(state.out[Int(min(from, through))..<Int(max(from, through))])
      let value = chosen.algorithm.compute(covered, extra: extra)
      let bytes = check.width / 8
      for index in 0..<bytes where Int(field.start) + index < state.out.count {
        let shift = check.little ? index * 8 : (bytes - 1 - index) * 8
        state.out[Int(field.start) + index] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
      }
    }
  }
}
