import Foundation
import Testing

/// Every capture in Captures/ decodes to the messages its generator sent
/// (Captures/expected/*.json, written by the scripts that made the traffic).
@Suite struct CaptureFixtureTests {
  static let captures = Pktbench.root.appendingPathComponent("Captures")

  /// Fixture paths relative to Captures/: expected/*.json for IP captures,
  /// ble/expected/*.json for Bluetooth ones (whose captures sit in ble/).
  static var fixtures: [String] {
    var found: [String] = []
    for folder in ["expected", "ble/expected"] {
      let directory = captures.appendingPathComponent(folder)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
      found += names.filter { $0.hasSuffix(".json") }.map { "\(folder)/\($0)" }
    }
    return found.sorted()
  }

  static func load(_ fixture: String) throws -> [String: Any] {
    let data = try Data(contentsOf: captures.appendingPathComponent(fixture))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  /// `capture` decoded as ndjson, named on the command line or piped in.
  static func decode(_ capture: String, viaStandardInput: Bool = false) throws -> (
    records: [[String: Any]], status: Int32, stderr: String
  ) {
    let result =
      viaStandardInput
      ? try Pktbench.run(
        ["decode", "-", "--format", "ndjson"],
        stdin: [UInt8](try Data(contentsOf: captures.appendingPathComponent(capture))))
      : try Pktbench.run(["decode", "Captures/\(capture)", "--format", "ndjson"])
    let records = try result.text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    return (records, result.status, result.stderr)
  }

  @Test func thereAreFixtures() {
    #expect(Self.fixtures.count >= 6)
  }

  @Test(arguments: fixtures)
  func decodesToTheGeneratorsMessages(fixture: String) throws {
    try Self.check(fixture: fixture)
  }

  /// The capture of `fixture` decodes to the generator's messages, read
  /// from its path or from a pipe.
  static func check(fixture: String, viaStandardInput: Bool = false) throws {
    let expected = try Self.load(fixture)
    let named = try #require(expected["capture"] as? String)
    let capture = fixture.hasPrefix("ble/") ? "ble/\(named)" : named
    let (records, status, stderr) = try Self.decode(capture, viaStandardInput: viaStandardInput)
    let damagedFile = capture.contains("truncated")
    #expect(status == (damagedFile ? 1 : 0), "\(stderr)")
    // Application messages: what a codec decoded or failed on (not transport events).
    let decoded = records.filter { $0["codec"] is String }
    let messages = try #require(expected["messages"] as? [[String: Any]])
    #expect(decoded.count == messages.count, "\(capture): \(decoded.count) decoded vs \(messages.count) sent")
    for (want, got) in zip(messages, decoded) {
      let frame = want["frame"] as? Int
      #expect(got["frame"] as? Int == frame, "\(capture) frame \(frame ?? -1)")
      #expect(got["codec"] as? String == want["codec"] as? String, "\(capture) frame \(frame ?? -1)")
      #expect(got["transport"] as? String == want["transport"] as? String)
      #expect(got["src"] as? String == want["src"] as? String)
      #expect(got["dst"] as? String == want["dst"] as? String)
      // BLE: the ATT operation, handle and characteristic the value came through.
      for key in ["att_operation", "handle", "uuid"] where want[key] != nil {
        #expect(
          Self.subsetMismatch(want[key] as Any, got[key], path: key) == nil,
          "\(capture) frame \(frame ?? -1): \(key) \(got[key] ?? "nothing")")
      }
      if let time = want["time"] as? Double, let gotTime = got["time"] as? Double {
        #expect(abs(time - gotTime) < 2e-6, "\(capture) frame \(frame ?? -1) time")
      }
      let expectation = want["expect"] as? String ?? "ok"
      if expectation == "error" {
        #expect(!(got["error"] is NSNull), "\(capture) frame \(frame ?? -1) should fail to decode")
        continue
      }
      #expect(got["error"] is NSNull, "\(capture) frame \(frame ?? -1): \(got["error"] ?? "")")
      #expect(got["message"] as? String == want["message"] as? String, "\(capture) frame \(frame ?? -1)")
      if expectation == "warning" {
        let diagnostics = got["diagnostics"] as? [[String: Any]] ?? []
        #expect(
          diagnostics.contains { $0["severity"] as? String == "warning" },
          "\(capture) frame \(frame ?? -1) should warn")
      }
      guard let wantFields = want["fields"] as? [String: Any] else { continue }
      var gotFields = got["fields"] as? [String: Any] ?? [:]
      // FalconEye's inner message sits under the envelope's payload.
      if let inner = gotFields["payload"] as? [String: Any], got["codec"] as? String == "falconeye" {
        gotFields = inner
      }
      var comparable = wantFields
      // Derived facts the generator recorded about the JPEG: its size is in
      // pktbench's imageData summary; its hash is not shown.
      comparable["jpeg_sha256"] = nil
      if let bytes = comparable.removeValue(forKey: "jpeg_bytes") as? Int {
        let summary = gotFields["imageData"] as? String ?? ""
        #expect(summary.hasPrefix("\(bytes) bytes"), "\(capture) frame \(frame ?? -1): \(summary)")
      }
      // The legacy text form's direction is a number on the wire; pktbench
      // names it (docs/protocols.md §1b: 0 straight, 1 left, 2 right).
      if want["message"] as? String == "legacy", let raw = comparable["direction"] as? Int {
        comparable["direction"] = ["straight", "left", "right"][safe: raw] ?? "unknown(\(raw))"
      }
      let mismatch = Self.subsetMismatch(comparable, gotFields, path: "")
      #expect(mismatch == nil, "\(capture) frame \(frame ?? -1): \(mismatch ?? "")")
    }
  }

  /// nil when every key of `want` is in `got` with an equal value.
  static func subsetMismatch(_ want: Any, _ got: Any?, path: String) -> String? {
    switch want {
    case let object as [String: Any]:
      guard let gotObject = got as? [String: Any] else {
        return "\(path): expected an object, got \(got ?? "nothing")"
      }
      for (key, value) in object {
        if let mismatch = subsetMismatch(value, gotObject[key], path: "\(path).\(key)") { return mismatch }
      }
      return nil
    case let array as [Any]:
      guard let gotArray = got as? [Any], gotArray.count == array.count else {
        return "\(path): expected \(array.count) items, got \(got ?? "nothing")"
      }
      for (index, item) in array.enumerated() {
        if let mismatch = subsetMismatch(item, gotArray[index], path: "\(path)[\(index)]") { return mismatch }
      }
      return nil
    case let number as NSNumber where !(want is String):
      guard let gotNumber = got as? NSNumber else {
        return "\(path): expected \(number), got \(got ?? "nothing")"
      }
      let a = number.doubleValue
      let b = gotNumber.doubleValue
      return abs(a - b) <= 1e-9 * max(1, abs(a)) ? nil : "\(path): expected \(a), got \(b)"
    case let string as String:
      return got as? String == string ? nil : "\(path): expected \(string), got \(got ?? "nothing")"
    case is NSNull:
      return got == nil || got is NSNull ? nil : "\(path): expected null"
    default:
      return nil
    }
  }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
