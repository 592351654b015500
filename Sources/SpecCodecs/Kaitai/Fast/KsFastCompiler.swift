import PacketKit

/// Makes a `KsFastPlan` from a compiled program when its frames have a
/// fixed layout: integers (and `contents`) at constant offsets in
/// unsized user types, the message switch last in the root with a body
/// per case, conditions the fast expressions can say; no `if`, repeat,
/// instance, parameter, bit field, check, substream or calculated
/// endianness. Anything else keeps to the interpreter.
struct KsFastCompiler {
  private struct Ineligible: Error {}

  /// An object of the layout: its type, parent, and where its fields' values and children are.
  private struct Object {
    var type: Int
    var parent: Int
    var fields: [Int: Int] = [:]
    var children: [Int: Int] = [:]
    var inBody: Bool
  }

  /// What an expression is: a value (boolean or integer), an object, or an object's stream.
  private enum Ref {
    case value([KsFastOp], bool: Bool)
    case object(Int)
    case stream(Int)
  }

  static let maxFields = 256
  static let maxDepth = 8

  private let program: KsProgram
  private let names: KsFlatNames?
  private var objects: [Object] = []
  private var region = KsFastRegion()
  private var base = 0
  private var inBody = false
  private var bodySized = false
  private var depth = 0

  private init(program: KsProgram, names: KsFlatNames?) {
    self.program = program
    self.names = names
  }

  static func make(_ program: KsProgram, names: KsFlatNames?) -> KsFastPlan? {
    var compiler = KsFastCompiler(program: program, names: names)
    return (try? compiler.plan()).map(KsFastPlan.init)
  }

  private mutating func plan() throws(Ineligible) -> KsFastLayout {
    let types = program.plan.types
    let root = try newObject(type: 0, parent: -1)
    var offset = 0
    var message: KsAttributePlan?
    for attribute in types[0].seq {
      if attribute.slot == program.messageSlot {
        guard attribute === types[0].seq.last else { throw Ineligible() }
        message = attribute
        break
      }
      try self.attribute(attribute, object: root, offset: &offset, nested: false)
    }
    region.size = offset
    let head = region
    var trailingIgnored = false
    if case .ignored = program.keys.trailing { trailingIgnored = true }
    var plan = KsFastLayout(
      head: head, trailingIgnored: trailingIgnored, frameSizes: program.frameSizes,
      frameSizesRefuse: program.messageAttribute?.keys.unknown == nil, enumIsKnown: program.enumIsKnown,
      early: program.early.map { ($0.offset, $0.bytes) }, valueCount: head.fields.count,
      probeScores: program.kinds.map { $0.keys.probe ?? (program.hasCheck ? 100 : 80) })
    if let message {
      try messagePlan(message, root: root, into: &plan)
    } else if let selector = program.enumSelector {
      plan.enumKind = try integer(selector, object: root, underscore: nil)
      plan.kindByValue = program.kindByValue
    } else if program.messageSlot >= 0 {
      throw Ineligible()
    }
    return plan
  }

  private mutating func messagePlan(_ message: KsAttributePlan, root: Int, into plan: inout KsFastLayout)
    throws(Ineligible)
  {
    guard message.condition == nil, !message.isRepeated, message.valid == nil, message.keys.expect == nil,
      message.check == nil, message.pos == nil, message.io == nil,
      case .switched(let on, _, let cases, _, let size) = message.read
    else { throw Ineligible() }
    let onOps = try integer(on, object: root, underscore: nil)
    if onOps.count == 1, case .field(let field) = onOps[0] { plan.onField = field } else { plan.on = onOps }
    switch size?.kind {
    case nil: break
    case .eos?:
      guard let size, size.terminator == nil, size.process == nil, size.padRight == nil else {
        throw Ineligible()
      }
      plan.sizeIsEos = true
      bodySized = true
    case .expression(let code)?:
      guard let size, size.terminator == nil, size.process == nil, size.padRight == nil else {
        throw Ineligible()
      }
      let sizeOps = try integer(code, object: root, underscore: nil)
      if sizeOps.count == 1, case .field(let field) = sizeOps[0] {
        plan.sizeField = field
      } else {
        plan.size = sizeOps
      }
      bodySized = true
    case .terminated?: throw Ineligible()
    }
    let head = self
    for (match, read) in cases {
      guard case .integer(let value) = match, case .user(let type, let arguments, nil) = read,
        arguments.isEmpty
      else { throw Ineligible() }
      if plan.bodyByValue[value] != nil { continue }
      var body = head
      body.region = KsFastRegion()
      body.base = head.region.fields.count
      body.inBody = true
      let object = try body.newObject(type: type, parent: root)
      var offset = 0
      for attribute in program.plan.types[type].seq {
        try body.attribute(attribute, object: object, offset: &offset, nested: false)
      }
      body.region.size = offset
      guard let kind = program.kindByType[type] else { throw Ineligible() }
      plan.bodyByValue[value] = plan.bodies.count
      plan.bodies.append(
        KsFastBody(
          kind: kind, region: body.region,
          leftoverIsDiagnostic: program.plan.types[type].message.sizeMismatch != nil))
      plan.valueCount = max(plan.valueCount, body.base + body.region.fields.count)
    }
    if plan.bodyByValue.keys.allSatisfy({ $0 >= 0 && $0 < 256 }) {
      plan.bodyBySmallValue = Array(repeating: -1, count: 256)
      for (value, body) in plan.bodyByValue { plan.bodyBySmallValue[Int(value)] = Int16(body) }
    }
  }

  // MARK: Objects and attributes

  private mutating func newObject(type: Int, parent: Int) throws(Ineligible) -> Int {
    let typePlan = program.plan.types[type]
    guard typePlan.parameters.isEmpty, typePlan.instances.isEmpty, depth < Self.maxDepth,
      !(typePlan.isFileRoot && type != 0)
    else { throw Ineligible() }
    if case .switched = typePlan.endian { throw Ineligible() }
    objects.append(Object(type: type, parent: parent, inBody: inBody))
    return objects.count - 1
  }

  /// Byte order of an object's reads: its type's, or (inherited) its parent's.
  private func little(_ object: Int) throws(Ineligible) -> Bool {
    switch program.plan.types[objects[object].type].endian {
    case .fixed(let little): return little
    case .none: return false
    case .inherited: return objects[object].parent >= 0 ? try little(objects[object].parent) : false
    case .switched: throw Ineligible()
    }
  }

  private mutating func attribute(_ attribute: KsAttributePlan, object: Int, offset: inout Int, nested: Bool)
    throws(Ineligible)
  {
    guard attribute.condition == nil, !attribute.isRepeated, attribute.pos == nil, attribute.io == nil,
      attribute.check == nil, region.fields.count < Self.maxFields
    else { throw Ineligible() }
    let type = objects[object].type
    let name = names?.attributes[type][attribute.slot]
    switch attribute.read {
    case .integer(let bytes, let signed, let endian):
      let little = endian == .object ? try little(object) : endian == .little
      let index = base + region.fields.count
      region.fields.append(
        KsFastField(
          offset: offset, width: bytes, signed: signed, little: little, contents: nil,
          name: name, enumeration: attribute.enumeration, scale: attribute.keys.scale,
          valueOffset: attribute.keys.offset, unit: unit(attribute)))
      objects[object].fields[attribute.slot] = index
      offset += bytes
      try judge(attribute, field: index, object: object)
      if name == nil { region.flat = nil }
      region.flat?.append(.field(index))
    case .contents(let bytes):
      guard attribute.valid == nil, attribute.keys.expect == nil, attribute.keys.range == nil else {
        throw Ineligible()
      }
      region.fields.append(
        KsFastField(
          offset: offset, width: bytes.count, signed: false, little: false, contents: bytes,
          name: nil, enumeration: nil, scale: nil, valueOffset: nil, unit: ""))
      offset += bytes.count
      region.flat = nil
    case .user(let childType, let arguments, nil):
      guard arguments.isEmpty, attribute.keys.expect == nil, attribute.keys.range == nil,
        attribute.enumeration == nil
      else { throw Ineligible() }
      depth += 1
      defer { depth -= 1 }
      let child = try newObject(type: childType, parent: object)
      objects[object].children[attribute.slot] = child
      let start = offset
      let groupAt = region.flat?.count ?? 0
      if nested || name == nil { region.flat = nil }
      region.flat?.append(.field(-1))
      for member in program.plan.types[childType].seq {
        try self.attribute(member, object: child, offset: &offset, nested: true)
      }
      if let name, region.flat != nil {
        let count = (region.flat?.count ?? 0) - groupAt - 1
        region.flat?[groupAt] = .group(name, count: count, start: start, end: offset)
      }
      if let valid = attribute.valid {
        guard valid.equal == nil, valid.min == nil, valid.max == nil, valid.anyOf.isEmpty,
          valid.inEnum == nil,
          let expr = valid.expr
        else { throw Ineligible() }
        addCheck(try condition(expr, object: object, underscore: .object(child)))
      }
    default:
      throw Ineligible()
    }
  }

  /// A condition, said directly when it is a comparison with a constant,
  /// a known enum value or a range.
  private mutating func addCheck(_ ops: [KsFastOp]) {
    if ops.count == 3, case .binary(let op) = ops[0],
      [.equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual].contains(op),
      case .field(let field) = ops[1], case .constant(let constant) = ops[2]
    {
      region.checks.append(.compare(op, field: field, constant: constant))
    } else if ops.count == 2, case .known(let enumeration) = ops[0], case .field(let field) = ops[1] {
      region.checks.append(.known(field: field, enumeration: enumeration))
    } else if ops.count == 1, case .shown(let field, let scale, let offset, let lower, let upper) = ops[0] {
      region.checks.append(.shown(field: field, scale: scale, offset: offset, lower: lower, upper: upper))
    } else {
      region.checks.append(.expression(region.expressions.count))
      region.expressions.append(ops)
    }
  }

  private func unit(_ attribute: KsAttributePlan) -> StaticString {
    if let unit = attribute.unit { return unit.text }
    return attribute.keys.hex && attribute.enumeration == nil ? "hex" : ""
  }

  /// A field's conditions for a clean frame: `valid` (else damage), the
  /// expected value, a known enum value and the documented range (else warnings).
  private mutating func judge(_ attribute: KsAttributePlan, field: Int, object: Int) throws(Ineligible) {
    let value = Ref.value([.field(field)], bool: false)
    if let valid = attribute.valid {
      func equal(_ code: KsCode) throws(Ineligible) -> [KsFastOp] {
        [.binary(.equal), .field(field)] + (try integer(code, object: object, underscore: value))
      }
      if let code = valid.equal { addCheck(try equal(code)) }
      if let code = valid.min {
        addCheck(
          [.binary(.greaterEqual), .field(field)] + (try integer(code, object: object, underscore: value)))
      }
      if let code = valid.max {
        addCheck(
          [.binary(.lessEqual), .field(field)] + (try integer(code, object: object, underscore: value)))
      }
      if !valid.anyOf.isEmpty {
        var ops: [KsFastOp] = []
        for (position, code) in valid.anyOf.enumerated() {
          if position < valid.anyOf.count - 1 { ops.append(.binary(.logicalOr)) }
          ops += try equal(code)
        }
        addCheck(ops)
      }
      if let code = valid.expr {
        addCheck(try condition(code, object: object, underscore: value))
      }
      if let enumeration = valid.inEnum { addCheck([.known(enumeration), .field(field)]) }
    }
    if let expected = attribute.keys.expect {
      guard case .integer(let number) = expected else { throw Ineligible() }
      addCheck([.binary(.equal), .field(field), .constant(number)])
    }
    let type = objects[object].type
    if let enumeration = attribute.enumeration,
      !(program.discriminator?.type == type && program.discriminator?.slot == attribute.slot)
    {
      addCheck([.known(enumeration), .field(field)])
    }
    if let range = attribute.keys.range {
      addCheck([
        .shown(
          field: field, scale: attribute.keys.scale ?? 1, offset: attribute.keys.offset ?? 0,
          lower: range.lowerBound, upper: range.upperBound)
      ])
    }
  }

  // MARK: Expressions

  private func integer(_ code: KsCode, object: Int, underscore: Ref?) throws(Ineligible) -> [KsFastOp] {
    guard case .value(let ops, false) = try ref(code, object, underscore) else { throw Ineligible() }
    return ops
  }

  private func condition(_ code: KsCode, object: Int, underscore: Ref?) throws(Ineligible) -> [KsFastOp] {
    guard case .value(let ops, true) = try ref(code, object, underscore) else { throw Ineligible() }
    return ops
  }

  private func objectRef(_ code: KsCode, _ object: Int, _ underscore: Ref?) throws(Ineligible) -> Int {
    guard case .object(let found) = try ref(code, object, underscore) else { throw Ineligible() }
    return found
  }

  private func member(_ object: Int, _ slot: Int) throws(Ineligible) -> Ref {
    if let field = objects[object].fields[slot] { return .value([.field(field)], bool: false) }
    if let child = objects[object].children[slot] { return .object(child) }
    throw Ineligible()
  }

  private func ref(_ code: KsCode, _ object: Int, _ underscore: Ref?) throws(Ineligible) -> Ref {
    switch code {
    case .constant(.integer(let value)): return .value([.constant(value)], bool: false)
    case .constant(.bool(let flag)): return .value([.constant(flag ? 1 : 0)], bool: true)
    case .slot(let slot): return try member(object, slot)
    case .this: return .object(object)
    case .parent(let base):
      let parent = objects[try objectRef(base, object, underscore)].parent
      guard parent >= 0 else { throw Ineligible() }
      return .object(parent)
    case .root: return .object(0)
    case .member(let base, let slot): return try member(try objectRef(base, object, underscore), slot)
    case .underscore:
      guard let underscore else { throw Ineligible() }
      return underscore
    case .stream(let base): return .stream(try objectRef(base, object, underscore))
    case .streamSize(let base):
      guard case .stream(let owner) = try ref(base, object, underscore) else { throw Ineligible() }
      return .value([objects[owner].inBody && bodySized ? .bodySize : .frameSize], bool: false)
    case .not(let inner):
      return .value([.not] + (try condition(inner, object: object, underscore: underscore)), bool: true)
    case .negate(let inner, false):
      return .value([.negate] + (try integer(inner, object: object, underscore: underscore)), bool: false)
    case .arithmetic(let op, let a, let b, false):
      guard [.add, .subtract, .multiply, .and, .or, .xor].contains(op) else { throw Ineligible() }
      let (x, y) = (
        try integer(a, object: object, underscore: underscore),
        try integer(b, object: object, underscore: underscore)
      )
      return .value([.binary(op)] + x + y, bool: false)
    case .compare(let op, let a, let b, let type):
      switch type {
      case .integer, .enumeration:
        let (x, y) = (
          try integer(a, object: object, underscore: underscore),
          try integer(b, object: object, underscore: underscore)
        )
        return .value([.binary(op)] + x + y, bool: true)
      case .bool where op == .equal || op == .notEqual:
        let (x, y) = (
          try condition(a, object: object, underscore: underscore),
          try condition(b, object: object, underscore: underscore)
        )
        return .value([.binary(op)] + x + y, bool: true)
      default: throw Ineligible()
      }
    case .logical(let op, let a, let b):
      let (x, y) = (
        try condition(a, object: object, underscore: underscore),
        try condition(b, object: object, underscore: underscore)
      )
      return .value([.binary(op)] + x + y, bool: true)
    case .ternary(let test, let yes, let no):
      let ask = try condition(test, object: object, underscore: underscore)
      guard case .value(let x, let bool) = try ref(yes, object, underscore),
        case .value(let y, bool) = try ref(no, object, underscore)
      else { throw Ineligible() }
      return .value([.ternary] + ask + x + y, bool: bool)
    default:
      throw Ineligible()
    }
  }
}
