import Foundation
import PacketKit

/// Reads pktbench's extension keys on fields and types (`-pktbench-unit`,
/// `-pktbench-check`, `-pktbench-direction` …). Kaitai's tools ignore keys
/// that start with `-`, so a spec with them is still a valid `.ksy`; an
/// unknown `-pktbench-…` key is refused, as a misspelt one would
/// otherwise be silently lost.
struct KsyKeysReader {
  let file: String

  static let fieldKeys = [
    "-pktbench-unit", "-pktbench-scale", "-pktbench-offset", "-pktbench-range", "-pktbench-flag",
    "-pktbench-default", "-pktbench-cases-are-flags", "-pktbench-display", "-pktbench-error",
    "-pktbench-expect", "-pktbench-check", "-pktbench-unknown",
  ]
  static let typeKeys = [
    "-pktbench-craft-names", "-pktbench-direction", "-pktbench-rate", "-pktbench-probe",
    "-pktbench-size-mismatch", "-pktbench-summary",
  ]

  private func refuseOthers(_ pairs: [(key: String, value: SpecNode)], allowed: [String], what: String)
    throws(SpecLoadError)
  {
    for pair in pairs where !allowed.contains(pair.key) {
      throw SpecLoadError(
        file: file, line: pair.value.line, key: pair.key,
        text: "not a pktbench key of \(what); expected one of \(allowed.joined(separator: ", "))")
    }
  }

  func field(_ pairs: [(key: String, value: SpecNode)], line: Int) throws(SpecLoadError) -> KsyFieldKeys {
    try refuseOthers(pairs, allowed: Self.fieldKeys, what: "a field")
    var keys = KsyFieldKeys()
    keys.line = line
    let object = SpecObject(node: pairs.first?.value ?? SpecNode.placeholder(file), pairs: pairs)
    if let node = object["-pktbench-unit"] {
      let (scale, unit) = try Self.unit(node)
      keys.unit = unit
      keys.scale = scale
    }
    if let node = object["-pktbench-scale"] {
      let scale = try node.number()
      guard scale != 0 else { throw node.error("a scale of 0 would show every value as 0") }
      keys.scale = scale
    }
    keys.offset = try object["-pktbench-offset"]?.number()
    if let range = object["-pktbench-range"] {
      let bounds = try range.list()
      guard bounds.count == 2 else { throw range.error("expected [low, high], found \(range.found)") }
      let (low, high) = (try bounds[0].number(), try bounds[1].number())
      guard low <= high else { throw range.error("expected low ≤ high, found [\(low), \(high)]") }
      keys.range = low...high
    }
    keys.flag = try object.string("-pktbench-flag")
    keys.defaultValue = try object["-pktbench-default"].map { node throws(SpecLoadError) in
      try Self.literal(node)
    }
    keys.casesAreFlags = try object["-pktbench-cases-are-flags"]?.bool() ?? false
    if let display = object["-pktbench-display"] {
      keys.hex = try display.choice(["decimal", "hex"]) == "hex"
    }
    if let error = object["-pktbench-error"] {
      if error.isMapping {
        let inner = try error.object(allowing: ["code", "at"])
        keys.error = try inner.required("code").string()
        if let at = inner["at"] {
          keys.errorAt = try KsyReader(file: file).expression(at, key: "at")
        }
      } else {
        keys.error = try error.string()
      }
    }
    if let expect = object["-pktbench-expect"] {
      if expect.isMapping {
        let inner = try expect.object(allowing: ["value", "warning"])
        keys.expect = try Self.literal(try inner.required("value"))
        keys.expectWarning = try inner.string("warning") ?? keys.expectWarning
      } else {
        keys.expect = try Self.literal(expect)
      }
    }
    keys.check = try object["-pktbench-check"].map { node throws(SpecLoadError) in try check(node) }
    keys.unknown = try object["-pktbench-unknown"].map { node throws(SpecLoadError) in
      try SpecMessageLoader.unknown(node)
    }
    return keys
  }

  func message(_ pairs: [(key: String, value: SpecNode)], name: String) throws(SpecLoadError)
    -> KsyMessageKeys
  {
    try refuseOthers(pairs, allowed: Self.typeKeys, what: "a type")
    var keys = KsyMessageKeys()
    guard let first = pairs.first else { return keys }
    let object = SpecObject(node: first.value, pairs: pairs)
    keys.craftNames = try object.strings("-pktbench-craft-names")
    if let direction = object["-pktbench-direction"] {
      switch try direction.choice(["app-to-device", "device-to-app", "either"]) {
      case "app-to-device": keys.direction = .appToDevice
      case "device-to-app": keys.direction = .deviceToApp
      default: keys.direction = .either
      }
    }
    keys.probe = try object["-pktbench-probe"].map { node throws(SpecLoadError) in
      Int(try node.integer(in: 1...100, what: "a score"))
    }
    keys.summary = try object.string("-pktbench-summary")
    keys.rate = try object["-pktbench-rate"].map { node throws(SpecLoadError) in
      try SpecMessageLoader.rate(node, message: name)
    }
    keys.sizeMismatch = try object["-pktbench-size-mismatch"].map { node throws(SpecLoadError) in
      try SpecMessageLoader.sizeMismatch(node)
    }
    return keys
  }

  /// `"0.01 °C"`: a scale and the unit; `bpm`: the unit alone.
  static func unit(_ node: SpecNode) throws(SpecLoadError) -> (Double?, String) {
    let text = try node.string().trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty, text.utf8.count <= 32 else { throw node.error("expected a unit of 1…32 bytes") }
    guard
      text.unicodeScalars.allSatisfy({
        !$0.properties.isDefaultIgnorableCodePoint && $0.value >= 0x20 && $0.value != 0x7F
          && !(0x80..<0xA0).contains($0.value) && $0 != "\"" && $0 != "\\"
      })
    else {
      throw node.error("a unit of printable characters, without quotes or backslashes")
    }
    let parts = text.split(separator: " ", maxSplits: 1)
    if parts.count == 2, let scale = Double(parts[0]), scale.isFinite, scale != 0 {
      return (scale, String(parts[1]))
    }
    return (nil, text)
  }

  /// A number, quoted text, `true`/`false`, or bytes (a list of numbers).
  static func literal(_ node: SpecNode) throws(SpecLoadError) -> SpecLiteral {
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

  /// `-pktbench-check`: an algorithm (by name, or a CRC's parameters) or
  /// named variants, what it covers, and a per-message extra byte.
  func check(_ node: SpecNode) throws(SpecLoadError) -> KsyCheck {
    if !node.isMapping {
      return KsyCheck(
        variants: [.init(name: try node.string(), algorithm: try algorithm(node))], from: nil, through: nil,
        extra: nil, reportField: nil, craftParameter: nil, error: "bad-check", line: node.line)
    }
    let object = try node.object(allowing: [
      "algorithm", "crc", "variants", "from", "through", "extra", "report-as", "craft-parameter", "error",
    ])
    var variants: [KsyCheck.Variant] = []
    if let name = object["algorithm"] {
      variants.append(.init(name: try name.string(), algorithm: try algorithm(name)))
    }
    if let crc = object["crc"] { variants.append(.init(name: "crc", algorithm: try self.crc(crc))) }
    if let list = object["variants"] {
      for pair in try list.pairs() {
        let algorithm = pair.value.isMapping ? try self.crc(pair.value) : try self.algorithm(pair.value)
        variants.append(.init(name: pair.key, algorithm: algorithm))
      }
    }
    guard !variants.isEmpty else { throw node.error("expected algorithm, crc or variants") }
    guard Set(variants.map { $0.algorithm.width }).count == 1 else {
      throw node.error("the variants are of different widths")
    }
    return KsyCheck(
      variants: variants, from: try object.string("from"), through: try object.string("through"),
      extra: try object["extra"].map { node throws(SpecLoadError) in
        try KsyReader(file: file).expression(node, key: "extra")
      },
      reportField: try object.string("report-as"), craftParameter: try object.string("craft-parameter"),
      error: try object.string("error") ?? "bad-check", line: node.line)
  }

  private func algorithm(_ node: SpecNode) throws(SpecLoadError) -> SpecCheckAlgorithm {
    let name = try node.string()
    guard let algorithm = SpecCheckAlgorithm.named(name) else {
      throw node.error(
        "expected \(SpecNode.alternatives(SpecCheckAlgorithm.names)) or crc: {width, poly, init, refin, refout, xorout}, found '\(name)'"
      )
    }
    return algorithm
  }

  /// `{width: 16, poly: 0x1021, init: 0xffff, refin: true, refout: true, xorout: 0}`.
  private func crc(_ node: SpecNode) throws(SpecLoadError) -> SpecCheckAlgorithm {
    let object = try node.object(allowing: [
      "width", "poly", "init", "refin", "refout", "xorout", "name", "low-byte",
    ])
    let width = Int(try object.required("width").integer(in: 1...64, what: "a width"))
    func bits(_ key: String) throws(SpecLoadError) -> UInt64 {
      guard let value = object[key] else { return 0 }
      guard let scalar = value.scalar, let number = SpecNode.parseUnsigned(scalar) else {
        throw value.error("expected a whole number, found \(value.found)")
      }
      return number
    }
    let poly = try bits("poly")
    guard
      let crc = SpecCRC(
        width: width, poly: poly, initial: try bits("init"), reflectIn: try object["refin"]?.bool() ?? false,
        reflectOut: try object["refout"]?.bool() ?? false, xorOut: try bits("xorout"))
    else {
      throw node.error("poly, init and xorout must fit \(width) bits")
    }
    guard poly & 1 == 1 || width == 1 else {
      throw node.error("a CRC polynomial has its lowest bit set (poly is odd)")
    }
    let name = try object.string("name") ?? "CRC-\(width)"
    return try object["low-byte"]?.bool() == true ? .lowByte(crc, name: name) : .crc(crc, name: name)
  }
}
