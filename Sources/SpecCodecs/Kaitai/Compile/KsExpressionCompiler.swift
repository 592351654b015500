/// Compiles one expression in the context of a type: names to slots,
/// operators and methods to typed operations, as the user guide's
/// "Expression language" defines them. A name, method or operand the
/// language does not allow there is refused with the expression's line
/// and key.
struct KsExpressionCompiler {
  let compiler: KsCompiler
  let type: Int
  var allowIndex = false

  init(_ compiler: KsCompiler, type: Int, allowIndex: Bool = false) {
    self.compiler = compiler
    self.type = type
    self.allowIndex = allowIndex
  }

  private var file: String { compiler.types[type].file }

  /// `underscore`: what `_` is here (nil: not allowed).
  func compile(_ expression: KsyExpression, underscore: KsType?) throws(SpecLoadError) -> (KsCode, KsType) {
    do {
      return try code(expression.expression, underscore: underscore)
    } catch let failure as Failure {
      throw SpecLoadError(
        file: file, line: expression.line, key: expression.key, text: "'\(expression.text)': \(failure.text)")
    } catch let loadError as SpecLoadError {
      throw loadError
    } catch {
      throw SpecLoadError(file: file, line: expression.line, key: expression.key, text: "\(error)")
    }
  }

  /// A boolean expression (`if`, `repeat-until`, `valid/expr`).
  func condition(_ expression: KsyExpression, underscore: KsType?) throws(SpecLoadError) -> KsCode {
    let (code, found) = try compile(expression, underscore: underscore)
    guard found == .bool else {
      throw SpecLoadError(
        file: file, line: expression.line, key: expression.key,
        text: "'\(expression.text)' is \(found.spelling); expected a boolean")
    }
    return code
  }

  /// An integer expression (`size`, `pos`, `repeat-expr`).
  func integer(_ expression: KsyExpression, underscore: KsType? = nil) throws(SpecLoadError) -> KsCode {
    let (code, found) = try compile(expression, underscore: underscore)
    switch found {
    case .integer, .enumeration: return code
    default:
      throw SpecLoadError(
        file: file, line: expression.line, key: expression.key,
        text: "'\(expression.text)' is \(found.spelling); expected an integer")
    }
  }

  struct Failure: Error {
    var text: String
  }

  private func fail(_ text: String) -> Failure { Failure(text: text) }

  private func code(_ expression: KsExpression, underscore: KsType?) throws -> (KsCode, KsType) {
    switch expression {
    case .integer(let value): return (.constant(.integer(value)), .integer)
    case .float(let value): return (.constant(.float(value)), .float)
    case .string(let bytes): return (.constant(.string(bytes)), .string)
    case .bool(let value): return (.constant(.bool(value)), .bool)
    case .array(let elements): return try array(elements, underscore: underscore)
    case .name(let name): return try self.name(name, underscore: underscore)
    case .enumValue(let path, let enumeration, let value):
      let name = (path + [enumeration]).joined(separator: "::")
      guard let found = compiler.findEnum(name, from: type) else { throw fail("no enum '\(name)'") }
      guard let entry = compiler.enums[found].values.first(where: { $0.id == value }) else {
        throw fail("enum \(name) has no value '\(value)'")
      }
      return (.constant(.integer(entry.value)), .enumeration(found))
    case .unary(let op, let inner):
      let (operand, found) = try code(inner, underscore: underscore)
      switch op {
      case .negate:
        guard found.isNumber else { throw fail("'-' needs a number, not \(found.spelling)") }
        return (.negate(operand, float: found == .float), found)
      case .invert:
        guard found == .integer else { throw fail("'~' needs an integer, not \(found.spelling)") }
        return (.invert(operand), .integer)
      case .not:
        guard found == .bool else { throw fail("'not' needs a boolean, not \(found.spelling)") }
        return (.not(operand), .bool)
      }
    case .binary(let op, let left, let right):
      return try binary(op, left, right, underscore: underscore)
    case .ternary(let condition, let yes, let no):
      let (test, testType) = try code(condition, underscore: underscore)
      guard testType == .bool else { throw fail("the condition of '? :' is \(testType.spelling)") }
      var (a, aType) = try code(yes, underscore: underscore)
      var (b, bType) = try code(no, underscore: underscore)
      if aType == bType { return (.ternary(test, a, b), aType) }
      if aType.isNumber, bType.isNumber {
        if aType == .integer { a = .toFloat(a) }
        if bType == .integer { b = .toFloat(b) }
        return (.ternary(test, a, b), .float)
      }
      let joined = KsCompiler.union([aType, bType])
      guard joined != .unknown else {
        throw fail("the two sides of '? :' are \(aType.spelling) and \(bType.spelling)")
      }
      return (.ternary(test, a, b), joined)
    case .member(let base, let name): return try member(base, name, underscore: underscore)
    case .call(let base, let name, let arguments):
      return try call(base, name, arguments, underscore: underscore)
    case .index(let base, let index):
      let (array, arrayType) = try code(base, underscore: underscore)
      let (position, positionType) = try code(index, underscore: underscore)
      guard positionType == .integer else {
        throw fail("an index is an integer, not \(positionType.spelling)")
      }
      switch arrayType {
      case .array(let element): return (.subscriptArray(array, position), element)
      case .bytes: return (.subscriptBytes(array, position), .integer)
      default: throw fail("[…] needs an array or bytes, not \(arrayType.spelling)")
      }
    case .cast(let base, let typeName):
      let (value, found) = try code(base, underscore: underscore)
      if KsPrimitive.integer(typeName) != nil || KsPrimitive.bits(typeName) != nil {
        guard found.isNumber || found == .integer else {
          throw fail("cannot cast \(found.spelling) to \(typeName)")
        }
        return (value, .integer)
      }
      if KsPrimitive.float(typeName) != nil { return (found == .integer ? .toFloat(value) : value, .float) }
      if typeName == "str" { return (value, .string) }
      if typeName == "bytes" { return (value, .bytes) }
      guard let target = compiler.findType(typeName, from: type) else { throw fail("no type '\(typeName)'") }
      return (.cast(value, [target]), .user(target))
    }
  }

  private func array(_ elements: [KsExpression], underscore: KsType?) throws -> (KsCode, KsType) {
    var codes: [KsCode] = []
    var found: [KsType] = []
    var bytes: [UInt8] = []
    var allBytes = !elements.isEmpty
    for element in elements {
      let (code, elementType) = try self.code(element, underscore: underscore)
      if case .constant(.integer(let value)) = code, value >= 0, value < 256 {
        bytes.append(UInt8(value))
      } else {
        allBytes = false
      }
      codes.append(code)
      found.append(elementType)
    }
    if allBytes { return (.constant(.bytes(bytes)), .bytes) }
    let element = KsCompiler.union(found)
    guard element != .unknown || elements.isEmpty else { throw fail("an array literal of mixed types") }
    return (.arrayLiteral(codes), .array(elements.isEmpty ? .integer : element))
  }

  private func name(_ name: String, underscore: KsType?) throws -> (KsCode, KsType) {
    switch name {
    case "_":
      guard let underscore else { throw fail("'_' means nothing here") }
      return (.underscore, underscore)
    case "_index":
      guard allowIndex else { throw fail("'_index' is only inside a repeated attribute") }
      return (.index, .integer)
    case "_io": return (.stream(.this), .stream)
    case "_parent": return (.parent(.this), try parentType(of: type))
    case "_root": return (.root(.this), .user(fileRoot(of: type)))
    case "_on", "_sizeof", "_buf":
      throw fail("'\(name)' is not supported")
    default:
      guard let slot = compiler.slot(named: name, in: type) else {
        throw fail("no attribute '\(name)' in type \(compiler.types[type].name)")
      }
      return (.slot(slot), try compiler.slotType(type, slot))
    }
  }

  private func fileRoot(of type: Int) -> Int {
    var scope: KsyType? = compiler.types[type]
    while let current = scope {
      if current.isFileRoot { return compiler.index(of: current) }
      scope = current.parent
    }
    return 0
  }

  private func parentType(of type: Int) throws -> KsType {
    let found = compiler.parents[type].sorted()
    guard !found.isEmpty else {
      throw fail("type \(compiler.types[type].name) has no parent (nothing creates it from another type)")
    }
    return found.count == 1 ? .user(found[0]) : .users(found)
  }

  private func member(_ base: KsExpression, _ name: String, underscore: KsType?) throws -> (KsCode, KsType) {
    let (object, found) = try code(base, underscore: underscore)
    switch found {
    case .user(let index):
      switch name {
      case "_io": return (.stream(object), .stream)
      case "_parent": return (.parent(object), try parentType(of: index))
      case "_root": return (.root(object), .user(fileRoot(of: index)))
      default: break
      }
      guard let slot = compiler.slot(named: name, in: index) else {
        throw fail("type \(compiler.types[index].name) has no attribute '\(name)'")
      }
      return (.member(object, slot: slot), try compiler.slotType(index, slot))
    case .users(let candidates):
      if name == "_io" { return (.stream(object), .stream) }
      var slots: [Int: Int] = [:]
      var memberTypes: [KsType] = []
      for candidate in candidates {
        guard let slot = compiler.slot(named: name, in: candidate) else {
          throw fail(
            "type \(compiler.types[candidate].name) has no attribute '\(name)' (it may be \(candidates.map { compiler.types[$0].name }.joined(separator: " or ")); use .as<type>)"
          )
        }
        slots[candidate] = slot
        memberTypes.append(try compiler.slotType(candidate, slot))
      }
      let joined = KsCompiler.union(memberTypes)
      guard joined != .unknown else { throw fail("'\(name)' is of different types in the types this may be") }
      return (.dynamicMember(object, name: name, slots: slots), joined)
    case .stream:
      switch name {
      case "size": return (.streamSize(object), .integer)
      case "pos": return (.streamPos(object), .integer)
      case "eof": return (.streamEof(object), .bool)
      default: throw fail("a stream has size, pos and eof, not '\(name)'")
      }
    default:
      return try method(name, object, found, [], underscore: underscore)
    }
  }

  private func call(_ base: KsExpression, _ name: String, _ arguments: [KsExpression], underscore: KsType?)
    throws
    -> (KsCode, KsType)
  {
    let (object, found) = try code(base, underscore: underscore)
    if found == .bytes, name == "to_s" {
      guard arguments.count == 1, case .string(let bytes) = arguments[0],
        let encoding = KsyEncoding.canonical(String(decoding: bytes, as: UTF8.self))
      else {
        throw fail(
          "bytes.to_s takes one supported encoding: \(KsyEncoding.supported.joined(separator: ", "))")
      }
      return (.method(.bytesToString(encoding), object, []), .string)
    }
    var codes: [KsCode] = []
    for argument in arguments {
      let (code, argumentType) = try self.code(argument, underscore: underscore)
      guard argumentType == .integer else { throw fail("\(name)'s arguments are integers") }
      codes.append(code)
    }
    return try method(name, object, found, codes, underscore: underscore)
  }

  private func method(
    _ name: String, _ object: KsCode, _ found: KsType, _ arguments: [KsCode], underscore: KsType?
  )
    throws -> (KsCode, KsType)
  {
    func plain(_ method: KsMethod, _ result: KsType, arity: Int = 0) throws -> (KsCode, KsType) {
      guard arguments.count == arity else {
        throw fail("\(name) takes \(arity) argument\(arity == 1 ? "" : "s")")
      }
      return (.method(method, object, arguments), result)
    }
    switch (found, name) {
    case (.integer, "to_s"): return try plain(.integerToString, .string)
    case (.float, "to_i"): return try plain(.floatToInteger, .integer)
    case (.bool, "to_i"): return try plain(.boolToInteger, .integer)
    case (.enumeration, "to_i"): return (object, .integer)
    case (.string, "length"): return try plain(.stringLength, .integer)
    case (.string, "reverse"): return try plain(.stringReverse, .string)
    case (.string, "to_i"):
      return arguments.isEmpty
        ? try plain(.stringToInteger, .integer) : try plain(.stringToIntegerRadix, .integer, arity: 1)
    case (.string, "substring"): return try plain(.substring, .string, arity: 2)
    case (.bytes, "length"), (.bytes, "size"): return try plain(.bytesLength, .integer)
    case (.bytes, "first"): return try plain(.bytesFirst, .integer)
    case (.bytes, "last"): return try plain(.bytesLast, .integer)
    case (.bytes, "min"): return try plain(.bytesMin, .integer)
    case (.bytes, "max"): return try plain(.bytesMax, .integer)
    case (.array, "size"), (.array, "length"): return try plain(.arraySize, .integer)
    case (.array(let element), "first"): return try plain(.first, element)
    case (.array(let element), "last"): return try plain(.last, element)
    case (.array(let element), "min"):
      guard element.isNumber || element == .string || element == .bytes else {
        throw fail("min of \(element.spelling)")
      }
      return try plain(.min, element)
    case (.array(let element), "max"):
      guard element.isNumber || element == .string || element == .bytes else {
        throw fail("max of \(element.spelling)")
      }
      return try plain(.max, element)
    default:
      throw fail("\(found.spelling) has no method '\(name)'")
    }
  }

  private func binary(_ op: KsBinary, _ left: KsExpression, _ right: KsExpression, underscore: KsType?) throws
    -> (KsCode, KsType)
  {
    var (a, aType) = try code(left, underscore: underscore)
    var (b, bType) = try code(right, underscore: underscore)
    switch op {
    case .logicalAnd, .logicalOr:
      guard aType == .bool, bType == .bool else { throw fail("'\(op.rawValue)' needs booleans") }
      return (.logical(op, a, b), .bool)
    case .add where aType == .string && bType == .string:
      return (.concatenate(a, b), .string)
    case .add, .subtract, .multiply, .divide, .modulo:
      guard aType.isNumber, bType.isNumber else {
        throw fail("'\(op.rawValue)' needs numbers, not \(aType.spelling) and \(bType.spelling)")
      }
      if aType == .integer, bType == .integer { return (.arithmetic(op, a, b, float: false), .integer) }
      if aType == .integer { a = .toFloat(a) }
      if bType == .integer { b = .toFloat(b) }
      return (.arithmetic(op, a, b, float: true), .float)
    case .shiftLeft, .shiftRight, .and, .or, .xor:
      guard aType == .integer, bType == .integer else {
        throw fail("'\(op.rawValue)' needs integers, not \(aType.spelling) and \(bType.spelling)")
      }
      return (.arithmetic(op, a, b, float: false), .integer)
    case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual:
      let ordering = op != .equal && op != .notEqual
      if aType.isNumber, bType.isNumber {
        if aType == bType { return (.compare(op, a, b, aType), .bool) }
        if aType == .integer { a = .toFloat(a) }
        if bType == .integer { b = .toFloat(b) }
        return (.compare(op, a, b, .float), .bool)
      }
      switch (aType, bType) {
      case (.enumeration, .enumeration), (.enumeration, .integer), (.integer, .enumeration):
        if case .enumeration(let x) = aType, case .enumeration(let y) = bType, x != y {
          throw fail("comparing values of two enums (\(compiler.enums[x].name), \(compiler.enums[y].name))")
        }
        return (.compare(op, a, b, .integer), .bool)
      case (.string, .string), (.bytes, .bytes):
        return (.compare(op, a, b, aType), .bool)
      case (.bool, .bool) where !ordering:
        return (.compare(op, a, b, .bool), .bool)
      default:
        throw fail("cannot compare \(aType.spelling) with \(bType.spelling) by '\(op.rawValue)'")
      }
    }
  }
}
