import Foundation
import PacketKit
import Yams

/// Reads a spec file (YAML, or JSON, which YAML reads too) into a `Spec`,
/// with every error naming the file, its line and the key.
public enum SpecLoader {
  static let keys = [
    "pktbench-spec", "name", "title", "transport", "encoding", "byte-order", "notes", "enums", "header",
    "trailer", "discriminator", "messages", "unknown-message", "udp-ports", "websocket", "ble", "device",
    "examples",
  ]

  /// Loads the file at `path`; errors name it as given.
  public static func load(path: String) throws(SpecLoadError) -> Spec {
    // The system's words for why it cannot be read ("No such file or directory").
    guard access(path, R_OK) == 0 else {
      throw SpecLoadError(
        file: path, line: nil, key: nil, text: "cannot read it (\(String(cString: strerror(errno))))")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw SpecLoadError(file: path, line: nil, key: nil, text: "cannot read it (not a file)")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw SpecLoadError(file: path, line: nil, key: nil, text: "not UTF-8 text")
    }
    return try load(text: text, file: path)
  }

  /// Loads spec text; `file` names it in errors.
  public static func load(text: String, file: String) throws(SpecLoadError) -> Spec {
    let root: Node
    do {
      guard let node = try Yams.compose(yaml: text) else {
        throw SpecLoadError(file: file, line: 1, key: nil, text: "the file is empty")
      }
      root = node
    } catch let error as SpecLoadError {
      throw error
    } catch let error as YamlError {
      throw Self.yamlError(error, file: file)
    } catch {
      throw SpecLoadError(file: file, line: 1, key: nil, text: "\(error)")
    }
    let spec = try read(SpecNode(root, file: file, key: nil), file: file)
    return try SpecLayout.resolve(spec)
  }

  private static func yamlError(_ error: YamlError, file: String) -> SpecLoadError {
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      let words = [context?.text, problem].compactMap { $0 }.joined(separator: ": ")
      return SpecLoadError(file: file, line: mark.line, key: nil, text: "not valid YAML or JSON: \(words)")
    case .duplicatedKeysInMapping(let duplicates, let context):
      return SpecLoadError(
        file: file, line: context.mark.line, key: duplicates.first, text: "given twice in one mapping")
    default:
      return SpecLoadError(file: file, line: 1, key: nil, text: "not valid YAML or JSON: \(error)")
    }
  }

  private static func read(_ root: SpecNode, file: String) throws(SpecLoadError) -> Spec {
    let top = try root.object(allowing: keys)
    if let version = top["pktbench-spec"] {
      _ = try version.integer(in: 1...1, what: "spec format version")
    }
    let nameNode = try top.required("name")
    let name = try nameNode.string()
    guard SpecFieldLoader.isName(name), name == name.lowercased() else {
      throw nameNode.error("expected a lower-case name of letters, digits, '_' and '-', found '\(name)'")
    }
    let encoding = try top["encoding"]?.choice(["binary", "json"]) ?? "binary"
    let json = encoding == "json"
    let order =
      try top["byte-order"].map { node throws(SpecLoadError) in
        SpecByteOrder(rawValue: try node.choice(["little", "big"])) ?? .big
      } ?? .big

    var enums: [SpecEnum] = []
    if let node = top["enums"] {
      for pair in try node.pairs() {
        enums.append(try SpecFieldLoader.enumeration(pair.value, name: pair.key, json: false))
      }
    }
    let fields = SpecFieldLoader(file: file, byteOrder: order, enums: enums, json: json)
    let header = try top["header"].map { node throws(SpecLoadError) in try fields.fields(node) } ?? []
    let trailer = try top["trailer"].map { node throws(SpecLoadError) in try fields.fields(node) } ?? []

    let discriminator: SpecDiscriminator
    if json {
      discriminator = .keys
    } else if let node = top["discriminator"] {
      let text = try node.string()
      discriminator = text == "frame-length" ? .frameLength : .field(text)
    } else {
      discriminator = .none
    }

    let messagesNode = try top.required("messages")
    var messages: [SpecMessageKind] = []
    for item in try messagesNode.list() {
      let message = try SpecMessageLoader.message(
        item, fields: fields,
        when: { node throws(SpecLoadError) in
          try SpecLayout.discriminatorValue(node, discriminator: discriminator, header: header)
        })
      if let twin = messages.first(where: { $0.name == message.name }) {
        throw SpecLoadError(
          file: file, line: message.line, key: "name",
          text: "'\(message.name)' is already a message (line \(twin.line))")
      }
      messages.append(message)
    }
    guard !messages.isEmpty else { throw messagesNode.error("expected at least one message") }

    var udpPorts: [UInt16] = []
    if let node = top["udp-ports"] {
      for item in try node.list() {
        udpPorts.append(UInt16(try item.integer(in: 1...65535, what: "a UDP port")))
      }
    }
    var paths: [SpecWebSocketPath] = []
    if let node = top["websocket"] {
      for item in try node.list() {
        let object = try item.object(allowing: ["path-prefix", "last-segment-field"])
        paths.append(
          SpecWebSocketPath(
            prefix: try object.required("path-prefix").string(),
            lastSegmentField: try object.string("last-segment-field")))
      }
    }

    var examples: [String: [String]] = [:]
    if let node = top["examples"] {
      for pair in try node.pairs() {
        examples[pair.key] = try pair.value.list().map { node throws(SpecLoadError) in try node.string() }
      }
    }

    return Spec(
      name: name, title: try top.string("title") ?? name, transport: try top.string("transport") ?? "",
      encoding: json ? .json : .binary, notes: try top.strings("notes"), header: header, trailer: trailer,
      discriminator: discriminator, messages: messages,
      unknownMessage: try top["unknown-message"].map { node throws(SpecLoadError) in
        try SpecMessageLoader.unknown(node)
      },
      enums: enums, udpPorts: udpPorts, webSocketPaths: paths,
      ble: try top["ble"].map { node throws(SpecLoadError) in try ble(node) },
      device: try top["device"].map { node throws(SpecLoadError) in
        try SpecMessageLoader.device(node, fields: fields)
      },
      examples: examples, file: file)
  }

  private static func ble(_ node: SpecNode) throws(SpecLoadError) -> SpecBLE {
    let object = try node.object(allowing: ["service", "characteristics"])
    var characteristics: [SpecBLE.Characteristic] = []
    for item in try object.required("characteristics").list() {
      let entry = try item.object(allowing: ["uuid", "properties", "messages", "name"])
      let uuidNode = try entry.required("uuid")
      characteristics.append(
        .init(
          uuid: try uuid(uuidNode), properties: try entry.strings("properties"),
          messages: try entry.strings("messages")))
    }
    return SpecBLE(
      service: try object["service"].map { node throws(SpecLoadError) in try uuid(node) },
      characteristics: characteristics)
  }

  /// A 128-bit UUID in the usual 8-4-4-4-12 form, or a 16-bit one (`FF02`)
  /// on the Bluetooth base UUID, lower-cased as the router compares them.
  static func uuid(_ node: SpecNode) throws(SpecLoadError) -> String {
    let text = try node.string().lowercased()
    if text.count == 4, UInt16(text, radix: 16) != nil {
      return "0000\(text)-0000-1000-8000-00805f9b34fb"
    }
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ UInt64($0, radix: 16) != nil }) else {
      throw node.error("expected a UUID such as 12345678-1234-1234-1234-123456789abc, found '\(text)'")
    }
    return text
  }
}
