import Foundation
import Testing

/// The public protocols' captures (written by
/// Tests/Fixtures/public/make_public_captures.py with Python's struct) and
/// what tshark's own dissectors and pktbench with a `.ksy` make of them.
enum PublicProtocolSupport {
  /// The captures, written once per test run into a temporary directory.
  static func captures() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-public-\(getpid())")
    if FileManager.default.fileExists(atPath: directory.appendingPathComponent("hrm.pcap").path) {
      return directory
    }
    let python = try #require(Pktbench.which("python3"), "python3 writes the captures")
    let script = Pktbench.root.appendingPathComponent("Tests/Fixtures/public/make_public_captures.py").path
    let result = try Pktbench.runProgram(python, [script, directory.path])
    try #require(result.status == 0, "make_public_captures.py: \(result.stderr)")
    return directory
  }

  /// tshark's values of `fields`, per frame with the protocol, each field's
  /// occurrences in order.
  static func tshark(_ capture: URL, _ fields: [String], filter: String, options: [String] = []) throws
    -> [[String: [String]]]
  {
    let tshark = try #require(Pktbench.which("tshark"), "tshark is installed by scripts/bootstrap")
    var arguments = options + ["-r", capture.path, "-Y", filter, "-T", "fields", "-E", "occurrence=a"]
    arguments += ["-E", "aggregator=\u{1F}"]
    for field in fields { arguments += ["-e", field] }
    let result = try Pktbench.runProgram(tshark, arguments)
    try #require(result.status == 0, "tshark: \(result.stderr)")
    return result.text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }.map {
      line in
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
      var values: [String: [String]] = [:]
      for (index, field) in fields.enumerated() {
        let text = index < columns.count ? String(columns[index]) : ""
        values[field] = text.isEmpty ? [] : text.split(separator: "\u{1F}").map(String.init)
      }
      return values
    }
  }

  /// pktbench's ndjson records of `codec` in `capture`.
  static func pktbench(_ capture: URL, codec: String, _ arguments: [String]) throws -> [[String: Any]] {
    let result = try Pktbench.run(["decode", capture.path, "--format", "ndjson"] + arguments)
    #expect(result.status == 0, "pktbench: \(result.stderr)")
    return result.text.split(separator: "\n").compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        object["codec"] as? String == codec
      else { return nil }
      return object
    }
  }

  /// A number as tshark writes it (`0x1234`, `42`) or as JSON holds it.
  static func integer(_ value: Any?) -> Int64? {
    switch value {
    case let number as NSNumber: return number.int64Value
    case let text as String:
      if text.hasPrefix("0x") { return Int64(text.dropFirst(2), radix: 16) }
      return Int64(text)
    default: return nil
    }
  }

  static func integers(_ texts: [String]?) -> [Int64] {
    (texts ?? []).compactMap { integer($0) }
  }

  /// Bytes as lower-case hex, from ndjson's hex or tshark's (with or without colons).
  static func hex(_ value: Any?) -> String? {
    (value as? String)?.lowercased().replacingOccurrences(of: ":", with: "")
  }

  static func object(_ value: Any?, _ path: String) -> Any? {
    var current = value
    for part in path.split(separator: ".") {
      guard let dictionary = current as? [String: Any] else { return nil }
      current = dictionary[String(part)]
    }
    return current
  }
}
