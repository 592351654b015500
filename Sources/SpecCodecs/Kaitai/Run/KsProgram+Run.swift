import PacketKit

/// A frame decoded by the interpreter, before the codec adapter wraps it.
struct SpecDecoded {
  var message: SpecMessage
  var name: String
  var fields: [DissectionNode]
  var diagnostics: [Diagnostic]
}

extension KsProgram {
  /// Runs `body` with a runner on an arena from the pool, given back after.
  func withRunner<Result>(
    _ bytes: UnsafeRawBufferPointer, mode: KsRunner.Mode,
    _ body: (inout KsRunner) throws(DecodeError) -> Result
  ) throws(DecodeError) -> Result {
    var runner = KsRunner(program: self, input: bytes, arena: pool.take(), mode: mode)
    defer {
      var arena = KsArena()
      swap(&arena, &runner.arena)
      pool.give(arena)
    }
    return try body(&runner)
  }

  func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> SpecDecoded {
    try withRunner(bytes, mode: .build) { (runner) throws(DecodeError) -> SpecDecoded in
      let root = try runner.readFrame()
      try runner.resolveEnumKind(root)
      let kind = runner.kind
      let message = SpecMessage(
        kind: kind, tree: runner.tree(of: root), extra: runner.extra.map { runner.bytes($0) } ?? [])
      return SpecDecoded(
        message: message, name: kindName(kind), fields: runner.nodes(of: root),
        diagnostics: runner.diagnostics)
    }
  }

  func kindName(_ kind: Int) -> String {
    kind >= 0 && kind < kinds.count ? kinds[kind].name : unknown.name
  }

  /// `FastFrameCodec.cleanKind`: the kind of a frame that decodes with no
  /// diagnostic, found by the same reading, which builds no tree.
  func cleanKind(_ bytes: UnsafeRawBufferPointer, schemaIndex: [Int]) -> Int? {
    let kind: Int? = try? withRunner(bytes, mode: .clean) { (runner) throws(DecodeError) -> Int in
      let root = try runner.readFrame()
      try runner.resolveEnumKind(root)
      return runner.kind
    }
    guard let kind, kind >= 0, kind < schemaIndex.count, schemaIndex[kind] >= 0 else { return nil }
    return schemaIndex[kind]
  }

  /// `probe`'s score: 0 when the frame is not this protocol's (its fixed
  /// bytes, size or start say so); 10 when it decodes only as the unknown
  /// message or its body is damaged; 50 when only its check is wrong; a
  /// clean frame its kind's `-pktbench-probe` (default 100 with a verified
  /// check, else 80), 30 less with warnings.
  func probe(_ bytes: UnsafeRawBufferPointer) -> Int {
    var reached = false
    do {
      let (kind, warned) = try withRunner(bytes, mode: .probe) {
        (runner) throws(DecodeError) -> (Int, Bool) in
        defer { reached = runner.reachedKind }
        let root = try runner.readFrame()
        try runner.resolveEnumKind(root)
        return (runner.kind, runner.warnings > 0)
      }
      guard kind >= 0 else { return 10 }
      let base = kinds[kind].keys.probe ?? (hasCheck ? 100 : 80)
      return warned && !hasCheck ? max(10, base - 30) : base
    } catch {
      if reached, checkErrors.contains(error.code) { return 50 }
      return reached ? 10 : 0
    }
  }
}

extension KsRunner {
  /// Kinds told by an enum field: its value's kind (unknown: the unknown message).
  mutating func resolveEnumKind(_ root: Int32) throws(DecodeError) {
    guard let selector = program.enumSelector else {
      if program.messageSlot < 0 { kind = 0 }
      return
    }
    reachedKind = true
    let value = try eval(selector, root, KsLocal())
    guard case .integer(let raw) = value, let found = program.kindByValue[raw] else {
      kind = -1
      let range = try pathRange(selector, object: root, local: KsLocal())
      let (unknown, shown) = (program.unknown, describe(value, hex: false))
      try warn(unknown.warning, range) { unknown.text ?? "\(shown) names no message kind" }
      return
    }
    kind = found
  }
}
