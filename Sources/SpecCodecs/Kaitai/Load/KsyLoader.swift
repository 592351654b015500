import Foundation
import PacketKit
import Yams

/// A `.ksy` file as loaded: its root type (named by `meta/id`), the roots
/// of the files it imports, and its `-pktbench` section.
struct KsyDocument: Sendable {
  var root: KsyType
  var imported: [KsyType]
  var keys: KsyProtocolKeys
  var file: String
}

/// Reads `.ksy` files: the file and what it imports (relative to it, or
/// absolute through the search path, as `ksc -I` and `KSPATH` give it),
/// refusing at once what could not be read in bounded time and memory:
/// a file over 1 MiB, flow collections nested deeper than 64, more than
/// 64 files, and (as `SpecBudget` counts) aliases that expand too far.
enum KsyLoader {
  static let maxBytes = 1 << 20
  static let maxFiles = 64
  static let maxFlowDepth = 64

  static func load(path: String, searchPaths: [String]) throws(SpecLoadError) -> KsyDocument {
    var loaded: [String: KsyType] = [:]
    var order: [KsyType] = []
    let root = try loadFile(path: path, shown: path, searchPaths: searchPaths, loaded: &loaded, order: &order)
    return KsyDocument(
      root: root, imported: order.filter { $0 !== root }, keys: root.protocolKeys ?? KsyProtocolKeys(),
      file: path)
  }

  static func load(text: String, file: String, searchPaths: [String] = []) throws(SpecLoadError)
    -> KsyDocument
  {
    var loaded: [String: KsyType] = [:]
    var order: [KsyType] = []
    let root = try parse(text: text, file: file)
    loaded[file] = root
    order.append(root)
    try resolveImports(
      of: root, directory: URL(fileURLWithPath: file).deletingLastPathComponent().path,
      searchPaths: searchPaths, loaded: &loaded, order: &order)
    return KsyDocument(
      root: root, imported: order.filter { $0 !== root }, keys: root.protocolKeys ?? KsyProtocolKeys(),
      file: file)
  }

  static func read(path: String) throws(SpecLoadError) -> String {
    guard access(path, R_OK) == 0 else {
      throw SpecLoadError(
        file: path, line: nil, key: nil, text: "cannot read it (\(String(cString: strerror(errno))))")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
      let handle = FileHandle(forReadingAtPath: path)
    else {
      throw SpecLoadError(file: path, line: nil, key: nil, text: "cannot read it (not a file)")
    }
    defer { try? handle.close() }
    // One byte more than allowed says it is too long, without reading a huge file whole.
    let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
    guard data.count <= maxBytes else {
      throw SpecLoadError(file: path, line: nil, key: nil, text: "larger than \(maxBytes) bytes; refused")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw SpecLoadError(file: path, line: nil, key: nil, text: "not UTF-8 text")
    }
    return text
  }

  private static func loadFile(
    path: String, shown: String, searchPaths: [String], loaded: inout [String: KsyType],
    order: inout [KsyType]
  ) throws(SpecLoadError) -> KsyType {
    let canonical = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    if let known = loaded[canonical] { return known }
    guard loaded.count < maxFiles else {
      throw SpecLoadError(
        file: shown, line: nil, key: nil, text: "more than \(maxFiles) files imported; refused")
    }
    let root = try parse(text: try read(path: path), file: shown)
    loaded[canonical] = root
    order.append(root)
    try resolveImports(
      of: root, directory: URL(fileURLWithPath: path).deletingLastPathComponent().path,
      searchPaths: searchPaths,
      loaded: &loaded, order: &order)
    return root
  }

  private static func resolveImports(
    of root: KsyType, directory: String, searchPaths: [String], loaded: inout [String: KsyType],
    order: inout [KsyType]
  ) throws(SpecLoadError) {
    for (name, line) in root.imports {
      let candidates: [String]
      if name.hasPrefix("/") {
        candidates = searchPaths.map {
          URL(fileURLWithPath: $0).appendingPathComponent(String(name.dropFirst()) + ".ksy").path
        }
      } else {
        candidates = [URL(fileURLWithPath: directory).appendingPathComponent(name + ".ksy").path]
      }
      guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        let where_ =
          name.hasPrefix("/")
          ? (searchPaths.isEmpty
            ? "no search path is set (--ksy-path DIR or KSPATH)"
            : "not in \(searchPaths.joined(separator: ", "))")
          : "no \(candidates[0])"
        throw SpecLoadError(
          file: root.file, line: line, key: "imports", text: "cannot import '\(name)': \(where_)")
      }
      _ = try loadFile(path: found, shown: found, searchPaths: searchPaths, loaded: &loaded, order: &order)
    }
  }

  /// One file's text into its root type.
  static func parse(text: String, file: String) throws(SpecLoadError) -> KsyType {
    guard text.utf8.count <= maxBytes else {
      throw SpecLoadError(file: file, line: nil, key: nil, text: "larger than \(maxBytes) bytes; refused")
    }
    try checkFlowDepth(text, file: file)
    let node: Node
    do {
      guard let composed = try Yams.compose(yaml: text) else {
        throw SpecLoadError(file: file, line: 1, key: nil, text: "the file is empty")
      }
      node = composed
    } catch let error as SpecLoadError {
      throw error
    } catch let error as YamlError {
      throw SpecLoader.yamlError(error, file: file)
    } catch {
      throw SpecLoadError(file: file, line: 1, key: nil, text: "\(error)")
    }
    let top = SpecNode(node, file: file, key: nil, budget: SpecBudget())
    guard top.isMapping else {
      throw top.error("expected a mapping with meta, seq, types …, found \(top.found)")
    }
    let pairs = try top.pairs()
    guard let meta = pairs.first(where: { $0.key == "meta" })?.value, meta.isMapping,
      let idNode = try meta.pairs().first(where: { $0.key == "id" })?.value
    else {
      throw SpecLoadError(file: file, line: 1, key: "meta", text: "a .ksy file needs meta/id, its name")
    }
    let id = try idNode.string()
    guard KsyReader.isIdentifier(id) else {
      throw idNode.error("expected an identifier (lower case letters, digits, '_'), found '\(id)'")
    }
    let root = try KsyReader(file: file).type(top, name: id, depth: 0)
    root.isFileRoot = true
    return root
  }

  /// Flow collections (`[[[…]]]`) nest the YAML composer's recursion:
  /// refused past `maxFlowDepth` before it is run. Quoted text and
  /// comments are skipped; block nesting is bounded by the file's size.
  private static func checkFlowDepth(_ text: String, file: String) throws(SpecLoadError) {
    var depth = 0
    var line = 1
    var quote: UInt8?
    var comment = false
    var previous: UInt8 = 0x0A
    for byte in text.utf8 {
      defer { previous = byte }
      if byte == 0x0A {
        line += 1
        comment = false
        if quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") { continue }
        continue
      }
      if comment { continue }
      if let open = quote {
        if byte == open { quote = nil }
        continue
      }
      switch byte {
      case UInt8(ascii: "#") where previous == 0x20 || previous == 0x0A || previous == 0x09: comment = true
      case UInt8(ascii: "\""), UInt8(ascii: "'"):
        if previous == 0x20 || previous == 0x0A || previous == UInt8(ascii: "[")
          || previous == UInt8(ascii: "{")
          || previous == UInt8(ascii: ",") || previous == UInt8(ascii: ":")
        {
          quote = byte
        }
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        guard depth <= maxFlowDepth else {
          throw SpecLoadError(
            file: file, line: line, key: nil, text: "collections nested deeper than \(maxFlowDepth); refused")
        }
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        depth = max(0, depth - 1)
      default: break
      }
    }
  }
}
