import PacketKit

/// A frame decoded by the interpreter, before the adapter wraps it.
struct SpecDecoded {
  var message: SpecMessage
  var name: String
  var fields: [DissectionNode]
  var diagnostics: [Diagnostic]
}

/// Decodes one binary frame by walking the spec's layout: fixed bytes
/// first, then the kind (by frame length), the header, the body's extent
/// (from a length field or the frame's end), the kind (by a header field),
/// the message's own fields, the trailer, and last the checks.
/// Structural damage throws a `DecodeError` at its offset; everything
/// else is a diagnostic.
struct SpecDecoder {
  let program: SpecProgram
  let bytes: SpecBytes
  var spec: Spec { program.spec }
  private(set) var diagnostics: [Diagnostic] = []
  /// Length and count fields read so far (a frame has a few at most):
  /// kept inline, so reading them allocates nothing.
  private var measures = SpecMeasures()
  /// The discriminator's value and bytes, once read.
  private var discriminant: (value: UInt64, range: Range<Int>)?
  /// The field governing the body's extent, once read.
  private var bodyLength: (field: SpecFieldPlan, value: UInt64, range: Range<Int>)?
  /// Checks read, verified once every field is: the index of the check's
  /// node among the top-level nodes, and where it is.
  private var checks = SpecPendingChecks()
  /// Whether the last error thrown was running past the end of a region
  /// (which a body's size-mismatch rule may turn into something else).
  private var ranPast = false
  /// While the header is read: a length or count above its `max`, judged
  /// once the whole header is there (a frame too short for its header is
  /// `truncated` first, as a receiver reading it whole would find).
  private var readingHeader = false
  private var headerExcess: DecodeError?
  /// Whether the frame got as far as its kind: damage after that is in
  /// its body (`probe` scores such a frame above one that is not ours).
  private(set) var reachedKind = false

  /// False for `probe`: every check runs, but no node or value is built
  /// (it reads only whether the frame decodes, as what, with what severity).
  let building: Bool

  init(program: SpecProgram, bytes: SpecBytes, building: Bool = true) {
    self.program = program
    self.bytes = bytes
    self.building = building
  }

  // `read` gives back no node when not building: a placeholder would be
  // copied and destroyed per field.

  // MARK: The frame

  mutating func decode() throws(DecodeError) -> SpecDecoded {
    try checkEarlyFixed()
    var kind = 0
    if spec.discriminator == .frameLength { kind = try kindByLength() }

    let headerPlan = program.headerPlan
    // `probe` builds nothing: no node, no value, no allocation. It counts
    // the nodes a decode would have, for the checks' node indices.
    let building = self.building
    var nodes: [DissectionNode] = []
    var nodeCount = 0
    if building { nodes.reserveCapacity(headerPlan.count + 8) }
    // Where top-level fields lie, kept only for a check that names them.
    let keepSpans = program.checksNameFields
    var spans: [(name: String, range: Range<Int>)] = []
    var header: [SpecValue] = []
    if building { header.reserveCapacity(headerPlan.count) }
    var offset = 0
    readingHeader = true
    for plan in headerPlan {
      let start = offset
      let (value, node) = try read(plan, at: &offset, end: bytes.count, nodeIndex: nodeCount)
      nodeCount += 1
      if building {
        header.append(value)
        if let node { nodes.append(node) }
      }
      if keepSpans { spans.append((plan.name, start..<offset)) }
    }
    readingHeader = false
    if let headerExcess { throw headerExcess }
    let headerEnd = offset
    let bodyEnd = try self.bodyEnd(after: headerEnd)

    if case .field = spec.discriminator {
      kind =
        discriminant.flatMap { program.kind(for: Int64(bitPattern: $0.value)) } ?? SpecMessage.unknownKind
      if kind == SpecMessage.unknownKind { try unknownKind() }
    }

    reachedKind = true
    var body: [SpecValue] = []
    var extra: [UInt8] = []
    if kind != SpecMessage.unknownKind {
      let message = program.messagePlans[kind]
      let before = diagnostics
      let firstBodyNode = nodes.count
      let firstBodyNodeCount = nodeCount
      let checksBefore = checks.count
      diagnostics = []
      var cursor = headerEnd
      var failure: DecodeError?
      ranPast = false
      do {
        if building { body.reserveCapacity(message.fields.count) }
        for plan in message.fields {
          let start = cursor
          let (value, node) = try read(plan, at: &cursor, end: bodyEnd, nodeIndex: nodeCount)
          nodeCount += 1
          if building {
            body.append(value)
            if let node { nodes.append(node) }
          }
          if keepSpans { spans.append((plan.name, start..<cursor)) }
        }
      } catch {
        guard ranPast else { throw error }
        failure = error
      }
      if failure != nil || cursor != bodyEnd {
        switch message.sizeMismatch {
        case .error(let code):
          throw sizeError(code, failure, message: message.name, fieldsEnd: cursor, bodyEnd: bodyEnd)
        case .unknown(let warning, let text):
          nodes.removeSubrange(firstBodyNode...)
          nodeCount = firstBodyNodeCount
          if keepSpans { spans.removeSubrange(headerPlan.count...) }
          checks.removeSubrange(checksBefore...)
          body = []
          diagnostics = before
          let range = bodyLength?.range ?? headerEnd..<bodyEnd
          let name = message.name
          diagnostics.append(
            .warning(
              warning, text ?? "\(name)'s fields do not fill its body (\(bodyEnd - headerEnd) bytes)",
              range: range))
          kind = SpecMessage.unknownKind
        case .keep(let field, let warning, let text):
          guard failure == nil else {
            throw sizeError("bad-length", failure, message: message.name, fieldsEnd: cursor, bodyEnd: bodyEnd)
          }
          diagnostics = before + diagnostics
          let range = cursor..<bodyEnd
          diagnostics.append(
            .warning(
              warning, text ?? "\(range.count) bytes follow \(message.name)'s fields; kept as \(field)",
              range: range))
          nodeCount += 1
          if building {
            extra = bytes.copy(range)
            nodes.append(DissectionNode(field, .bytes(extra), range: range))
          }
        }
      } else {
        diagnostics = before + diagnostics
      }
    }
    if kind == SpecMessage.unknownKind, building {
      extra = bytes.copy(headerEnd..<bodyEnd)
      if !extra.isEmpty {
        nodes.append(
          DissectionNode(
            spec.unknownMessage?.bodyField ?? "payload", .bytes(extra), range: headerEnd..<bodyEnd))
      }
    }

    var trailer: [SpecValue] = []
    var cursor = bodyEnd
    for plan in program.trailerPlan {
      let start = cursor
      let (value, node) = try read(plan, at: &cursor, end: bytes.count, nodeIndex: nodeCount)
      nodeCount += 1
      if building {
        trailer.append(value)
        if let node { nodes.append(node) }
      }
      if keepSpans { spans.append((plan.name, start..<cursor)) }
    }
    if cursor != bytes.count {
      let (end, count) = (cursor, bytes.count)
      throw DecodeError(code: "trailing-bytes", offset: end) {
        .init("\(count - end) bytes follow the frame's last field at offset \(end)", found: "\(count) bytes")
      }
    }

    var message = SpecMessage(kind: kind, header: header, body: body, trailer: trailer, extra: extra)
    if !checks.isEmpty { try verifyChecks(&message, &nodes, spans) }
    let name =
      kind == SpecMessage.unknownKind
      ? (spec.unknownMessage?.name ?? "unknown") : program.messagePlans[kind].name
    return SpecDecoded(message: message, name: name, fields: nodes, diagnostics: diagnostics)
  }

  /// Fixed bytes at known offsets, on the bytes there are.
  private func checkEarlyFixed() throws(DecodeError) {
    for fixed in program.earlyFixed {
      for (index, expected) in fixed.bytes.enumerated() {
        let offset = fixed.offset + index
        guard offset < bytes.count else { return }
        let found = bytes[offset]
        guard found == expected else {
          let (name, width) = (fixed.name, fixed.bytes.count)
          throw DecodeError(code: fixed.error, offset: offset) {
            .init(
              width == 1
                ? "\(name) at offset \(offset) is 0x\(Hex.spaced([found])); expected 0x\(Hex.spaced([expected]))"
                : "\(name) byte at offset \(offset) is 0x\(Hex.spaced([found])); expected 0x\(Hex.spaced([expected]))",
              expected: Hex.spaced([expected]), found: Hex.spaced([found]))
          }
        }
      }
    }
  }

  private func kindByLength() throws(DecodeError) -> Int {
    if let kind = program.kind(for: Int64(bytes.count)) { return kind }
    let count = bytes.count
    let offset = min(count, program.longestFrame)
    let lengths = spec.messages.compactMap { message in message.when.map { "\($0) (\(message.name))" } }
    let name = spec.name
    throw DecodeError(code: "bad-length", offset: offset) {
      .init(
        "frame is \(count) bytes; a \(name) frame is \(SpecNode.alternatives(lengths))",
        expected: SpecNode.alternatives(lengths), found: "\(count) bytes")
    }
  }

  /// Where the message's body ends: as a length field says (the frame
  /// must then end where it says), or before the trailer.
  private func bodyEnd(after headerEnd: Int) throws(DecodeError) -> Int {
    let count = bytes.count
    let trailer = program.trailerSize
    guard let length = bodyLength, case .length(let target, _, let code) = length.field.role else {
      guard count - trailer >= headerEnd else {
        let available = max(0, count - headerEnd)
        throw DecodeError(code: "truncated", offset: headerEnd) {
          .init(
            "the trailer needs \(trailer) bytes at offset \(headerEnd), but only \(available) remain",
            expected: "\(trailer) bytes", found: "\(available) bytes")
        }
      }
      return count - trailer
    }
    let total =
      target == .frame ? Int(clamping: length.value) : headerEnd + Int(clamping: length.value) + trailer
    let name = length.field.name
    let value = length.value
    let fieldOffset = length.range.lowerBound
    guard total == count, total - trailer >= headerEnd else {
      throw DecodeError(code: code, offset: total < headerEnd + trailer ? fieldOffset : min(count, total)) {
        .init(
          "frame is \(count) bytes but \(name) at offset \(fieldOffset) says \(value), so \(total) were expected",
          expected: "\(total) bytes", found: "\(count) bytes")
      }
    }
    return total - trailer
  }

  private mutating func unknownKind() throws(DecodeError) {
    let (value, range) = discriminant ?? (0, 0..<0)
    guard let unknown = spec.unknownMessage else {
      throw DecodeError(code: "unknown-message", offset: range.lowerBound) {
        .init("no message kind has the value \(value) at offset \(range.lowerBound)", found: String(value))
      }
    }
    diagnostics.append(
      .warning(
        unknown.warning,
        unknown.text ?? "the value \(value) at offset \(range.lowerBound) names no message kind", range: range
      ))
  }

  private func sizeError(
    _ code: String, _ failure: DecodeError?, message: String, fieldsEnd: Int, bodyEnd: Int
  )
    -> DecodeError
  {
    if let length = bodyLength {
      let (name, value, offset) = (length.field.name, length.value, length.range.lowerBound)
      return DecodeError(code: code, offset: offset) {
        .init(
          "\(message) does not take the \(value) bytes \(name) at offset \(offset) gives it",
          found: String(value))
      }
    }
    if let failure { return failure }
    let extra = bodyEnd - fieldsEnd
    return DecodeError(code: code, offset: fieldsEnd) {
      .init("\(extra) bytes follow \(message)'s fields at offset \(fieldsEnd)", found: "\(extra) bytes")
    }
  }

  // MARK: Fields

  private mutating func need(_ count: Int, _ name: String, at offset: Int, end: Int) throws(DecodeError) {
    guard count >= 0, end - offset >= count else {
      ranPast = true
      let remaining = max(0, end - offset)
      throw DecodeError(code: "truncated", offset: offset) {
        .init(
          "\(name) needs \(count == 1 ? "1 byte" : "\(count) bytes") at offset \(offset), but only \(remaining) remain",
          expected: "\(count) bytes", found: "\(remaining) bytes")
      }
    }
  }

  /// One field at `offset` (moved past it) within `end`: its value and node.
  mutating func read(_ plan: SpecFieldPlan, at offset: inout Int, end: Int, nodeIndex: Int)
    throws(DecodeError)
    -> (SpecValue, DissectionNode?)
  {
    let start = offset
    let integerWidth = plan.integerWidth
    if integerWidth > 0 {
      let size = integerWidth / 8
      try need(size, plan.name, at: offset, end: end)
      let bits = SpecInteger.read(bytes, at: offset, width: integerWidth, order: plan.integerOrder)
      offset += size
      return try integer(
        plan, bits, width: integerWidth, signed: plan.integerSigned, range: start..<offset,
        nodeIndex: nodeIndex)
    }
    switch plan.type {
    case .integer(let width, let signed, let order):
      let size = width / 8
      try need(size, plan.name, at: offset, end: end)
      let bits = SpecInteger.read(bytes, at: offset, width: width, order: order)
      offset += size
      return try integer(
        plan, bits, width: width, signed: signed, range: start..<offset, nodeIndex: nodeIndex)
    case .float(let width, let order):
      try need(width / 8, plan.name, at: offset, end: end)
      let bits = SpecInteger.read(bytes, at: offset, width: width, order: order)
      offset += width / 8
      let number =
        width == 32 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
      checkRange(plan, number, start..<offset)
      return (
        .float(bits), DissectionNode(plan.name, .number(number), unit: plan.unit, range: start..<offset)
      )
    case .bytes(let size), .text(let size):
      let count = try self.size(size, at: offset, end: end)
      try need(count, plan.name, at: offset, end: end)
      let range = offset..<offset + count
      offset += count
      if !building, case .bytes = plan.type {
        try checkConstant(plan, bytes.slice(range), range)
        return (.unsigned(0), nil)
      }
      let raw = bytes.copy(range)
      if case .bytes = plan.type {
        try checkConstant(plan, bytes.slice(range), range)
        return (.bytes(raw), DissectionNode(plan.name, .bytes(raw), unit: plan.unit, range: range))
      }
      let text = String(decoding: raw, as: UTF8.self)
      if String(validating: raw, as: UTF8.self) == nil {
        diagnostics.append(
          .warning(
            "invalid-utf8", "\(plan.name) at offset \(range.lowerBound) is not valid UTF-8", range: range))
      }
      return (.text(raw), DissectionNode(plan.name, .string(text), unit: plan.unit, range: range))
    case .group:
      let children = plan.children
      if !building {
        for child in children { _ = try read(child, at: &offset, end: end, nodeIndex: -1) }
        return (.unsigned(0), nil)
      }
      var values: [SpecValue] = []
      var nodes: [DissectionNode] = []
      values.reserveCapacity(children.count)
      nodes.reserveCapacity(children.count)
      for child in children {
        let (value, node) = try read(child, at: &offset, end: end, nodeIndex: -1)
        values.append(value)
        if let node { nodes.append(node) }
      }
      return (.group(values), DissectionNode(group: plan.name, range: start..<offset, children: nodes))
    case .repeated(let count, _):
      let element = plan.children
      let elementSize = plan.elementSize
      let total: Int
      switch count {
      case .fixed(let fixed): total = fixed
      case .countField(let name): total = Int(clamping: measure(name) ?? 0)
      case .rest: total = elementSize > 0 ? (end - offset) / elementSize : 0
      }
      if elementSize > 0, total > (end - offset) / elementSize {
        try need(total * elementSize, plan.name, at: offset, end: end)
      }
      guard total <= 65536 else {
        throw DecodeError(code: "bad-count", offset: start) {
          .init("\(plan.name) has \(total) elements; at most 65536 are read")
        }
      }
      var elements: [[SpecValue]] = []
      var nodes: [DissectionNode] = []
      for index in 0..<total {
        let elementStart = offset
        var values: [SpecValue] = []
        var children: [DissectionNode] = []
        for child in element {
          let (value, node) = try read(child, at: &offset, end: end, nodeIndex: -1)
          values.append(value)
          if let node { children.append(node) }
        }
        elements.append(values)
        nodes.append(
          DissectionNode(
            group: DissectionNode.elementName(index), range: elementStart..<offset, children: children))
      }
      return (
        .list(elements),
        DissectionNode(group: plan.name, shape: .array, range: start..<offset, children: nodes)
      )
    case .json:
      throw DecodeError(code: "spec", offset: start) { .init("a JSON field in a binary layout") }
    }
  }

  private func size(_ size: SpecSize, at offset: Int, end: Int) throws(DecodeError) -> Int {
    switch size {
    case .fixed(let count): return count
    case .rest: return end - offset
    case .lengthField(let name): return Int(clamping: measure(name) ?? UInt64(end - offset))
    }
  }

  private func measure(_ name: String) -> UInt64? {
    measures.last(named: name)
  }

  private mutating func integer(
    _ plan: SpecFieldPlan, _ bits: UInt64, width: Int, signed: Bool, range: Range<Int>, nodeIndex: Int
  ) throws(DecodeError) -> (SpecValue, DissectionNode?) {
    let name = plan.name
    let offset = range.lowerBound
    var warnUnknown = true
    switch plan.integerRole {
    case .value:
      break
    case .fixed:
      let expected = plan.constant
      if bits != expected, case .fixed(_, let code) = plan.role {
        let display = plan.display
        throw DecodeError(code: code, offset: offset) {
          .init(
            "\(name) at offset \(offset) is \(Self.show(bits, display)); expected \(Self.show(expected, display))",
            expected: Self.show(expected, display), found: Self.show(bits, display))
        }
      }
    case .expected:
      let expected = plan.constant
      if bits != expected, case .expected(_, let warning) = plan.role {
        diagnostics.append(
          .warning(
            warning,
            "\(name) at offset \(offset) is \(Self.show(bits, .hex, width: width)); expected "
              + Self.show(expected, .hex, width: width), range: range))
      }
    case .measure:
      if let max = plan.measureMax, bits > max {
        let code = plan.measureError
        let excess = DecodeError(code: code, offset: offset) {
          .init(
            "\(name) at offset \(offset) is \(bits); at most \(max) is allowed", expected: "0…\(max)",
            found: String(bits))
        }
        guard readingHeader else { throw excess }
        if headerExcess == nil { headerExcess = excess }
      }
      measures.append(name, bits)
      if plan.sizesBody { bodyLength = (plan, bits, range) }
    case .discriminator:
      discriminant = (bits, range)
      warnUnknown = false
    case .check:
      guard case .check(let check) = plan.role else { break }
      checks.append((nodeIndex, plan, check, bits, range))
      return (.check(variant: 0), DissectionNode(name, .unsigned(bits), unit: plan.unit, range: range))
    }
    // A length or count is what the content makes it: the message keeps
    // none (encode writes it anew), so a crafted message and its decode agree.
    let isMeasure = plan.isMeasure
    let numeric: Double = signed ? Double(SpecInteger.signed(bits, width: width)) : Double(bits)
    checkRange(plan, numeric, range)
    if !building {
      if warnUnknown, let enumeration = plan.enumeration,
        !plan.isKnown(enumeration, signed ? SpecInteger.signed(bits, width: width) : Int64(bitPattern: bits))
      {
        diagnostics.append(.warning("unknown-enum", "", range: range))
      }
      if !plan.flags.isEmpty, bits & ~plan.flagMask != 0 {
        diagnostics.append(.warning("unknown-flags", "", range: range))
      }
      return (.unsigned(bits), nil)
    }
    let value: SpecValue =
      isMeasure ? .unsigned(0) : signed ? .signed(SpecInteger.signed(bits, width: width)) : .unsigned(bits)
    if let enumeration = plan.enumeration {
      let raw = signed ? SpecInteger.signed(bits, width: width) : Int64(bitPattern: bits)
      let caseName = plan.enumName(enumeration, raw: raw, width: width)
      if warnUnknown, !plan.isKnown(enumeration, raw) {
        diagnostics.append(
          .warning(
            "unknown-enum",
            "\(name) \(raw) at offset \(offset) is unknown; known are "
              + enumeration.cases.map { "\($0.name) (\($0.value))" }.joined(separator: ", "), range: range))
      }
      return (
        value, DissectionNode(name, .enumeration(name: caseName, raw: raw), unit: plan.unit, range: range)
      )
    }
    if !plan.flags.isEmpty {
      var known: UInt64 = 0
      var children: [DissectionNode] = []
      children.reserveCapacity(plan.flags.count)
      for flag in plan.flags {
        known |= flag.mask
        children.append(DissectionNode(flag.name, .bool(bits & flag.mask != 0), range: range))
      }
      if bits & ~known != 0 {
        diagnostics.append(
          .warning(
            "unknown-flags",
            "\(name) at offset \(offset) has bits 0x\(String(bits & ~known, radix: 16)) no flag names",
            range: range))
      }
      return (value, DissectionNode(group: name, range: range, children: children))
    }
    let shown: FieldValue = signed ? .integer(SpecInteger.signed(bits, width: width)) : .unsigned(bits)
    return (value, DissectionNode(name, shown, unit: plan.unit, range: range))
  }

  /// A fixed or expected byte string.
  private mutating func checkConstant(
    _ field: SpecFieldPlan, _ raw: UnsafeRawBufferPointer, _ range: Range<Int>
  )
    throws(DecodeError)
  {
    switch field.role {
    case .fixed(.bytes(let expected), let code):
      for index in raw.indices where index < expected.count && raw[index] != expected[index] {
        let (offset, found, wanted, name) = (
          range.lowerBound + index, raw[index], expected[index], field.name
        )
        throw DecodeError(code: code, offset: offset) {
          .init(
            "\(name) byte at offset \(offset) is 0x\(Hex.spaced([found])); expected 0x\(Hex.spaced([wanted]))",
            expected: Hex.spaced([wanted]), found: Hex.spaced([found]))
        }
      }
    case .expected(.bytes(let expected), let warning) where !raw.elementsEqual(expected):
      let found = Hex.spaced(raw)
      diagnostics.append(
        .warning(
          warning,
          "\(field.name) at offset \(range.lowerBound) is \(found); expected \(Hex.spaced(expected))",
          range: range))
    default: break
    }
  }

  private mutating func checkRange(_ field: SpecFieldPlan, _ number: Double, _ range: Range<Int>) {
    guard let allowed = field.range, !allowed.contains(number) else { return }
    let unit = field.unit.map { " \($0)" } ?? ""
    let low = JSONWriter.formatNumber(allowed.lowerBound)
    let high = JSONWriter.formatNumber(allowed.upperBound)
    diagnostics.append(
      .warning(
        "out-of-range",
        "\(field.name) \(JSONWriter.formatNumber(number))\(unit) at offset \(range.lowerBound) is outside \(low)…\(high)\(unit)",
        range: range))
  }

  static func show(_ bits: UInt64, _ display: SpecDisplay, width: Int = 8) -> String {
    guard display == .hex else { return String(bits) }
    var bytes: [UInt8] = []
    SpecInteger.append(bits, width: max(8, width), order: .big, to: &bytes)
    return "0x" + Hex.compact(bytes).uppercased()
  }

  // MARK: Checks

  /// Each check against its covered bytes: the first variant that matches
  /// is the frame's; none is damage; more than one is said in a note.
  private mutating func verifyChecks(
    _ message: inout SpecMessage, _ nodes: inout [DissectionNode],
    _ spans: [(name: String, range: Range<Int>)]
  ) throws(DecodeError) {
    var reports: [(index: Int, node: DissectionNode)] = []
    for index in 0..<checks.count {
      let pending = checks[index]
      let from = pending.check.from.flatMap { name in spans.first { $0.name == name }?.range.lowerBound } ?? 0
      let through =
        pending.check.through.flatMap { name in spans.first { $0.name == name }?.range.upperBound }
        ?? pending.range.lowerBound
      let covered = from < through ? bytes.slice(from..<through) : bytes.slice(0..<0)
      // The first variant that matches, and whether another does too,
      // without an array per frame.
      var first: Int?
      var ambiguous = false
      for (index, variant) in pending.check.variants.enumerated()
      where variant.algorithm.compute(covered) == pending.value {
        if first == nil { first = index } else { ambiguous = true }
      }
      guard let variant = first else {
        let results = pending.check.variants.map { $0.algorithm.compute(covered) }
        let offset = pending.range.lowerBound
        let found = pending.value
        let width = (pending.range.count) * 8
        let expected = zip(results, pending.check.variants).map {
          "\(Self.show($0.0, .hex, width: width)) (\($0.1.algorithm.label))"
        }.joined(separator: " or ")
        throw DecodeError(code: pending.check.error, offset: offset) {
          .init(
            "\(pending.field.name) at offset \(offset) is \(Self.show(found, .hex, width: width)); expected \(expected)",
            expected: expected, found: Self.show(found, .hex, width: width))
        }
      }
      guard building else {
        // As decode says it, so `cleanKind` knows the frame is not clean.
        if ambiguous { diagnostics.append(.note("check-ambiguous", "", range: pending.range)) }
        continue
      }
      setVariant(&message, check: pending.field.name, variant: variant)
      if ambiguous {
        let names = pending.check.variants.indices.filter {
          pending.check.variants[$0].algorithm.compute(covered) == pending.value
        }.map { pending.check.variants[$0].name }
        diagnostics.append(
          .note(
            "check-ambiguous",
            "\(pending.field.name) \(Self.show(pending.value, .hex, width: pending.range.count * 8)) is valid under "
              + "\(names.joined(separator: " and ")); reported as \(names[0])", range: pending.range))
      }
      if let report = pending.check.reportField, pending.node >= 0 {
        let chosen = pending.check.variants[variant].name
        reports.append(
          (
            pending.node + 1,
            DissectionNode(report, .enumeration(name: chosen, raw: Int64(variant)), range: pending.range)
          ))
      }
    }
    for report in reports.reversed() where report.index <= nodes.count {
      nodes.insert(report.node, at: report.index)
    }
  }

  private func setVariant(_ message: inout SpecMessage, check name: String, variant: Int) {
    if let index = program.headerPlan.firstIndex(where: { $0.name == name }) {
      message.header[index] = .check(variant: variant)
    } else if message.kind >= 0,
      let index = program.messagePlans[message.kind].fields.firstIndex(where: { $0.name == name }),
      index < message.body.count
    {
      message.body[index] = .check(variant: variant)
    } else if let index = program.trailerPlan.firstIndex(where: { $0.name == name }) {
      message.trailer[index] = .check(variant: variant)
    }
  }

}

/// The length and count fields a frame has read, by name: four inline
/// (a frame has a few at most), more in an array.
struct SpecMeasures {
  private var names: (String?, String?, String?, String?) = (nil, nil, nil, nil)
  private var values: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
  private var count = 0
  private var more: [(name: String, value: UInt64)] = []

  mutating func append(_ name: String, _ value: UInt64) {
    switch count {
    case 0: (names.0, values.0) = (name, value)
    case 1: (names.1, values.1) = (name, value)
    case 2: (names.2, values.2) = (name, value)
    case 3: (names.3, values.3) = (name, value)
    default: more.append((name, value))
    }
    count += 1
  }

  /// The value of the last one read called `name`.
  func last(named name: String) -> UInt64? {
    if let found = more.last(where: { $0.name == name }) { return found.value }
    if count > 3, names.3 == name { return values.3 }
    if count > 2, names.2 == name { return values.2 }
    if count > 1, names.1 == name { return values.1 }
    if count > 0, names.0 == name { return values.0 }
    return nil
  }
}

/// Checks read and not yet verified: the first inline (a frame has one,
/// as a rule), more in an array.
struct SpecPendingChecks {
  typealias Pending = (node: Int, field: SpecFieldPlan, check: SpecCheck, value: UInt64, range: Range<Int>)
  private var first: Pending?
  private var more: [Pending] = []

  var count: Int { first == nil ? 0 : 1 + more.count }
  var isEmpty: Bool { first == nil }

  subscript(index: Int) -> Pending {
    if index == 0, let first { return first }
    return more[index - 1]
  }

  mutating func append(_ pending: Pending) {
    if first == nil { first = pending } else { more.append(pending) }
  }

  /// Forgets the checks from `index` on.
  mutating func removeSubrange(_ range: PartialRangeFrom<Int>) {
    let index = range.lowerBound
    if index == 0 {
      first = nil
      more = []
    } else if index - 1 < more.count {
      more.removeSubrange((index - 1)...)
    }
  }
}
