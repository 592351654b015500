import Foundation
import PacketKit
import Yams

/// Loads a `.ksy` file (and what it imports) into a `SpecProgram`, with
/// every error one line naming the file, its line and the key.
public enum SpecLoader {
  /// Loads the file at `path`; errors name it as given. `searchPaths`
  /// find absolute imports (`/common/foo`), as `ksc -I` does.
  public static func load(path: String, searchPaths: [String] = []) throws(SpecLoadError) -> SpecProgram {
    try program(try KsyLoader.load(path: path, searchPaths: searchPaths))
  }

  /// Loads spec text; `file` names it in errors (and relative imports start from its directory).
  public static func load(text: String, file: String, searchPaths: [String] = []) throws(SpecLoadError)
    -> SpecProgram
  {
    try program(try KsyLoader.load(text: text, file: file, searchPaths: searchPaths))
  }

  static func program(_ document: KsyDocument) throws(SpecLoadError) -> SpecProgram {
    let keys = document.keys
    if let messages = keys.jsonMessages {
      let root = document.root
      if let first = root.seq.first ?? root.instances.first {
        throw SpecLoadError(
          file: document.file, line: first.line, key: "seq",
          text: "a JSON protocol (encoding: json) is described in -pktbench; it has no seq or instances")
      }
      let spec = Spec(
        name: root.name, title: root.title ?? root.name, transport: keys.transport, notes: keys.notes,
        messages: messages, enums: keys.jsonEnums, udpPorts: keys.udpPorts,
        webSocketPaths: keys.webSocketPaths,
        ble: keys.ble, device: keys.device, examples: keys.examples, file: document.file)
      return SpecProgram(json: spec)
    }
    let compiler = KsCompiler(document)
    let plan = try compiler.compile()
    return SpecProgram(
      kaitai: try KsMessagePlanner(compiler: compiler, plan: plan, document: document).program())
  }

  static func yamlError(_ error: YamlError, file: String) -> SpecLoadError {
    switch error {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
      .composer(let context, let problem, let mark, _):
      let words = [context?.text, problem].compactMap { $0 }.joined(separator: ": ")
      return SpecLoadError(file: file, line: mark.line, key: nil, text: "not valid YAML: \(words)")
    case .duplicatedKeysInMapping(let duplicates, let context):
      return SpecLoadError(
        file: file, line: context.mark.line, key: duplicates.first, text: "given twice in one mapping")
    default:
      return SpecLoadError(file: file, line: 1, key: nil, text: "not valid YAML: \(error)")
    }
  }

  static func ble(_ node: SpecNode) throws(SpecLoadError) -> SpecBLE {
    let object = try node.object(allowing: ["service", "characteristics"])
    var characteristics: [SpecBLE.Characteristic] = []
    for item in try object.required("characteristics").list() {
      let entry = try item.object(allowing: ["uuid", "properties", "messages", "name"])
      characteristics.append(
        .init(
          uuid: try uuid(try entry.required("uuid")), properties: try entry.strings("properties"),
          messages: try entry.strings("messages")))
    }
    return SpecBLE(
      service: try object["service"].map { node throws(SpecLoadError) in try uuid(node) },
      characteristics: characteristics)
  }

  /// A 128-bit UUID in the usual 8-4-4-4-12 form, or a 16-bit one (`FF02`,
  /// `0x2A37`) on the Bluetooth base UUID, lower-cased as the router compares them.
  static func uuid(_ node: SpecNode) throws(SpecLoadError) -> String {
    var text = try node.string().lowercased()
    if text.hasPrefix("0x") { text.removeFirst(2) }
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
