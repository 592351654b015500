import Foundation
import PacketKit

/// Reads a message kind, the unknown message and the device's replies.
enum SpecMessageLoader {
  static let keys = [
    "name", "craft-names", "summary", "direction", "fields", "probe", "rate",
  ]

  /// A JSON message kind: its name and keys.
  static func message(_ node: SpecNode, fields: SpecFieldLoader) throws(SpecLoadError) -> SpecMessageKind {
    let object = try node.object(allowing: keys)
    let nameNode = try object.required("name")
    let name = try nameNode.string()
    guard SpecFieldLoader.isName(name) else {
      throw nameNode.error("expected a name of letters, digits, '_' and '-', found '\(name)'")
    }
    let direction: MessageSchema.Direction
    switch try object["direction"]?.choice(["app-to-device", "device-to-app", "either"]) {
    case "app-to-device": direction = .appToDevice
    case "device-to-app": direction = .deviceToApp
    default: direction = .either
    }
    return SpecMessageKind(
      name: name, line: node.line, craftNames: try object.strings("craft-names"),
      summary: try object.string("summary") ?? name, direction: direction,
      fields: try object["fields"].map { node throws(SpecLoadError) in try fields.fields(node) } ?? [],
      probe: try object["probe"].map { node throws(SpecLoadError) in
        Int(try node.integer(in: 1...100, what: "a score"))
      },
      rate: try object["rate"].map { node throws(SpecLoadError) in try rate(node, message: name) })
  }

  static func sizeMismatch(_ node: SpecNode) throws(SpecLoadError) -> SpecSizeMismatch {
    let object = try node.object(allowing: ["action", "code", "text", "field"])
    let action = try object.required("action").choice(["error", "unknown", "keep"])
    let code = try object.string("code")
    let text = try object.string("text")
    switch action {
    case "unknown": return .unknown(warning: code ?? "size-mismatch", text: text)
    case "keep":
      return .keep(field: try object.string("field") ?? "extra", warning: code ?? "extra-bytes", text: text)
    default: return .error(code: code ?? "bad-length")
    }
  }

  /// `{hz: 50, tolerance: 10%}` or `{every: [2, 9]}` (seconds between messages).
  static func rate(_ node: SpecNode, message: String) throws(SpecLoadError) -> SpecRate {
    let object = try node.object(allowing: ["hz", "tolerance", "every", "rule", "text"])
    let rule = try object.string("rule") ?? "\(message)-rate"
    if let hzNode = object["hz"] {
      let hz = try hzNode.number()
      guard hz > 0 else { throw hzNode.error("expected a rate above 0, found \(hz)") }
      var tolerance = 0.10
      if let node = object["tolerance"] {
        let text = try node.string()
        let percent = text.hasSuffix("%")
        guard let value = Double(text.dropLast(percent ? 1 : 0).trimmingCharacters(in: .whitespaces)),
          value >= 0, value < (percent ? 100 : 1)
        else {
          throw node.error("expected a fraction such as 0.1 or a percentage such as 10%, found '\(text)'")
        }
        tolerance = percent ? value / 100 : value
      }
      let text =
        try object.string("text")
        ?? "\(JSONWriter.formatNumber(hz)) Hz ± \(JSONWriter.formatNumber(tolerance * 100)) %"
      return SpecRate(
        text: text, lowHz: hz * (1 - tolerance), highHz: hz * (1 + tolerance), perInterval: false, rule: rule)
    }
    let every = try object.required("every")
    let bounds = try every.list()
    guard bounds.count == 2 else {
      throw every.error("expected [shortest, longest] seconds, found \(every.found)")
    }
    let (shortest, longest) = (try bounds[0].number(), try bounds[1].number())
    guard shortest > 0, shortest <= longest else {
      throw every.error("expected 0 < shortest ≤ longest, found [\(shortest), \(longest)]")
    }
    let text =
      try object.string("text")
      ?? "one every \(JSONWriter.formatNumber(shortest))–\(JSONWriter.formatNumber(longest)) s"
    return SpecRate(text: text, lowHz: 1 / longest, highHz: 1 / shortest, perInterval: true, rule: rule)
  }

  static func unknown(_ node: SpecNode) throws(SpecLoadError) -> SpecUnknownMessage {
    let object = try node.object(allowing: ["name", "warning", "text", "field"])
    return SpecUnknownMessage(
      name: try object.string("name") ?? "unknown",
      warning: try object.string("warning") ?? "unknown-message",
      text: try object.string("text"), bodyField: try object.string("field") ?? "payload")
  }

  static func device(_ node: SpecNode) throws(SpecLoadError) -> SpecDevice {
    let object = try node.object(allowing: ["name", "listens", "check-setting", "replies"])
    var replies: [SpecReply] = []
    for item in try object.required("replies").list() {
      let reply = try item.object(allowing: ["to", "when", "warnings", "send", "with", "copy"])
      replies.append(
        SpecReply(
          to: try reply.required("to").string(), when: try literals(reply["when"]),
          warnings: try reply["warnings"]?.bool(), send: try reply.string("send"),
          with: try literals(reply["with"]), copy: try reply.strings("copy"), line: item.line))
    }
    let listens = try object.strings("listens")
    for listen in listens where listen != "udp" {
      throw SpecLoadError(
        file: node.file, line: node.line, key: "listens", text: "expected udp, found '\(listen)'")
    }
    return SpecDevice(
      name: try object.string("name") ?? "device", listens: listens.isEmpty ? ["udp"] : listens,
      checkSetting: try object.string("check-setting"), replies: replies)
  }

  private static func literals(_ node: SpecNode?) throws(SpecLoadError) -> [String: SpecLiteral] {
    guard let node else { return [:] }
    var values: [String: SpecLiteral] = [:]
    for pair in try node.pairs() { values[pair.key] = try KsyKeysReader.literal(pair.value) }
    return values
  }
}
