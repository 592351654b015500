import PacketKit

/// What a spec's parts say about each other, checked once it is read:
/// names that refer to fields exist and are unique, values fit their
/// fields, offsets given agree with the layout, and what the interpreter
/// reads from one field another gives (a length field and its byte
/// string) is filled in on both.
enum SpecLayout {
  static func resolve(_ spec: Spec) throws(SpecLoadError) -> Spec {
    var spec = spec
    let file = spec.file
    func fail(_ line: Int, _ key: String?, _ text: String) -> SpecLoadError {
      SpecLoadError(file: file, line: line, key: key, text: text)
    }

    if spec.encoding == .json {
      guard spec.header.isEmpty, spec.trailer.isEmpty else {
        throw fail(
          spec.header.first?.line ?? spec.trailer.first?.line ?? 1, "header",
          "a JSON spec has no header or trailer")
      }
    }

    // The discriminator is a header integer: it takes that role.
    if case .field(let name) = spec.discriminator {
      guard let path = path(of: name, in: spec.header) else {
        throw fail(1, "discriminator", "no header field '\(name)'")
      }
      try update(&spec.header, at: path) { (field: inout SpecField) throws(SpecLoadError) in
        guard case .integer = field.type, case .value = field.role else {
          throw fail(field.line, "discriminator", "'\(name)' must be a plain integer field")
        }
        field.role = .discriminator
      }
      var seen: [Int64: String] = [:]
      for message in spec.messages {
        guard let when = message.when else {
          throw fail(message.line, "when", "missing: the value of '\(name)' for \(message.name)")
        }
        if let twin = seen[when] { throw fail(message.line, "when", "\(when) is already \(twin)'s") }
        seen[when] = message.name
      }
    } else if spec.discriminator == .frameLength {
      var seen: [Int64: String] = [:]
      for message in spec.messages {
        guard let when = message.when else {
          throw fail(message.line, "when", "missing: the frame length of \(message.name)")
        }
        if let twin = seen[when] { throw fail(message.line, "when", "\(when) is already \(twin)'s") }
        seen[when] = message.name
      }
    } else if spec.discriminator == .none, spec.messages.count > 1,
      let second = spec.messages.dropFirst().first
    {
      throw fail(
        second.line, "discriminator",
        "missing: several messages need a discriminator (a header field or frame-length)")
    }

    try coerce(&spec.header, spec: spec)
    try coerce(&spec.trailer, spec: spec)
    for index in spec.messages.indices {
      try coerce(&spec.messages[index].fields, spec: spec)
    }

    // Offsets: the header's from 0; each message's after a static header.
    var headerEnd: Int? = 0
    try place(&spec.header, from: &headerEnd, file: file)
    for index in spec.messages.indices {
      var offset = headerEnd
      try place(&spec.messages[index].fields, from: &offset, file: file)
      let message = spec.messages[index]
      // Every name a field refers to, within the message's whole layout.
      var layout = spec.header + message.fields + spec.trailer
      try link(&layout, message: message.name, file: file)
      spec.messages[index].fields = Array(
        layout[spec.header.count..<(spec.header.count + message.fields.count)])
      if index == 0 {
        spec.header = Array(layout[0..<spec.header.count])
        spec.trailer = Array(layout[(spec.header.count + message.fields.count)...])
      }
      try checkCraftNames(spec, message: spec.messages[index])
      if spec.discriminator == .frameLength, let when = message.when {
        let sizes = (spec.header + spec.messages[index].fields + spec.trailer).map(\.staticSize)
        if sizes.allSatisfy({ $0 != nil }) {
          let total = sizes.reduce(0) { $0 + ($1 ?? 0) }
          guard Int64(total) == when else {
            throw fail(message.line, "when", "\(message.name)'s fields take \(total) bytes, not \(when)")
          }
        }
      }
    }
    if let device = spec.device { try checkDevice(device, spec: spec) }
    return spec
  }

  // MARK: The discriminator's values

  /// A message's `when`: a number, or a case of the discriminator's enum.
  static func discriminatorValue(_ node: SpecNode, discriminator: SpecDiscriminator, header: [SpecField])
    throws(SpecLoadError) -> Int64
  {
    if let number = node.scalar.flatMap(SpecNode.parseInteger) { return number }
    guard case .field(let name) = discriminator,
      let field = path(of: name, in: header).map({ self.field(at: $0, in: header) }),
      let enumeration = field.enumeration
    else {
      throw node.error("expected a number, found \(node.found)")
    }
    let text = try node.string()
    guard let known = enumeration.cases.first(where: { $0.name == text }) else {
      throw node.error(
        "expected a number or one of \(enumeration.cases.map(\.name).joined(separator: ", ")), found '\(text)'"
      )
    }
    return known.value
  }

  // MARK: Finding fields

  /// Indices from the top level down to the first field called `name`.
  static func path(of name: String, in fields: [SpecField]) -> [Int]? {
    for (index, field) in fields.enumerated() {
      if field.name == name { return [index] }
      switch field.type {
      case .group(let children):
        if let inner = path(of: name, in: children) { return [index] + inner }
      default: break
      }
    }
    return nil
  }

  static func field(at path: [Int], in fields: [SpecField]) -> SpecField {
    var field = fields[path[0]]
    for index in path.dropFirst() {
      if case .group(let children) = field.type { field = children[index] }
    }
    return field
  }

  static func update(
    _ fields: inout [SpecField], at path: [Int], _ change: (inout SpecField) throws(SpecLoadError) -> Void
  ) throws(SpecLoadError) {
    guard let first = path.first else { return }
    if path.count == 1 {
      try change(&fields[first])
      return
    }
    guard case .group(var children) = fields[first].type else { return }
    try update(&children, at: Array(path.dropFirst()), change)
    fields[first].type = .group(children)
  }

  /// How many fields are called `name`, at every level (references must be unique).
  static func count(of name: String, in fields: [SpecField]) -> Int {
    fields.reduce(0) { total, field in
      var inner = 0
      switch field.type {
      case .group(let children), .repeated(_, let children): inner = count(of: name, in: children)
      default: break
      }
      return total + (field.name == name ? 1 : 0) + inner
    }
  }

  // MARK: Values that fit

  /// Literals made the field's kind: hex text for bytes, enum names for
  /// numbers, and every value inside the field's width.
  private static func coerce(_ fields: inout [SpecField], spec: Spec) throws(SpecLoadError) {
    for index in fields.indices {
      var field = fields[index]
      switch field.type {
      case .group(var children):
        try coerce(&children, spec: spec)
        field.type = .group(children)
      case .repeated(let count, var element):
        try coerce(&element, spec: spec)
        field.type = .repeated(count, element: element)
      default: break
      }
      switch field.role {
      case .fixed(let value, let error):
        field.role = .fixed(try fit(value, field, spec: spec, key: "fixed"), error: error)
      case .expected(let value, let warning):
        field.role = .expected(try fit(value, field, spec: spec, key: "expect"), warning: warning)
      default: break
      }
      if let value = field.defaultValue {
        field.defaultValue = try fit(value, field, spec: spec, key: "default")
      }
      fields[index] = field
    }
  }

  static func fit(_ value: SpecLiteral, _ field: SpecField, spec: Spec, key: String) throws(SpecLoadError)
    -> SpecLiteral
  {
    func fail(_ text: String) -> SpecLoadError {
      SpecLoadError(file: spec.file, line: field.line, key: key, text: text)
    }
    switch (field.type, value) {
    case (.bytes(let size), .text(let text)):
      guard let bytes = try? Hex.parse(text) else {
        throw fail("expected hex bytes such as '5A A5', found '\(text)'")
      }
      if case .fixed(let count) = size, bytes.count != count {
        throw fail("expected \(count) bytes, found \(bytes.count)")
      }
      return .bytes(bytes)
    case (.bytes(let size), .bytes(let bytes)):
      if case .fixed(let count) = size, bytes.count != count {
        throw fail("expected \(count) bytes, found \(bytes.count)")
      }
      return value
    case (.integer(let width, let signed, _), .integer(let number)):
      guard SpecInteger.fits(number, width: width, signed: signed) else {
        throw fail("\(number) does not fit a\(signed ? " signed" : "n unsigned") \(width)-bit field")
      }
      return value
    case (.integer(let width, let signed, _), .text(let text)):
      if let enumeration = field.enumeration, let known = enumeration.named(text) {
        return try fit(.integer(known.value), field, spec: spec, key: key)
      }
      _ = (width, signed)
      throw fail(
        field.enumeration.map {
          "expected a number or one of \($0.cases.map(\.name).joined(separator: ", ")), found '\(text)'"
        }
          ?? "expected a number, found '\(text)'")
    case (.float, .integer(let number)): return .number(Double(number))
    case (.float, .number): return value
    case (.text, .text): return value
    case (.text, .integer(let number)): return .text(String(number))
    case (.json(.string), .text(let text)):
      if let enumeration = field.enumeration, enumeration.named(text) == nil {
        throw fail(
          "expected one of \(enumeration.cases.map(\.name).joined(separator: ", ")), found '\(text)'")
      }
      return value
    case (.json(.number), .integer(let number)): return .number(Double(number))
    case (.json(.number), .number), (.json(.integer), .integer), (.json(.bool), .bool): return value
    case (.integer, .bool(let flag)) where !field.flags.isEmpty: return .integer(flag ? 1 : 0)
    default:
      throw fail("\(describe(value)) does not suit a \(field.type.spelling) field")
    }
  }

  static func describe(_ value: SpecLiteral) -> String {
    switch value {
    case .integer(let number): String(number)
    case .number(let number): JSONWriter.formatNumber(number)
    case .text(let text): "'\(text)'"
    case .bytes(let bytes): Hex.spaced(bytes)
    case .bool(let flag): flag ? "true" : "false"
    }
  }

  // MARK: Offsets

  /// Gives each field its offset while the layout before it has a static
  /// size; checks the offsets the spec states.
  private static func place(_ fields: inout [SpecField], from offset: inout Int?, file: String)
    throws(SpecLoadError)
  {
    for index in fields.indices {
      var field = fields[index]
      if let stated = field.offset, let known = offset, stated != known {
        throw SpecLoadError(
          file: file, line: field.line, key: "offset",
          text: "expected \(known) (where the fields before it end), found \(stated)")
      }
      field.offset = offset ?? field.offset
      if case .group(var children) = field.type {
        var inner = offset
        try place(&children, from: &inner, file: file)
        field.type = .group(children)
      }
      if let size = field.staticSize, let start = offset {
        offset = start + size
      } else {
        offset = nil
      }
      fields[index] = field
    }
  }

  // MARK: References

  /// Links length and count fields with what they measure, and checks
  /// that check ranges name fields of the layout.
  private static func link(_ layout: inout [SpecField], message: String, file: String) throws(SpecLoadError) {
    func fail(_ line: Int, _ key: String, _ text: String) -> SpecLoadError {
      SpecLoadError(file: file, line: line, key: key, text: text)
    }
    func unique(_ name: String, _ line: Int, _ key: String) throws(SpecLoadError) -> [Int] {
      let found = count(of: name, in: layout)
      guard found == 1, let path = path(of: name, in: layout) else {
        throw fail(
          line, key,
          found == 0
            ? "no field '\(name)' in \(message)'s layout"
            : "'\(name)' names \(found) fields in \(message)'s layout")
      }
      return path
    }
    for field in flatten(layout) {
      switch field.role {
      case .length(.field(let target), _, _):
        let path = try unique(target, field.line, "length-of")
        try update(&layout, at: path) { (sized: inout SpecField) throws(SpecLoadError) in
          switch sized.type {
          case .bytes(.rest), .bytes(.lengthField(field.name)): sized.type = .bytes(.lengthField(field.name))
          case .text(.rest), .text(.lengthField(field.name)): sized.type = .text(.lengthField(field.name))
          default:
            throw fail(field.line, "length-of", "'\(target)' is not a byte string or text of variable size")
          }
        }
      case .count(let target, _, _):
        let path = try unique(target, field.line, "count-of")
        try update(&layout, at: path) { (counted: inout SpecField) throws(SpecLoadError) in
          guard case .repeated(let count, let element) = counted.type,
            count == .rest || count == .countField(field.name)
          else { throw fail(field.line, "count-of", "'\(target)' is not a repeat of variable count") }
          counted.type = .repeated(.countField(field.name), element: element)
        }
      case .check(let check):
        if let from = check.from { _ = try unique(from, field.line, "from") }
        if let through = check.through { _ = try unique(through, field.line, "through") }
      default: break
      }
      // A size or count given by name makes that field its length or count.
      var measured: String?
      var isCount = false
      switch field.type {
      case .bytes(.lengthField(let name)), .text(.lengthField(let name)): measured = name
      case .repeated(.countField(let name), _):
        measured = name
        isCount = true
      default: break
      }
      if let measured {
        let path = try unique(measured, field.line, isCount ? "count" : "size")
        try update(&layout, at: path) { (measure: inout SpecField) throws(SpecLoadError) in
          switch measure.role {
          case .value:
            guard case .integer = measure.type else {
              throw fail(field.line, isCount ? "count" : "size", "'\(measured)' is not an integer field")
            }
            measure.role =
              isCount
              ? .count(of: field.name, max: nil, error: "bad-count")
              : .length(of: .field(field.name), max: nil, error: "bad-length")
          case .length(.field(field.name), _, _) where !isCount: break
          case .count(field.name, _, _) where isCount: break
          default:
            throw fail(field.line, isCount ? "count" : "size", "'\(measured)' already plays another part")
          }
        }
      }
    }
  }

  /// Every field at every level, groups before their members.
  static func flatten(_ fields: [SpecField]) -> [SpecField] {
    fields.flatMap { field -> [SpecField] in
      switch field.type {
      case .group(let children), .repeated(_, let children): [field] + flatten(children)
      default: [field]
      }
    }
  }

  // MARK: Craft names

  /// The craft fields of a message (and its flag bits and check
  /// parameters) must have different names and flags.
  private static func checkCraftNames(_ spec: Spec, message: SpecMessageKind) throws(SpecLoadError) {
    var names: [String: Int] = [:]
    var flags: [String: Int] = [:]
    for schema in SpecSchema.craftFields(of: message, in: spec) {
      if let line = names[schema.name], line != schema.line {
        throw SpecLoadError(
          file: spec.file, line: schema.line, key: "name",
          text: "'\(schema.name)' is crafted twice in \(message.name) (also line \(line)); rename one")
      }
      names[schema.name] = schema.line
      if let line = flags[schema.flag], line != schema.line {
        throw SpecLoadError(
          file: spec.file, line: schema.line, key: "flag",
          text: "--\(schema.flag) is already a craft flag of \(message.name) (line \(line))")
      }
      flags[schema.flag] = schema.line
    }
  }

  // MARK: The device

  private static func checkDevice(_ device: SpecDevice, spec: Spec) throws(SpecLoadError) {
    for reply in device.replies {
      func fail(_ key: String, _ text: String) -> SpecLoadError {
        SpecLoadError(file: spec.file, line: reply.line, key: key, text: text)
      }
      guard let answered = spec.message(named: reply.to) else {
        throw fail(
          "to", "no message '\(reply.to)'; the spec has \(spec.messages.map(\.name).joined(separator: ", "))")
      }
      let answeredFields = SpecSchema.craftFields(of: answered, in: spec).map(\.name)
      for name in reply.when.keys.sorted() where !answeredFields.contains(name) {
        throw fail("when", "\(answered.name) has no field '\(name)'")
      }
      if let send = reply.send {
        guard let sent = spec.message(named: send) else { throw fail("send", "no message '\(send)'") }
        let sentFields = SpecSchema.craftFields(of: sent, in: spec).map(\.name)
        for name in (Array(reply.with.keys) + reply.copy).sorted() where !sentFields.contains(name) {
          throw fail("with", "\(sent.name) has no field '\(name)'")
        }
      }
    }
    if let setting = device.checkSetting {
      let parameters = spec.messages.flatMap { SpecSchema.craftFields(of: $0, in: spec) }
        .filter { $0.isCraftParameter }.map(\.name)
      guard parameters.contains(setting) else {
        throw SpecLoadError(
          file: spec.file, line: 1, key: "check-setting",
          text: "no check has the craft parameter '\(setting)'")
      }
    }
  }
}
