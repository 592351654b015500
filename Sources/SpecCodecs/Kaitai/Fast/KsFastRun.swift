import PacketKit

/// A frame the fast plan found clean: its kind, its body (-1: none), where the body starts.
struct KsFastFrame {
  var kind: Int
  var body: Int
  var bodyStart: Int
}

extension KsFastLayout {
  /// Runs `body` with room for the frame's values (on the stack when small).
  @inline(__always)
  func withValues<Result>(_ body: (UnsafeMutableBufferPointer<Int64>) -> Result) -> Result {
    withUnsafeTemporaryAllocation(of: Int64.self, capacity: max(1, valueCount)) { buffer in
      body(buffer)
    }
  }

  /// The frame read and judged: clean, of a kind; nil when anything is
  /// not as a clean frame has it (the interpreter then says what it is).
  func read(_ bytes: UnsafeRawBufferPointer, _ values: UnsafeMutableBufferPointer<Int64>) -> KsFastFrame? {
    let count = bytes.count
    if frameSizesRefuse, !frameSizes.isEmpty, !frameSizes.contains(Int64(count)) { return nil }
    for index in earlyOffsets.indices where earlyOffsets[index] < count {
      guard bytes[earlyOffsets[index]] == earlyBytes[index] else { return nil }
    }
    guard count >= head.size, Self.load(head, bytes, at: 0, into: values, base: 0),
      passes(head, values, frame: count, body: 0)
    else { return nil }
    var frame = KsFastFrame(kind: 0, body: -1, bodyStart: head.size)
    var end = head.size
    if onField >= 0 || on != nil {
      let value: Int64
      if onField >= 0 {
        value = values[onField]
      } else {
        guard let on, let found = evaluate(on, values, frame: count, body: 0) else { return nil }
        value = found
      }
      let chosen: Int
      if !bodyBySmallValue.isEmpty {
        guard value >= 0, value < 256, bodyBySmallValue[Int(value)] >= 0 else { return nil }
        chosen = Int(bodyBySmallValue[Int(value)])
      } else {
        guard let found = bodyByValue[value] else { return nil }
        chosen = found
      }
      let available = count - head.size
      let needed = bodies[chosen].region.size
      var bodySize = needed
      if sizeField >= 0 {
        let given = values[sizeField]
        guard given >= 0, given <= Int64(available) else { return nil }
        bodySize = Int(given)
      } else if let size {
        guard let given = evaluate(size, values, frame: count, body: 0), given >= 0, given <= Int64(available)
        else { return nil }
        bodySize = Int(given)
      } else if sizeIsEos {
        bodySize = available
      }
      guard needed <= bodySize, bodySize <= available,
        bodySize == needed || !bodies[chosen].leftoverIsDiagnostic,
        Self.load(bodies[chosen].region, bytes, at: head.size, into: values, base: head.fields.count),
        passes(bodies[chosen].region, values, frame: count, body: bodySize)
      else { return nil }
      frame.kind = bodies[chosen].kind
      frame.body = chosen
      end = head.size + bodySize
    } else if let enumKind {
      guard let value = evaluate(enumKind, values, frame: count, body: 0), let kind = kindByValue[value]
      else {
        return nil
      }
      frame.kind = kind
    }
    guard end == count || trailingIgnored else { return nil }
    return frame
  }

  /// A region's fields read into `values` from `base`; false when fixed bytes differ.
  private static func load(
    _ region: KsFastRegion, _ bytes: UnsafeRawBufferPointer, at start: Int,
    into values: UnsafeMutableBufferPointer<Int64>,
    base: Int
  ) -> Bool {
    for index in region.fields.indices {
      let field = region.fields[index]
      let at = start + field.offset
      if let contents = field.contents {
        for (position, byte) in contents.enumerated() where bytes[at + position] != byte { return false }
        continue
      }
      let raw: UInt64
      switch field.width {
      case 1: raw = UInt64(bytes[at])
      case 2:
        let loaded = bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)
        raw = UInt64(field.little ? UInt16(littleEndian: loaded) : UInt16(bigEndian: loaded))
      case 4:
        let loaded = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        raw = UInt64(field.little ? UInt32(littleEndian: loaded) : UInt32(bigEndian: loaded))
      default:
        let loaded = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        raw = field.little ? UInt64(littleEndian: loaded) : UInt64(bigEndian: loaded)
      }
      values[base + index] =
        field.signed ? KsRunner.signExtend(raw, bits: field.width * 8) : Int64(bitPattern: raw)
    }
    return true
  }

  private func passes(
    _ region: KsFastRegion, _ values: UnsafeMutableBufferPointer<Int64>, frame: Int, body: Int
  )
    -> Bool
  {
    for check in region.checks {
      switch check {
      case .compare(let operation, let field, let constant):
        guard Self.binary(operation, values[field], constant) == 1 else { return false }
      case .known(let field, let enumeration):
        guard enumIsKnown[enumeration].contains(values[field]) else { return false }
      case .shown(let field, let scale, let offset, let lower, let upper):
        let number = Double(values[field]) * scale + offset
        guard number >= lower, number <= upper else { return false }
      case .expression(let index):
        guard let result = evaluate(region.expressions[index], values, frame: frame, body: body), result != 0
        else { return false }
      }
    }
    return true
  }

  func evaluate(_ ops: [KsFastOp], _ values: UnsafeMutableBufferPointer<Int64>, frame: Int, body: Int)
    -> Int64?
  {
    var cursor = 0
    return ops.withUnsafeBufferPointer { ops in
      evaluate(ops, &cursor, values, frame: frame, body: body)
    }
  }

  /// The value of the expression at `cursor` (prefix order); nil when it
  /// overflows (the interpreter then says so).
  private func evaluate(
    _ ops: UnsafeBufferPointer<KsFastOp>, _ cursor: inout Int, _ values: UnsafeMutableBufferPointer<Int64>,
    frame: Int,
    body: Int
  ) -> Int64? {
    let op = ops[cursor]
    cursor += 1
    switch op {
    case .constant(let value): return value
    case .field(let index): return values[index]
    case .frameSize: return Int64(frame)
    case .bodySize: return Int64(body)
    case .not:
      guard let value = evaluate(ops, &cursor, values, frame: frame, body: body) else { return nil }
      return value == 0 ? 1 : 0
    case .negate:
      guard let value = evaluate(ops, &cursor, values, frame: frame, body: body), value != .min else {
        return nil
      }
      return -value
    case .known(let enumeration):
      guard let value = evaluate(ops, &cursor, values, frame: frame, body: body) else { return nil }
      return enumIsKnown[enumeration].contains(value) ? 1 : 0
    case .shown(let field, let scale, let offset, let lower, let upper):
      let number = Double(values[field]) * scale + offset
      return number >= lower && number <= upper ? 1 : 0
    case .ternary:
      guard let test = evaluate(ops, &cursor, values, frame: frame, body: body),
        let yes = evaluate(ops, &cursor, values, frame: frame, body: body),
        let no = evaluate(ops, &cursor, values, frame: frame, body: body)
      else { return nil }
      return test != 0 ? yes : no
    case .binary(let operation):
      guard let x = evaluate(ops, &cursor, values, frame: frame, body: body),
        let y = evaluate(ops, &cursor, values, frame: frame, body: body)
      else { return nil }
      return Self.binary(operation, x, y)
    }
  }

  private static func binary(_ operation: KsBinary, _ x: Int64, _ y: Int64) -> Int64? {
    switch operation {
    case .add:
      let (sum, overflow) = x.addingReportingOverflow(y)
      return overflow ? nil : sum
    case .subtract:
      let (difference, overflow) = x.subtractingReportingOverflow(y)
      return overflow ? nil : difference
    case .multiply:
      let (product, overflow) = x.multipliedReportingOverflow(by: y)
      return overflow ? nil : product
    case .and: return x & y
    case .or: return x | y
    case .xor: return x ^ y
    case .equal: return x == y ? 1 : 0
    case .notEqual: return x != y ? 1 : 0
    case .less: return x < y ? 1 : 0
    case .lessEqual: return x <= y ? 1 : 0
    case .greater: return x > y ? 1 : 0
    case .greaterEqual: return x >= y ? 1 : 0
    case .logicalAnd: return x != 0 && y != 0 ? 1 : 0
    case .logicalOr: return x != 0 || y != 0 ? 1 : 0
    case .divide, .modulo, .shiftLeft, .shiftRight: return nil
    }
  }

  // MARK: Flat fields

  /// `cleanFields` for a clean frame: nil when the interpreter must say.
  func flat(
    _ frame: KsFastFrame, _ values: UnsafeMutableBufferPointer<Int64>, names: KsFlatNames,
    into fields: inout FlatFields
  ) -> Bool {
    guard let headItems = head.flat else { return false }
    fields.removeAll()
    fields.message = names.kinds[frame.kind]
    guard emit(headItems, head, base: 0, start: 0, values, names, &fields) else { return false }
    guard frame.body >= 0 else { return true }
    let body = bodies[frame.body].region
    guard let items = body.flat else { return false }
    return emit(items, body, base: head.fields.count, start: frame.bodyStart, values, names, &fields)
  }

  private func emit(
    _ items: [KsFastFlatItem], _ region: KsFastRegion, base: Int, start: Int,
    _ values: UnsafeMutableBufferPointer<Int64>,
    _ names: KsFlatNames, _ fields: inout FlatFields
  ) -> Bool {
    for item in items {
      switch item {
      case .group(let name, let count, let from, let to):
        guard
          fields.append(FlatFields.Field(name, .group(count: count), range: (start + from)..<(start + to)))
        else { return false }
      case .field(let index):
        let field = region.fields[index - base]
        guard let name = field.name else { return false }
        let raw = values[index]
        let value: FlatFields.Value
        if let enumeration = field.enumeration {
          guard raw >= 0, raw < 256, let shown = names.enums[enumeration][Int(raw)] else { return false }
          value = .enumeration(shown, raw: raw)
        } else if field.scale != nil || field.valueOffset != nil {
          value = .number(Double(raw) * (field.scale ?? 1) + (field.valueOffset ?? 0))
        } else if field.signed {
          value = .integer(raw)
        } else {
          value = .unsigned(UInt64(bitPattern: raw))
        }
        let at = start + field.offset
        guard fields.append(FlatFields.Field(name, value, unit: field.unit, range: at..<(at + field.width)))
        else {
          return false
        }
      }
    }
    return true
  }
}
