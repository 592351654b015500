import PacketKit

/// The main file's `-pktbench` section: what makes a format a codec —
/// which field names the message, where its traffic travels, how its
/// device answers, examples — and, for a JSON protocol (which Kaitai
/// cannot describe), its messages.
struct KsyProtocolKeys: Sendable {
  /// The attribute whose switch cases (or enum values) are the message kinds.
  var message: KsyExpression?
  var transport = ""
  var notes: [String] = []
  var udpPorts: [UInt16] = []
  var webSocketPaths: [SpecWebSocketPath] = []
  var ble: SpecBLE?
  var device: SpecDevice?
  var examples: [String: [String]] = [:]
  /// Bytes after the root's last field: nothing by default (as Kaitai
  /// reads them), or damage (or a warning) of the code the spec gives.
  var trailing: SpecTrailing = .ignored
  /// A JSON protocol's messages (`encoding: json`).
  var jsonMessages: [SpecMessageKind]?
  var jsonEnums: [SpecEnum] = []
}

/// What bytes after the root's last field are.
enum SpecTrailing: Sendable {
  case ignored
  case warning(String)
  case error(String)
}

struct KsyProtocolReader {
  let file: String

  static let keys = [
    "message", "transport", "notes", "udp", "websocket", "ble", "device", "examples", "trailing", "encoding",
    "messages", "enums",
  ]

  func read(_ node: SpecNode) throws(SpecLoadError) -> KsyProtocolKeys {
    let object = try node.object(allowing: Self.keys)
    var keys = KsyProtocolKeys()
    keys.message = try object["message"].map { node throws(SpecLoadError) in
      try KsyReader(file: file).expression(node, key: "message")
    }
    keys.transport = try object.string("transport") ?? ""
    keys.notes = try object.strings("notes")
    if let node = object["udp"] {
      for item in try node.list() {
        keys.udpPorts.append(UInt16(try item.integer(in: 1...65535, what: "a UDP port")))
      }
    }
    if let node = object["websocket"] {
      for item in try node.list() {
        let entry = try item.object(allowing: ["path-prefix", "last-segment-field"])
        keys.webSocketPaths.append(
          SpecWebSocketPath(
            prefix: try entry.required("path-prefix").string(),
            lastSegmentField: try entry.string("last-segment-field")))
      }
    }
    keys.ble = try object["ble"].map { node throws(SpecLoadError) in try SpecLoader.ble(node) }
    keys.device = try object["device"].map { node throws(SpecLoadError) in try SpecMessageLoader.device(node)
    }
    if let node = object["examples"] {
      for pair in try node.pairs() {
        keys.examples[pair.key] = try pair.value.list().map { node throws(SpecLoadError) in try node.string()
        }
      }
    }
    if let node = object["trailing"] {
      if node.isMapping {
        let inner = try node.object(allowing: ["warning", "error"])
        if let code = try inner.string("warning") { keys.trailing = .warning(code) }
        if let code = try inner.string("error") { keys.trailing = .error(code) }
      } else {
        keys.trailing = .error(try node.string())
      }
    }
    if let encoding = object["encoding"], try encoding.choice(["binary", "json"]) == "json" {
      try json(object, into: &keys)
    } else if let messages = object["messages"] {
      throw messages.error(
        "messages are for a JSON protocol (encoding: json); a binary one is the .ksy's seq")
    }
    return keys
  }

  private func json(_ object: SpecObject, into keys: inout KsyProtocolKeys) throws(SpecLoadError) {
    var enums: [SpecEnum] = []
    if let node = object["enums"] {
      for pair in try node.pairs() {
        enums.append(try SpecFieldLoader.enumeration(pair.value, name: pair.key))
      }
    }
    let fields = SpecFieldLoader(file: file, enums: enums)
    let messagesNode = try object.required("messages")
    var messages: [SpecMessageKind] = []
    for item in try messagesNode.list() {
      let message = try SpecMessageLoader.message(item, fields: fields)
      if let twin = messages.first(where: { $0.name == message.name }) {
        throw SpecLoadError(
          file: file, line: message.line, key: "name",
          text: "'\(message.name)' is already a message (line \(twin.line))")
      }
      messages.append(message)
    }
    guard !messages.isEmpty else { throw messagesNode.error("expected at least one message") }
    keys.jsonMessages = messages
    keys.jsonEnums = enums
  }
}
