/// Reads one field of a spec file (a mapping under `header`, `trailer`, a
/// message's `fields`, or a group's) into a `SpecField`.
struct SpecFieldLoader {
  let file: String
  let byteOrder: SpecByteOrder
  let enums: [SpecEnum]
  let json: Bool

  static let keys = [
    "name", "type", "width", "signed", "byte-order", "size", "count", "fields", "fixed", "expect", "error",
    "warning", "length-of", "count-of", "max", "check", "enum", "flags", "unit", "range", "display", "help",
    "flag", "default", "cases-are-flags", "offset", "optional",
  ]

  static let widths: [Int64] = [8, 16, 24, 32, 64]

  func fields(_ node: SpecNode) throws(SpecLoadError) -> [SpecField] {
    var fields: [SpecField] = []
    for item in try node.list() {
      let field = try self.field(item)
      if let twin = fields.first(where: { $0.name == field.name }) {
        throw SpecLoadError(
          file: file, line: field.line, key: "name",
          text: "'\(field.name)' is already a field here (line \(twin.line))")
      }
      fields.append(field)
    }
    return fields
  }

  func field(_ node: SpecNode) throws(SpecLoadError) -> SpecField {
    let object = try node.object(allowing: Self.keys)
    let name = try object.required("name").string()
    guard Self.isName(name) else {
      throw try object.required("name").error(
        "expected a name of letters, digits, '_' and '-', found '\(name)'")
    }
    let type = try self.type(object)
    var field = SpecField(name: name, line: node.line, type: type)
    if let node = object["unit"] {
      let text = try node.string()
      guard let unit = SpecUnits.unit(text) else {
        throw node.error(
          "expected one of the units \(SpecUnits.spellings.joined(separator: " ")), found '\(text)'")
      }
      field.unit = unit
    }
    if let range = object["range"] {
      let bounds = try range.list()
      guard bounds.count == 2 else { throw range.error("expected [low, high], found \(range.found)") }
      let (low, high) = (try bounds[0].number(), try bounds[1].number())
      guard low <= high else { throw range.error("expected low ≤ high, found [\(low), \(high)]") }
      field.range = low...high
    }
    field.enumeration = try object["enum"].map { node throws(SpecLoadError) in
      try enumeration(node, field: name)
    }
    field.flags = try object["flags"].map { node throws(SpecLoadError) in try flags(node) } ?? []
    if let display = object["display"] {
      field.display = SpecDisplay(rawValue: try display.choice(["decimal", "hex"])) ?? .decimal
    }
    field.help = try object.string("help") ?? ""
    field.craftFlag = try object.string("flag")
    field.defaultValue = try object["default"].map { node throws(SpecLoadError) in try literal(node) }
    field.casesAreFlags = try object["cases-are-flags"]?.bool() ?? false
    field.offset = try object["offset"].map { node throws(SpecLoadError) in
      Int(try node.integer(in: 0...65535, what: "an offset"))
    }
    field.optional = try object["optional"]?.bool() ?? false
    field.role = try role(object, type: type)
    try checkConsistent(field, object)
    return field
  }

  static func isName(_ name: String) -> Bool {
    !name.isEmpty
      && name.unicodeScalars.allSatisfy {
        ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") && $0.isASCII
      }
  }

  // MARK: Type

  private func type(_ object: SpecObject) throws(SpecLoadError) -> SpecType {
    let typeNode = try object.required("type")
    let spelling = try typeNode.string()
    let order =
      try object["byte-order"].map { node throws(SpecLoadError) in
        SpecByteOrder(rawValue: try node.choice(["little", "big"])) ?? .big
      } ?? byteOrder
    if json {
      guard let type = SpecJSONType(rawValue: spelling) else {
        throw typeNode.error("expected number, integer, string or bool (a JSON spec), found '\(spelling)'")
      }
      return .json(type)
    }
    // u8 … u64, i8 … i64, f32, f64: the width in the name.
    if let short = Self.shorthand(spelling) {
      if object.has("width") {
        throw try object.required("width").error("the type '\(spelling)' says its width already")
      }
      return short.float
        ? .float(width: short.width, order: order)
        : .integer(width: short.width, signed: short.signed, order: order)
    }
    switch spelling {
    case "uint", "int":
      let width = try self.width(object, allowed: Self.widths)
      let signed = try object["signed"]?.bool() ?? (spelling == "int")
      return .integer(width: width, signed: signed, order: order)
    case "float":
      return .float(width: try self.width(object, allowed: [32, 64]), order: order)
    case "bytes", "string":
      let size = try self.size(object)
      return spelling == "bytes" ? .bytes(size) : .text(size)
    case "group":
      return .group(try fields(object.required("fields")))
    case "repeat":
      let element = try fields(object.required("fields"))
      return .repeated(try count(object), element: element)
    default:
      throw typeNode.error(
        "expected u8, u16, u24, u32, u64, i8 … i64, f32, f64, uint, int, float, bytes, string, group or "
          + "repeat, found '\(spelling)'")
    }
  }

  static func shorthand(_ spelling: String) -> (width: Int, signed: Bool, float: Bool)? {
    guard let first = spelling.first, "uif".contains(first), let width = Int(spelling.dropFirst()) else {
      return nil
    }
    if first == "f" { return [32, 64].contains(width) ? (width, true, true) : nil }
    return widths.contains(Int64(width)) ? (width, first == "i", false) : nil
  }

  private func width(_ object: SpecObject, allowed: [Int64]) throws(SpecLoadError) -> Int {
    let node = try object.required("width")
    let width = try node.integer()
    guard allowed.contains(width) else {
      throw node.error("expected \(SpecNode.alternatives(allowed.map(String.init))), found \(width)")
    }
    return Int(width)
  }

  private func size(_ object: SpecObject) throws(SpecLoadError) -> SpecSize {
    guard let node = object["size"] else { return .rest }
    let text = try node.string()
    if text == "rest" { return .rest }
    if let count = SpecNode.parseInteger(text) {
      guard (0...65535).contains(count) else { throw node.error("expected 0…65535 bytes, found \(count)") }
      return .fixed(Int(count))
    }
    guard Self.isName(text) else {
      throw node.error("expected a size, 'rest' or a length field, found '\(text)'")
    }
    return .lengthField(text)
  }

  private func count(_ object: SpecObject) throws(SpecLoadError) -> SpecCount {
    guard let node = object["count"] else { return .rest }
    let text = try node.string()
    if text == "rest" { return .rest }
    if let count = SpecNode.parseInteger(text) {
      guard (0...4096).contains(count) else { throw node.error("expected 0…4096 elements, found \(count)") }
      return .fixed(Int(count))
    }
    guard Self.isName(text) else {
      throw node.error("expected a count, 'rest' or a count field, found '\(text)'")
    }
    return .countField(text)
  }

  // MARK: Role

  private func role(_ object: SpecObject, type: SpecType) throws(SpecLoadError) -> SpecRole {
    let roles = ["fixed", "expect", "length-of", "count-of", "check"].filter { object.has($0) }
    if json, let binary = roles.first(where: { $0 != "fixed" && $0 != "expect" }), let node = object[binary] {
      throw node.error("a JSON key is a value, fixed or expected; \(binary) is for binary layouts")
    }
    if roles.count > 1, let second = object[roles[1]] {
      throw second.error(
        "a field is one of fixed, expect, length-of, count-of or check; this one is also \(roles[0])")
    }
    let error = try object.string("error")
    let warning = try object.string("warning")
    // A code the field's role never reports would be silently dropped.
    if error != nil, roles.isEmpty || roles == ["expect"], let node = object["error"] {
      throw node.error(
        "an error code is for a fixed, length-of, count-of or check field; this field has none")
    }
    if warning != nil, roles != ["expect"], let node = object["warning"] {
      throw node.error("a warning code is for an expect field; this field has no expect")
    }
    if let fixed = object["fixed"] {
      let value = try literal(fixed)
      var isBytes = false
      if case .bytes = type { isBytes = true }
      return .fixed(value, error: error ?? (isBytes ? "bad-magic" : "bad-value"))
    }
    if let expected = object["expect"] {
      return .expected(try literal(expected), warning: warning ?? "unexpected-value")
    }
    let max = try object["max"].map { node throws(SpecLoadError) in
      Int(try node.integer(in: 0...Int64(Int32.max), what: "a maximum"))
    }
    if let target = object["length-of"] {
      let name = try target.string()
      let what: SpecLengthTarget = name == "frame" ? .frame : name == "body" ? .body : .field(name)
      return .length(of: what, max: max, error: error ?? "bad-length")
    }
    if let target = object["count-of"] {
      return .count(of: try target.string(), max: max, error: error ?? "bad-count")
    }
    if let check = object["check"] {
      return .check(try self.check(check, error: error))
    }
    return .value
  }

  /// `error`: the code written beside `check:`, as fixed and length
  /// fields have theirs; one inside `check:` wins.
  private func check(_ node: SpecNode, error outer: String?) throws(SpecLoadError) -> SpecCheck {
    let object = try node.object(allowing: [
      "algorithm", "variants", "from", "through", "report-as", "craft-parameter", "error",
    ])
    var variants: [SpecCheck.Variant] = []
    if let algorithm = object["algorithm"] {
      let name = try algorithm.string()
      variants.append(.init(name: name, algorithm: try checksum(algorithm)))
    }
    if let list = object["variants"] {
      for pair in try list.pairs() {
        variants.append(.init(name: pair.key, algorithm: try checksum(pair.value)))
      }
    }
    guard !variants.isEmpty else {
      throw node.error("expected 'algorithm' or 'variants'", key: "check")
    }
    if object.has("algorithm"), object.has("variants"), let list = object["variants"] {
      throw list.error("give 'algorithm' or 'variants', not both")
    }
    return SpecCheck(
      variants: variants, from: try object.string("from"), through: try object.string("through"),
      reportField: try object.string("report-as"), craftParameter: try object.string("craft-parameter"),
      error: try object.string("error") ?? outer ?? "bad-check")
  }

  private func checksum(_ node: SpecNode) throws(SpecLoadError) -> SpecChecksum {
    let text = try node.string()
    guard let algorithm = SpecChecksum(rawValue: text) else {
      throw node.error(
        "expected \(SpecNode.alternatives(SpecChecksum.allCases.map(\.rawValue))), found '\(text)'")
    }
    return algorithm
  }

  // MARK: Values

  func enumeration(_ node: SpecNode, field: String) throws(SpecLoadError) -> SpecEnum {
    if let name = node.scalar {
      guard let known = enums.first(where: { $0.name == name }) else {
        throw node.error(
          "no enum '\(name)' in 'enums'"
            + (enums.isEmpty ? "" : "; it has \(enums.map(\.name).joined(separator: ", "))"))
      }
      return known
    }
    return try Self.enumeration(node, name: field, json: json)
  }

  /// `NAME: value` pairs, or (for a JSON text field) a list of names.
  static func enumeration(_ node: SpecNode, name: String, json: Bool) throws(SpecLoadError) -> SpecEnum {
    var cases: [SpecEnum.Case] = []
    if node.isSequence {
      for (index, item) in try node.list().enumerated() {
        cases.append(.init(name: try item.string(), value: Int64(index)))
      }
    } else {
      for pair in try node.pairs() {
        let value = try pair.value.integer()
        if let twin = cases.first(where: { $0.value == value }) {
          throw pair.value.error("\(value) is already \(twin.name)")
        }
        cases.append(.init(name: pair.key, value: value))
      }
    }
    guard !cases.isEmpty else { throw node.error("expected at least one value") }
    return SpecEnum(name: name, cases: cases)
  }

  private func flags(_ node: SpecNode) throws(SpecLoadError) -> [SpecFlag] {
    var flags: [SpecFlag] = []
    for pair in try node.pairs() {
      guard Self.isName(pair.key) else { throw pair.value.error("expected a flag name, found '\(pair.key)'") }
      let mask = try pair.value.integer()
      guard mask > 0, mask & (mask - 1) == 0 else {
        throw pair.value.error("expected a mask of one bit (0x01, 0x80 …), found \(mask)")
      }
      flags.append(SpecFlag(name: pair.key, mask: UInt64(mask)))
    }
    return flags
  }

  /// A number, quoted text, `true`/`false`, or bytes: a list of numbers
  /// or hex text such as `5A A5` (for a bytes field).
  func literal(_ node: SpecNode) throws(SpecLoadError) -> SpecLiteral {
    if node.isSequence {
      var bytes: [UInt8] = []
      for item in try node.list() { bytes.append(UInt8(try item.integer(in: 0...255, what: "a byte"))) }
      return .bytes(bytes)
    }
    let text = try node.string()
    if !node.isQuoted {
      if let integer = SpecNode.parseInteger(text) { return .integer(integer) }
      if let number = Double(text), number.isFinite { return .number(number) }
      if text == "true" || text == "false" { return .bool(text == "true") }
    }
    return .text(text)
  }

  // MARK: Consistency within the field

  private func checkConsistent(_ field: SpecField, _ object: SpecObject) throws(SpecLoadError) {
    let isInteger: Bool
    let width: Int
    switch field.type {
    case .integer(let bits, _, _):
      isInteger = true
      width = bits
    case .json(let type):
      isInteger = type == .integer
      width = 64
    default:
      isInteger = false
      width = 0
    }
    if let node = object["enum"] {
      var textEnum = false
      if case .json(.string) = field.type { textEnum = true }
      guard isInteger || textEnum else {
        throw node.error("an enum needs an integer field (or a JSON string), not \(field.type.spelling)")
      }
    }
    if let node = object["flags"] {
      guard isInteger, width < 64 || true else { throw node.error("flags need an integer field") }
      if case .json = field.type { throw node.error("flags need a binary integer field") }
      for flag in field.flags where width < 64 && flag.mask >= (UInt64(1) << width) {
        throw node.error("flag \(flag.name) (mask \(flag.mask)) is outside a \(width)-bit field")
      }
      if field.enumeration != nil { throw node.error("a field has an enum or flags, not both") }
    }
    if case .check(let check) = field.role, let node = object["check"] {
      guard case .integer(let bits, _, _) = field.type else {
        throw node.error("a check is an unsigned integer field")
      }
      for variant in check.variants where variant.algorithm.width != bits {
        throw node.error(
          "\(variant.algorithm.rawValue) is \(variant.algorithm.width) bits; the field is \(bits)")
      }
    }
    if case .length = field.role, !isInteger, let node = object["length-of"] {
      throw node.error("a length is an integer field")
    }
    if case .count = field.role, !isInteger, let node = object["count-of"] {
      throw node.error("a count is an integer field")
    }
  }
}

extension SpecLiteral {
  var isBytes: Bool {
    if case .bytes = self { return true }
    return false
  }
}
