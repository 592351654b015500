import PacketKit

extension KsRunner {
  /// An expression's value for `object`. Never traps: integer overflow,
  /// division by zero, an index outside an array and a value of the wrong
  /// kind are decode errors.
  mutating func eval(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError) -> KsValue {
    switch code {
    case .constant(let constant):
      switch constant {
      case .integer(let value): return .integer(value)
      case .float(let value): return .float(value)
      case .bool(let value): return .bool(value)
      case .bytes(let bytes), .string(let bytes):
        let start = Int32(arena.derived.count)
        arena.derived.append(contentsOf: bytes)
        let slice = KsSlice(buffer: 1, start: start, end: Int32(arena.derived.count))
        if case .string = constant { return .string(slice) }
        return .bytes(slice)
      }
    case .slot(let slot): return try slotValue(object, slot)
    case .this: return .object(object)
    case .parent(let base):
      let owner = try objectValue(base, object, local)
      let parent = arena.objects[Int(owner)].parent
      guard parent >= 0 else { throw evalError("the root has no _parent") }
      return .object(parent)
    case .root(let base):
      return .object(arena.objects[Int(try objectValue(base, object, local))].root)
    case .member(let base, let slot):
      return try slotValue(try objectValue(base, object, local), slot)
    case .dynamicMember(let base, let name, let slots):
      let owner = try objectValue(base, object, local)
      guard let slot = slots[Int(arena.objects[Int(owner)].type)] else {
        throw evalError("this object has no \(name)")
      }
      return try slotValue(owner, slot)
    case .underscore: return local.underscore
    case .index:
      guard local.index >= 0 else { throw evalError("_index outside a repeat") }
      return .integer(local.index)
    case .stream(let base):
      return .stream(arena.objects[Int(try objectValue(base, object, local))].stream)
    case .streamSize(let base):
      let record = arena.streams[Int(try streamValue(base, object, local))]
      return .integer(Int64(record.end - record.start))
    case .streamPos(let base):
      let record = arena.streams[Int(try streamValue(base, object, local))]
      return .integer(Int64(record.pos - record.start))
    case .streamEof(let base):
      return .bool(isEof(try streamValue(base, object, local)))
    case .negate(let inner, let float):
      let value = try eval(inner, object, local)
      if float, case .float(let number) = value { return .float(-number) }
      guard case .integer(let integer) = value, integer != .min else {
        throw evalError("-\(describe(value, hex: false)) overflows")
      }
      return .integer(-integer)
    case .invert(let inner):
      return .integer(~(try integerValue(inner, object, local)))
    case .not(let inner):
      return .bool(!(try evalBool(inner, object, local)))
    case .toFloat(let inner):
      let value = try eval(inner, object, local)
      if case .integer(let integer) = value { return .float(Double(integer)) }
      return value
    case .arithmetic(let op, let a, let b, let float):
      if float {
        let (x, y) = (try floatValue(a, object, local), try floatValue(b, object, local))
        switch op {
        case .add: return .float(x + y)
        case .subtract: return .float(x - y)
        case .multiply: return .float(x * y)
        case .divide: return .float(x / y)
        case .modulo:
          let remainder = x.truncatingRemainder(dividingBy: y)
          return .float(remainder < 0 && y > 0 ? remainder + y : remainder)
        default: throw evalError("'\(op.rawValue)' on floats")
        }
      }
      return .integer(
        try integerArithmetic(op, try integerValue(a, object, local), try integerValue(b, object, local)))
    case .concatenate(let a, let b):
      // Evaluated first, each into a local: a method called on `self`
      // with an argument that grows the arena would read the arena as it
      // was before the argument was evaluated.
      let left = try eval(a, object, local)
      let right = try eval(b, object, local)
      let (x, y) = (try bytesOf(left), try bytesOf(right))
      let start = Int32(arena.derived.count)
      arena.derived.append(contentsOf: x)
      arena.derived.append(contentsOf: y)
      return .string(KsSlice(buffer: 1, start: start, end: Int32(arena.derived.count)))
    case .compare(let op, let a, let b, let type):
      let (x, y) = (try eval(a, object, local), try eval(b, object, local))
      let sign: Int
      switch type {
      case .float:
        guard case .float(let p) = x, case .float(let q) = y else {
          throw evalError("comparing absent values")
        }
        if p.isNaN || q.isNaN { return .bool(op == .notEqual) }
        sign = p < q ? -1 : p > q ? 1 : 0
      case .bool:
        guard case .bool(let p) = x, case .bool(let q) = y else { throw evalError("comparing absent values") }
        sign = p == q ? 0 : 1
      default:
        sign = try compareValues(x, y)
      }
      switch op {
      case .equal: return .bool(sign == 0)
      case .notEqual: return .bool(sign != 0)
      case .less: return .bool(sign < 0)
      case .lessEqual: return .bool(sign <= 0)
      case .greater: return .bool(sign > 0)
      default: return .bool(sign >= 0)
      }
    case .logical(let op, let a, let b):
      let x = try evalBool(a, object, local)
      if op == .logicalAnd { return .bool(x ? try evalBool(b, object, local) : false) }
      return .bool(x ? true : try evalBool(b, object, local))
    case .ternary(let test, let yes, let no):
      return try eval(try evalBool(test, object, local) ? yes : no, object, local)
    case .method(let method, let base, let arguments):
      return try self.method(method, try eval(base, object, local), arguments, object, local)
    case .subscriptArray(let base, let position):
      guard case .array(let array) = try eval(base, object, local) else {
        throw evalError("indexing an absent array")
      }
      let index = try integerValue(position, object, local)
      let record = arena.arrays[Int(array)]
      guard index >= 0, index < Int64(record.count) else {
        throw evalError("index \(index) outside an array of \(record.count)")
      }
      return arena.elements[Int(record.start) + Int(index)]
    case .subscriptBytes(let base, let position):
      guard case .bytes(let slice) = try eval(base, object, local) else {
        throw evalError("indexing absent bytes")
      }
      let index = try integerValue(position, object, local)
      guard index >= 0, index < Int64(slice.count) else {
        throw evalError("index \(index) outside \(slice.count) bytes")
      }
      return .integer(Int64(byte(slice.buffer, slice.start + Int32(index))))
    case .cast(let base, let types):
      let value = try eval(base, object, local)
      guard case .object(let found) = value, types.contains(Int(arena.objects[Int(found)].type)) else {
        throw evalError("not an object of the type cast to")
      }
      return value
    case .arrayLiteral(let items):
      let mark = arena.scratch.count
      for item in items {
        let value = try eval(item, object, local)
        arena.scratch.append(value)
        arena.scratchRanges.append(.empty)
      }
      let start = Int32(arena.elements.count)
      arena.elements.append(contentsOf: arena.scratch[mark...])
      arena.elementRanges.append(contentsOf: arena.scratchRanges[mark...])
      arena.scratch.removeSubrange(mark...)
      arena.scratchRanges.removeSubrange(mark...)
      arena.arrays.append((start, Int32(items.count)))
      return .array(Int32(arena.arrays.count - 1))
    }
  }

  func evalError(_ text: String) -> DecodeError {
    DecodeError(code: "bad-expression", offset: 0) { .init(text) }
  }

  mutating func evalBool(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError) -> Bool {
    guard case .bool(let value) = try eval(code, object, local) else {
      throw evalError("a condition is absent")
    }
    return value
  }

  mutating func evalInteger(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError) -> Int64 {
    try integerValue(code, object, local)
  }

  private mutating func integerValue(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError)
    -> Int64
  {
    switch try eval(code, object, local) {
    case .integer(let value): return value
    case .bool(let flag): return flag ? 1 : 0
    case .float(let number) where number.isFinite && abs(number) < 9.2e18: return Int64(number)
    default: throw evalError("an integer is absent")
    }
  }

  private mutating func floatValue(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError)
    -> Double
  {
    switch try eval(code, object, local) {
    case .float(let value): return value
    case .integer(let value): return Double(value)
    default: throw evalError("a number is absent")
    }
  }

  private mutating func objectValue(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError)
    -> Int32
  {
    if case .this = code { return object }
    guard case .object(let found) = try eval(code, object, local) else {
      throw evalError("an object is absent")
    }
    return found
  }

  private mutating func streamValue(_ code: KsCode, _ object: Int32, _ local: KsLocal) throws(DecodeError)
    -> Int32
  {
    guard case .stream(let found) = try eval(code, object, local) else {
      throw evalError("a stream is absent")
    }
    guard arena.streams[Int(found)].buffer >= 0 else { throw Self.unwritten }
    return found
  }

  /// While a message is written its streams have no size or position yet:
  /// what depends on them is decided by the message's own values.
  static let unwritten = DecodeError(code: "stream-unwritten") {
    .init("a stream's size while it is written")
  }

  /// Integer arithmetic as the language defines it: `/` rounds down, `%`
  /// is never negative for a positive divisor, shifts past 63 bits give 0.
  func integerArithmetic(_ op: KsBinary, _ x: Int64, _ y: Int64) throws(DecodeError) -> Int64 {
    switch op {
    case .add:
      let (sum, overflow) = x.addingReportingOverflow(y)
      guard !overflow else { throw evalError("\(x) + \(y) overflows 64 bits") }
      return sum
    case .subtract:
      let (difference, overflow) = x.subtractingReportingOverflow(y)
      guard !overflow else { throw evalError("\(x) - \(y) overflows 64 bits") }
      return difference
    case .multiply:
      let (product, overflow) = x.multipliedReportingOverflow(by: y)
      guard !overflow else { throw evalError("\(x) * \(y) overflows 64 bits") }
      return product
    case .divide:
      guard y != 0 else { throw evalError("\(x) / 0") }
      guard !(x == .min && y == -1) else { throw evalError("\(x) / -1 overflows 64 bits") }
      let quotient = x / y
      return (x % y != 0 && (x < 0) != (y < 0)) ? quotient - 1 : quotient
    case .modulo:
      guard y != 0 else { throw evalError("\(x) % 0") }
      guard !(x == .min && y == -1) else { return 0 }
      let remainder = x % y
      return remainder != 0 && (remainder < 0) != (y < 0) ? remainder + y : remainder
    case .shiftLeft:
      guard y >= 0 else { throw evalError("a shift by \(y)") }
      return y >= 64 ? 0 : Int64(bitPattern: UInt64(bitPattern: x) << UInt64(y))
    case .shiftRight:
      guard y >= 0 else { throw evalError("a shift by \(y)") }
      return y >= 64 ? (x < 0 ? -1 : 0) : x >> y
    case .and: return x & y
    case .or: return x | y
    case .xor: return x ^ y
    default: throw evalError("'\(op.rawValue)' on integers")
    }
  }

  /// -1, 0 or 1: integers by value, strings and bytes byte by byte.
  func compareValues(_ x: KsValue, _ y: KsValue) throws(DecodeError) -> Int {
    switch (x, y) {
    case (.integer(let a), .integer(let b)): return a < b ? -1 : a > b ? 1 : 0
    case (.float(let a), .float(let b)): return a < b ? -1 : a > b ? 1 : 0
    case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
    case (.string(let a), .string(let b)), (.bytes(let a), .bytes(let b)):
      var index: Int32 = 0
      while index < Int32(a.count), index < Int32(b.count) {
        let (p, q) = (byte(a.buffer, a.start + index), byte(b.buffer, b.start + index))
        if p != q { return p < q ? -1 : 1 }
        index += 1
      }
      return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    default: throw evalError("comparing \(describe(x, hex: false)) with \(describe(y, hex: false))")
    }
  }

  func same(_ x: KsValue, _ y: KsValue) -> Bool {
    switch (x, y) {
    case (.integer(let a), .float(let b)): return Double(a) == b
    case (.float(let a), .integer(let b)): return a == Double(b)
    default: return (try? compareValues(x, y)) == 0
    }
  }

  func order(_ x: KsValue, _ y: KsValue) -> Int {
    switch (x, y) {
    case (.integer(let a), .float(let b)): return Double(a) < b ? -1 : Double(a) > b ? 1 : 0
    case (.float(let a), .integer(let b)): return a < Double(b) ? -1 : a > Double(b) ? 1 : 0
    default: return (try? compareValues(x, y)) ?? 0
    }
  }

  func bytesOf(_ value: KsValue) throws(DecodeError) -> [UInt8] {
    switch value {
    case .bytes(let slice), .string(let slice):
      var bytes: [UInt8] = []
      bytes.reserveCapacity(slice.count)
      for index in slice.start..<slice.end { bytes.append(byte(slice.buffer, index)) }
      return bytes
    default: throw evalError("text or bytes are absent")
    }
  }

  private mutating func stringValue(_ text: String) -> KsValue {
    let start = Int32(arena.derived.count)
    arena.derived.append(contentsOf: text.utf8)
    return .string(KsSlice(buffer: 1, start: start, end: Int32(arena.derived.count)))
  }

  private mutating func method(
    _ method: KsMethod, _ value: KsValue, _ arguments: [KsCode], _ object: Int32, _ local: KsLocal
  ) throws(DecodeError) -> KsValue {
    switch method {
    case .integerToString:
      guard case .integer(let integer) = value else { throw evalError("to_s of an absent integer") }
      return stringValue(String(integer))
    case .floatToInteger:
      guard case .float(let number) = value, number.isFinite, abs(number) < 9.2e18 else {
        throw evalError("to_i of \(describe(value, hex: false))")
      }
      return .integer(Int64(number))
    case .boolToInteger:
      guard case .bool(let flag) = value else { throw evalError("to_i of an absent boolean") }
      return .integer(flag ? 1 : 0)
    case .stringToInteger, .stringToIntegerRadix:
      let text = String(decoding: try bytesOf(value), as: UTF8.self)
      let radix = arguments.isEmpty ? 10 : Int(try integerValue(arguments[0], object, local))
      guard (2...36).contains(radix), let integer = Int64(text, radix: radix) else {
        throw evalError("'\(text)' is not an integer")
      }
      return .integer(integer)
    case .stringLength:
      return .integer(Int64(String(decoding: try bytesOf(value), as: UTF8.self).count))
    case .stringReverse:
      return stringValue(String(String(decoding: try bytesOf(value), as: UTF8.self).reversed()))
    case .substring:
      let characters = Array(String(decoding: try bytesOf(value), as: UTF8.self))
      let from = try integerValue(arguments[0], object, local)
      let to = try integerValue(arguments[1], object, local)
      guard from >= 0, to >= from, to <= Int64(characters.count) else {
        throw evalError("substring(\(from), \(to)) of \(characters.count) characters")
      }
      return stringValue(String(characters[Int(from)..<Int(to)]))
    case .bytesLength:
      guard case .bytes(let slice) = value else { throw evalError("length of absent bytes") }
      return .integer(Int64(slice.count))
    case .bytesToString(let encoding):
      return stringValue(Self.text(try bytesOf(value), encoding: encoding))
    case .bytesFirst, .bytesLast, .bytesMin, .bytesMax:
      guard case .bytes(let slice) = value, slice.count > 0 else { throw evalError("of empty bytes") }
      let bytes = try bytesOf(value)
      switch method {
      case .bytesFirst: return .integer(Int64(bytes[0]))
      case .bytesLast: return .integer(Int64(bytes[bytes.count - 1]))
      case .bytesMin: return .integer(Int64(bytes.min() ?? 0))
      default: return .integer(Int64(bytes.max() ?? 0))
      }
    case .arraySize:
      guard case .array(let array) = value else { throw evalError("size of an absent array") }
      return .integer(Int64(arena.arrays[Int(array)].count))
    case .first, .last, .min, .max:
      guard case .array(let array) = value else { throw evalError("of an absent array") }
      let record = arena.arrays[Int(array)]
      guard record.count > 0 else { throw evalError("of an empty array") }
      let start = Int(record.start)
      switch method {
      case .first: return arena.elements[start]
      case .last: return arena.elements[start + Int(record.count) - 1]
      default:
        var best = arena.elements[start]
        for index in start + 1..<start + Int(record.count) {
          let candidate = arena.elements[index]
          let sign = try compareValues(candidate, best)
          if (method == .min && sign < 0) || (method == .max && sign > 0) { best = candidate }
        }
        return best
      }
    }
  }
}
