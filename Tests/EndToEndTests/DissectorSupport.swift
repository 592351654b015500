import Foundation
import Testing

/// What tshark shows with a generated dissector, read from its PDML, and
/// how that is held against pktbench's ndjson decode of the same capture.
enum DissectorSupport {
  /// One message as tshark dissected it: each field of the codec's
  /// (`legctrl.state`) in order, with its `showname` and `show`.
  struct Dissected {
    var fields: [String: [(showname: String, show: String)]] = [:]
  }

  /// `pktbench dissector ARGS` written to a file for `tshark -X lua_script:`.
  static func dissector(_ arguments: [String], name: String) throws -> URL {
    let result = try Pktbench.run(["dissector"] + arguments)
    try #require(result.status == 0, "pktbench dissector \(arguments): \(result.stderr)")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-dissector-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("\(name).lua")
    try Data(result.stdout).write(to: file)
    return file
  }

  /// The codec's messages in `capture` as tshark dissects them with `lua`,
  /// in order (a frame may carry several).
  static func tshark(_ tshark: String, lua: URL, capture: String, codec: String, options: [String] = [])
    throws
    -> [Dissected]
  {
    let result = try Pktbench.runProgram(
      tshark, ["-X", "lua_script:\(lua.path)", "-r", capture, "-T", "pdml", "-Y", codec] + options)
    #expect(!result.stderr.contains("Lua"), "tshark: \(result.stderr)")
    var messages: [Dissected] = []
    var inside = false
    for line in result.text.split(separator: "\n") {
      if line.contains("<proto name=") {
        inside = attribute(line, "name") == codec
        if inside { messages.append(Dissected()) }
        continue
      }
      guard inside, line.contains("<field "), let name = attribute(line, "name"), name.hasPrefix(codec + ".")
      else { continue }
      messages[messages.count - 1].fields[name, default: []].append(
        (attribute(line, "showname") ?? "", attribute(line, "show") ?? ""))
    }
    return messages
  }

  /// The value of `key="…"` in a PDML line, unescaped.
  static func attribute(_ line: Substring, _ key: String) -> String? {
    guard let start = line.range(of: " \(key)=\"") else { return nil }
    guard let end = line[start.upperBound...].firstIndex(of: "\"") else { return nil }
    return unescaped(String(line[start.upperBound..<end]))
  }

  static func unescaped(_ text: String) -> String {
    var out = text
    for (entity, character) in [
      ("&quot;", "\""), ("&lt;", "<"), ("&gt;", ">"), ("&apos;", "'"), ("&amp;", "&"),
    ] {
      out = out.replacingOccurrences(of: entity, with: character)
    }
    return out
  }

  /// Every difference between pktbench's decode of the codec's messages
  /// (ndjson lines) and tshark's, as sentences; empty when they agree on
  /// each message's fields, its warnings and its damage.
  /// `protocol`: the dissector's name in Wireshark, when not the codec's.
  static func differences(ndjson: String, dissected: [Dissected], codec: String, protocol: String? = nil)
    -> [String]
  {
    let name = `protocol` ?? codec
    let ours = ndjson.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }.filter { $0["codec"] as? String == codec }
    var problems: [String] = []
    if ours.count != dissected.count {
      problems.append("pktbench decodes \(ours.count) \(codec) messages, tshark \(dissected.count)")
    }
    for (object, message) in zip(ours, dissected) {
      var theirs = message
      let frame = object["frame"] as? Int ?? 0
      let experts = { (kind: String) -> [String] in
        (theirs.fields.removeValue(forKey: "\(name).\(kind)") ?? []).map {
          String($0.showname.prefix { $0 != ":" })
        }
      }
      let errors = experts("error")
      let warnings = experts("warning")
      if let error = object["error"] as? [String: Any] {
        let code = error["code"] as? String ?? ""
        if !errors.contains(code) { problems.append("frame \(frame): pktbench [\(code)], tshark \(errors)") }
        continue
      }
      let diagnostics = (object["diagnostics"] as? [[String: Any]] ?? []).filter {
        $0["severity"] as? String != "note"
      }.compactMap { $0["code"] as? String }
      if warnings.sorted() != diagnostics.sorted() || !errors.isEmpty {
        problems.append(
          "frame \(frame): pktbench warns \(diagnostics.sorted()), tshark \(warnings.sorted() + errors)")
      }
      var parents: Set<String> = []
      var flat: [(String, Any)] = []
      flatten(object["fields"] ?? [:], prefix: name, into: &flat, parents: &parents)
      for (key, value) in flat {
        guard var shown = theirs.fields[key], !shown.isEmpty else {
          problems.append("frame \(frame): tshark has no \(key) (pktbench: \(value))")
          continue
        }
        let field = shown.removeFirst()
        theirs.fields[key] = shown
        if !same(value, field) {
          problems.append("frame \(frame): \(key) is \(value) in pktbench, '\(field.showname)' in tshark")
        }
      }
      for (key, rest) in theirs.fields where !parents.contains(key) {
        // Groups (a header) carry no value of their own.
        for field in rest where !field.show.isEmpty {
          problems.append(
            "frame \(frame): tshark shows \(key) '\(field.showname)', pktbench has no such field")
        }
      }
    }
    return problems
  }

  /// ndjson's `fields` as (display-filter name, value) pairs in order.
  static func flatten(
    _ value: Any, prefix: String, into flat: inout [(String, Any)], parents: inout Set<String>
  ) {
    if let object = value as? [String: Any] {
      for (key, inner) in object.sorted(by: { $0.key < $1.key }) {
        let name = prefix + "." + key
        if inner is [String: Any] || inner is [Any] {
          parents.insert(name)
          flatten(inner, prefix: name, into: &flat, parents: &parents)
        } else {
          flat.append((name, inner))
        }
      }
    } else if let array = value as? [Any] {
      for element in array {
        if element is [String: Any] {
          flatten(element, prefix: prefix, into: &flat, parents: &parents)
        } else {
          flat.append((prefix, element))
        }
      }
    }
  }

  /// Whether tshark's field shows pktbench's value: numbers by value (hex
  /// or decimal), enums by name (`state: ARMED (1)`), bytes as hex.
  static func same(_ value: Any, _ field: (showname: String, show: String)) -> Bool {
    if let text = value as? String {
      if text.hasPrefix("unknown(") {
        let inner = text.dropFirst("unknown(".count).dropLast()
        return number(String(inner)) == number(field.show)
      }
      return field.showname.contains(": \(text) (") || field.show == text
        || field.show.replacingOccurrences(of: ":", with: "").lowercased() == text.lowercased()
    }
    if let number = value as? NSNumber {
      if let shown = Int64(field.show)
        ?? (field.show.hasPrefix("0x") ? Int64(field.show.dropFirst(2), radix: 16) : nil)
      {
        return number.int64Value == shown || number.doubleValue == Double(shown)
      }
      if field.show == "True" || field.show == "False" { return number.boolValue == (field.show == "True") }
      guard let shown = Double(field.show) else { return false }
      return abs(number.doubleValue - shown) <= abs(shown) * 1e-6
    }
    return false
  }

  static func number(_ text: String) -> Int64? {
    text.hasPrefix("0x") ? Int64(text.dropFirst(2), radix: 16) : Int64(text)
  }
}
