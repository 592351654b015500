import PacketKit

/// Makes a `KsProgram` of a compiled plan: the message kinds the
/// `-pktbench` section's `message` names (the cases of a switch, or the
/// values of an enum; without it, the format is one message), what is
/// checked first, and what an unknown kind is.
struct KsMessagePlanner {
  let compiler: KsCompiler
  let plan: KsPlan
  let document: KsyDocument

  func program() throws(SpecLoadError) -> KsProgram {
    let root = plan.root
    let keys = document.keys
    var kinds: [KsMessageKind] = []
    var messageSlot = -1
    var enumSelector: KsCode?
    var discriminator: (type: Int, slot: Int)?
    var discriminatorPath: KsCode?
    var frameSizes: [Int64] = []
    var unknown = SpecUnknownMessage(
      name: "unknown", warning: "unknown-message", text: nil, bodyField: "payload")
    if let message = keys.message {
      let (code, type) = try KsExpressionCompiler(compiler, type: 0).compile(message, underscore: nil)
      if case .slot(let slot) = code, let attribute = root.attribute(slot: slot), !attribute.isInstance,
        case .switched(let on, _, let cases, let fallback, _) = attribute.read
      {
        messageSlot = slot
        for read in cases.map(\.read) + (fallback.map { [$0] } ?? []) {
          guard case .user(let caseType, _, _) = read else {
            throw SpecLoadError(
              file: plan.file, line: message.line, key: "message",
              text: "'\(message.text)' switches to a type that is not a user type; each message kind is one")
          }
          guard !kinds.contains(where: { $0.type == caseType }) else { continue }
          let typePlan = plan.types[caseType]
          kinds.append(
            KsMessageKind(
              name: typePlan.name, type: caseType, value: nil, keys: typePlan.message,
              summary: typePlan.message.summary ?? (typePlan.doc.isEmpty ? typePlan.name : typePlan.doc)))
        }
        if let found = attribute.keys.unknown { unknown = found }
        if case .streamSize(.stream(.this)) = on {
          frameSizes = cases.compactMap {
            if case .integer(let size) = $0.match { return size }; return nil
          }
          if fallback != nil { frameSizes = [] }
        } else if KsCompiler.isPath(on) {
          discriminatorPath = on
          discriminator = staticSlot(on, in: 0)
        }
      } else if case .enumeration(let enumeration) = type, KsCompiler.isPath(code) {
        enumSelector = code
        discriminator = staticSlot(code, in: 0)
        for value in plan.enums[enumeration].values {
          kinds.append(
            KsMessageKind(
              name: value.id, type: nil, value: value.value, keys: KsyMessageKeys(),
              summary: value.doc.isEmpty ? value.shown : value.doc))
        }
      } else {
        throw SpecLoadError(
          file: plan.file, line: message.line, key: "message",
          text:
            "'\(message.text)' is neither a seq attribute of the root switching on types nor an enum field")
      }
    }
    if kinds.isEmpty {
      kinds.append(
        KsMessageKind(
          name: root.name, type: nil, value: nil, keys: root.message,
          summary: root.message.summary ?? (root.doc.isEmpty ? document.root.title ?? root.name : root.doc)))
    }
    var early: [KsEarlyCheck] = []
    var offset = 0
    _ = collectEarly(type: 0, offset: &offset, path: [0], into: &early)
    return KsProgram(
      plan: plan, keys: keys, name: root.name, title: document.root.title ?? root.name,
      messageSlot: messageSlot,
      kinds: kinds, enumSelector: enumSelector, unknown: unknown, discriminator: discriminator,
      discriminatorPath: discriminatorPath, frameSizes: frameSizes, early: early, measures: measures())
  }

  /// The length and count fields, from every `size:` and `repeat-expr:`.
  private func measures() -> [KsMeasure] {
    var found: [KsMeasure] = []
    for (index, type) in plan.types.enumerated() {
      for attribute in type.seq {
        if case .expression(let code) = attribute.repeatKind,
          let (path, scale, offset) = KsMeasure.linear(code),
          let target = staticSlot(path, in: index)
        {
          found.append(
            KsMeasure(
              target: target, source: (index, attribute.slot), path: path, scale: scale, offset: offset,
              counts: true))
        }
        guard !attribute.isRepeated, let size = attribute.read.size, case .expression(let code) = size.kind,
          let (path, scale, offset) = KsMeasure.linear(code), let target = staticSlot(path, in: index)
        else { continue }
        found.append(
          KsMeasure(
            target: target, source: (index, attribute.slot), path: path, scale: scale, offset: offset,
            counts: false))
      }
    }
    return found
  }

  /// The type and slot a path names, followed statically.
  private func staticSlot(_ code: KsCode, in type: Int) -> (type: Int, slot: Int)? {
    switch code {
    case .slot(let slot): return (type, slot)
    case .member(let base, let slot):
      guard let owner = staticObject(base, in: type) else { return nil }
      return (owner, slot)
    default: return nil
    }
  }

  /// The one type an object expression has.
  private func staticObject(_ code: KsCode, in type: Int) -> Int? {
    switch code {
    case .this: return type
    case .parent(let base):
      guard let inner = staticObject(base, in: type), compiler.parents[inner].count == 1 else { return nil }
      return compiler.parents[inner].first
    case .root: return 0
    case .slot, .member:
      guard let (owner, slot) = staticSlot(code, in: type),
        let attribute = plan.types[owner].attribute(slot: slot),
        !attribute.isRepeated, case .user(let inner) = attribute.type
      else { return nil }
      return inner
    default: return nil
    }
  }

  /// The fixed bytes at the start of the frame, through nested types
  /// read in place, up to the first attribute whose size is not fixed.
  /// False once such an attribute is met.
  private func collectEarly(type: Int, offset: inout Int, path: [Int], into early: inout [KsEarlyCheck])
    -> Bool
  {
    for attribute in plan.types[type].seq {
      guard attribute.condition == nil, !attribute.isRepeated else { return false }
      switch attribute.read {
      case .contents(let bytes):
        early.append(
          KsEarlyCheck(
            id: attribute.id, offset: offset, bytes: bytes, code: attribute.keys.error ?? "bad-contents"))
        offset += bytes.count
      case .integer(let bytes, _, let endian):
        if let valid = attribute.valid, case .constant(.integer(let value))? = valid.equal, endian != .object,
          valid.min == nil, valid.max == nil, valid.anyOf.isEmpty, valid.expr == nil, attribute.errorAt == nil
        {
          var raw: [UInt8] = []
          for index in 0..<bytes {
            let shift = endian == .little ? index * 8 : (bytes - 1 - index) * 8
            raw.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> UInt64(shift)))
          }
          early.append(
            KsEarlyCheck(
              id: attribute.id, offset: offset, bytes: raw, code: attribute.keys.error ?? "not-valid"))
        }
        offset += bytes
      case .float(let bytes, _):
        offset += bytes
      case .user(let inner, let arguments, nil) where arguments.isEmpty && !path.contains(inner):
        if !collectEarly(type: inner, offset: &offset, path: path + [inner], into: &early) { return false }
      default:
        return false
      }
    }
    return true
  }
}
