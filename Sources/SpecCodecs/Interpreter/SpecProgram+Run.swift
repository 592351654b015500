import PacketKit

extension SpecProgram {
  func decode(_ bytes: SpecBytes) throws(DecodeError) -> SpecDecoded {
    if spec.encoding == .json { return try SpecJSONCodec(program: self).decode(bytes) }
    var decoder = SpecDecoder(program: self, bytes: bytes)
    return try decoder.decode()
  }

  func encode(_ message: SpecMessage, validate: Bool) throws(EncodeError) -> [UInt8] {
    if spec.encoding == .json { return try SpecJSONCodec(program: self).encode(message, validate: validate) }
    return try SpecEncoder(program: self).encode(message, validate: validate)
  }

  func craft(_ name: String, from values: CraftValues) throws(EncodeError) -> SpecMessage {
    if spec.encoding == .json { return try SpecJSONCodec(program: self).craft(name, from: values) }
    return try SpecCraft(program: self).message(name, from: values)
  }

  func kindName(_ message: SpecMessage) -> String {
    guard message.kind >= 0, message.kind < spec.messages.count else {
      return spec.unknownMessage?.name ?? "unknown"
    }
    return spec.messages[message.kind].name
  }

  /// `FastFrameCodec.cleanKind`: the kind's index in `info.messages` when
  /// the frame decodes with no diagnostic at all, found by the probe's
  /// walk, which builds nothing and allocates nothing.
  func cleanKind(_ bytes: SpecBytes) -> Int? {
    guard spec.encoding == .binary else { return nil }
    var decoder = SpecDecoder(program: self, bytes: bytes, building: false)
    guard let decoded = try? decoder.decode(), decoded.message.kind >= 0, decoded.diagnostics.isEmpty else {
      return nil
    }
    let index = schemaIndex[decoded.message.kind]
    return index < 0 ? nil : index
  }

  /// `probe`'s score, generic: 0 when the frame is not this protocol's
  /// (its fixed bytes, length or header say so); 10 when it decodes only
  /// as the unknown message or its body is damaged; 50 when only its check
  /// is wrong; for a clean frame, its kind's `probe` (default 100 with a
  /// verified check, else 80), 30 less with warnings.
  func probe(_ bytes: SpecBytes) -> Int {
    if spec.encoding == .json { return SpecJSONCodec(program: self).probe(bytes) }
    for fixed in earlyFixed {
      for (index, expected) in fixed.bytes.enumerated() where fixed.offset + index < bytes.count {
        if bytes[fixed.offset + index] != expected { return 0 }
      }
    }
    if spec.discriminator == .frameLength, kind(for: Int64(bytes.count)) == nil { return 0 }
    var decoder = SpecDecoder(program: self, bytes: bytes, building: false)
    do {
      let decoded = try decoder.decode()
      guard decoded.message.kind >= 0 else { return 10 }
      let plan = messagePlans[decoded.message.kind]
      let base = plan.probe ?? (plan.hasCheck ? 100 : 80)
      // A verified check says more than a warning takes away.
      let warned = decoded.diagnostics.contains { $0.severity == .warning }
      return warned && !plan.hasCheck ? max(10, base - 30) : base
    } catch {
      if decoder.reachedKind, checkErrors.contains(error.code) { return 50 }
      return decoder.reachedKind ? 10 : 0
    }
  }

  /// `craft --bad-check`: every check's bytes inverted.
  func spoilChecks(_ bytes: inout [UInt8], of message: SpecMessage) {
    guard spec.encoding == .binary else { return }
    let decoded: SpecDecoded? = bytes.withUnsafeBytes { buffer in
      var decoder = SpecDecoder(program: self, bytes: SpecBytes(buffer))
      return try? decoder.decode()
    }
    // Where the checks are: from the decode of the good frame.
    guard let decoded else { return }
    var ranges: [Range<Int>] = []
    collectCheckRanges(decoded.fields, message: message, into: &ranges)
    for range in ranges {
      for index in range where index < bytes.count { bytes[index] ^= 0xFF }
    }
  }

  private func collectCheckRanges(
    _ nodes: [DissectionNode], message: SpecMessage, into ranges: inout [Range<Int>]
  ) {
    let layout =
      spec.header
      + (message.kind >= 0 && message.kind < spec.messages.count ? spec.messages[message.kind].fields : [])
      + spec.trailer
    for field in layout {
      guard case .check = field.role, let node = nodes.first(where: { $0.name == field.name }) else {
        continue
      }
      if !ranges.contains(node.range) { ranges.append(node.range) }
    }
  }
}

extension SpecValue {
  var isCheck: Bool {
    if case .check = self { return true }
    return false
  }
}
