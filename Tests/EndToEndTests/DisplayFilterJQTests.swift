import Foundation
import Testing

/// `decode -Y` on every shipped capture against the same selection made by
/// jq on `decode --format ndjson`: the filter and the jq expression of each
/// case are written independently, by hand. Compared as (frame, codec,
/// message) of every message kept, in order, through both output paths
/// (ndjson writes clean messages from flat fields, `--format json` from the
/// dissection tree). Serialized: some 1,000 runs of the binary at once
/// would starve the timing-sensitive live tests of the two cores.
@Suite(.serialized) struct DisplayFilterJQTests {
  /// (display filter, jq condition on one ndjson record).
  static let cases: [(String, String)] = [
    // A bare codec name, and codec/message fields.
    ("rider", #".codec == "rider""#),
    ("legctrl", #".codec == "legctrl""#),
    ("codec in {\"rallie\", \"falconeye\"}", #".codec == "rallie" or .codec == "falconeye""#),
    ("message == \"telemetry\"", #".message == "telemetry""#),
    // Rider: numbers, fields of one message kind only, field against field.
    ("rider.left > 90", #".codec == "rider" and (.fields.left | type) == "number" and .fields.left > 90"#),
    (
      "rider.left >= 26.79 and rider.left < 50",
      #".codec == "rider" and (.fields.left | type) == "number" and .fields.left >= 26.79 and .fields.left < 50"#
    ),
    (
      "rider.right < -26",
      #".codec == "rider" and (.fields.right | type) == "number" and .fields.right < -26"#
    ),
    (
      "rider.left != rider.right",
      #".codec == "rider" and (.fields | has("left") and has("right")) and .fields.left != .fields.right"#
    ),
    ("rider.speed", #".codec == "rider" and (.fields | type) == "object" and (.fields | has("speed"))"#),
    ("rider.command == \"stop\"", #".codec == "rider" and .fields.command == "stop""#),
    // LegCtrl: enums by name (either case) and by number, nested header fields, absent fields.
    ("legctrl.state == \"FAULT\"", #".codec == "legctrl" and .fields.state == "FAULT""#),
    ("legctrl.state == \"fault\"", #".codec == "legctrl" and .fields.state == "FAULT""#),
    ("legctrl.state == 2", #".codec == "legctrl" and .fields.state == "FAULT""#),
    ("legctrl.state eq 1", #".codec == "legctrl" and .fields.state == "ARMED""#),
    (
      "legctrl.state != \"DISARMED\"",
      #".codec == "legctrl" and (.fields | has("state")) and .fields.state != "DISARMED""#
    ),
    ("not legctrl.state == \"DISARMED\"", #"(.codec == "legctrl" and .fields.state == "DISARMED") | not"#),
    (
      "legctrl.header.msg_type == 0x03",
      #".codec == "legctrl" and .fields.header.msg_type == "SET_SERVO_CH0""#
    ),
    ("legctrl.header.msg_type == \"ping\"", #".codec == "legctrl" and .fields.header.msg_type == "PING""#),
    (
      "legctrl.error_code contains \"TIME\"",
      #".codec == "legctrl" and (.fields.error_code // "" | contains("TIME"))"#
    ),
    (
      "legctrl.pulse_us in {1000, 1500..1600}",
      #".codec == "legctrl" and (.fields.pulse_us | type) == "number" and (.fields.pulse_us == 1000 or (.fields.pulse_us >= 1500 and .fields.pulse_us <= 1600))"#
    ),
    (
      "legctrl.battery_mv < 7400 || legctrl.last_cmd_age_ms >= 100",
      #".codec == "legctrl" and ((.fields.battery_mv | type) == "number") and (.fields.battery_mv < 7400 or .fields.last_cmd_age_ms >= 100)"#
    ),
    // Rallie: enums, bytes as hex, a precedence that matters.
    (
      "rallie.pitch > 90 or rallie.code == \"rejected\"",
      #".codec == "rallie" and ((.fields.pitch // -1) > 90 or .fields.code == "rejected")"#
    ),
    (
      "rallie.control == \"start\" and rallie.upper_wheel >= 70",
      #".codec == "rallie" and .fields.control == "start" and .fields.upper_wheel >= 70"#
    ),
    (
      "rallie.code == \"accepted\" or rallie.code == \"completed\" and rallie.check_variant == \"xor\"",
      #".codec == "rallie" and (.fields.code == "accepted" or (.fields.code == "completed" and .fields.check_variant == "xor"))"#
    ),
    ("rallie.magic == \"5AA5\"", #".codec == "rallie" and .fields.magic == "5aa5""#),
    // FalconEye: the envelope, the decoded payload, arrays, booleans, matches.
    (
      "falconeye.type == \"heartbeat\" and not falconeye.payload.pong",
      #".codec == "falconeye" and .fields.type == "heartbeat" and (.fields.payload | has("pong") | not)"#
    ),
    (
      "falconeye.payload.frameId matches \"-000[13]$\"",
      #".codec == "falconeye" and (.fields.payload.frameId // "" | test("-000[13]$"))"#
    ),
    (
      "falconeye.payload.frameId ~ \"FRAME\"",
      #".codec == "falconeye" and (.fields.payload.frameId // "" | test("frame"; "i"))"#
    ),
    (
      "falconeye.payload.deviceInfo.hasLiDAR == true",
      #".codec == "falconeye" and .fields.payload.deviceInfo.hasLiDAR == true"#
    ),
    (
      "falconeye.payload.poses.joints.type == \"leftElbow\"",
      #".codec == "falconeye" and ([.fields.payload.poses[]?.joints[]?.type] | any(. == "leftElbow"))"#
    ),
    (
      "falconeye.payload.devicePose == 0.1",
      #".codec == "falconeye" and ([.fields.payload.devicePose[]?[]?] | any(. == 0.1))"#
    ),
    (
      "falconeye.payload.devicePose != 0.2",
      #".codec == "falconeye" and (.fields.payload | has("devicePose")) and ([.fields.payload.devicePose[][]] | all(. != 0.2))"#
    ),
    // Events, transport details, errors and diagnostics, the record's own keys.
    ("ws.close", #".message == "ws.close""#),
    (
      "ws.close.code == 1000 and ws.close.by == \"server\"",
      #".message == "ws.close" and .fields.code == 1000 and .fields.by == "server""#
    ),
    // `ws` is a WebSocket event or a message a WebSocket carried (its `ws` details).
    ("ws", #"((.message // "") | startswith("ws.")) or has("ws")"#),
    ("tcp.gap.missing_bytes > 0", #".message == "tcp.gap" and .fields.missing_bytes > 0"#),
    ("att", #"(.message // "") | startswith("att.")"#),
    (
      "att.read-by-type-request.type == \"0x2803\"",
      #".message == "att.read-by-type-request" and .fields.type == "0x2803""#
    ),
    ("ws.compressed == true", #".ws.compressed == true"#),
    (
      "handle == 0x14 && direction contains \"peripheral→\"",
      #".handle == 20 and (.direction | contains("peripheral→"))"#
    ),
    ("transport == \"ble-att\" and !codec", #".transport == "ble-att" and .codec == null"#),
    ("error", #".error != null"#),
    (
      "error.code matches \"^(bad-json|truncated)$\"",
      #".error.code == "bad-json" or .error.code == "truncated""#
    ),
    ("diagnostics.severity == \"warning\"", #"any(.diagnostics[]; .severity == "warning")"#),
    ("frame >= 10 and frame <= 20", #".frame >= 10 and .frame <= 20"#),
    (
      "src contains \":9000\" or dst matches \":5005$\"",
      #"((.src // "") | contains(":9000")) or ((.dst // "") | test(":5005$"))"#
    ),
    ("length > 100", #".length > 100"#),
  ]

  static var captures: [String] {
    let fm = FileManager.default
    var paths: [String] = []
    for folder in ["Captures", "Captures/damaged", "Captures/ble", "Captures/ble/damaged"] {
      let names =
        (try? fm.contentsOfDirectory(atPath: Pktbench.root.appendingPathComponent(folder).path)) ?? []
      for name in names.sorted()
      where name.hasSuffix(".pcap") || name.hasSuffix(".pcapng") || name.hasSuffix(".btsnoop") {
        paths.append("\(folder)/\(name)")
      }
    }
    return paths
  }

  /// Each record of `ndjson` as (frame, codec, message) and whether each
  /// case's jq condition selects it: one jq run for all the cases.
  static func jqSelections(_ ndjson: [UInt8]) throws -> [(key: String, selected: [Bool])] {
    let jq = try #require(
      Pktbench.which("jq"), "jq is needed (scripts/bootstrap.sh --test-tools installs it)")
    let conditions = cases.map { "([\($0.1)] | any)" }.joined(separator: ", ")
    let result = try Pktbench.runProgram(
      jq, ["-c", "[[.frame, .codec, .message], [\(conditions)]]"], stdin: ndjson)
    #expect(result.status == 0, "jq: \(result.stderr)")
    return try result.text.split(separator: "\n").map { line in
      let pair = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
      return (try key(pair[0]), try #require(pair[1] as? [Bool]))
    }
  }

  /// A record's (frame, codec, message) as one comparable text.
  static func key(_ triple: Any) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: triple, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
  }

  static func keys(ndjson: [UInt8]) throws -> [String] {
    try String(decoding: ndjson, as: UTF8.self).split(separator: "\n").map { line in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      return try key([
        object["frame"] ?? NSNull(), object["codec"] ?? NSNull(), object["message"] ?? NSNull(),
      ])
    }
  }

  static func keys(jsonArray: [UInt8]) throws -> [String] {
    let objects = try #require(try JSONSerialization.jsonObject(with: Data(jsonArray)) as? [[String: Any]])
    return try objects.map {
      try key([$0["frame"] ?? NSNull(), $0["codec"] ?? NSNull(), $0["message"] ?? NSNull()])
    }
  }

  @Test(arguments: captures)
  func everyFilterKeepsWhatJQSelects(capture: String) throws {
    let all = try Pktbench.run(["decode", capture, "--format", "ndjson"])
    let selections = try Self.jqSelections(all.stdout)
    #expect(!selections.isEmpty, "\(capture) has messages")
    let hasFlatFields = all.text.contains(#""codec":"rider""#) || all.text.contains(#""codec":"legctrl""#)
    for (index, (filter, condition)) in Self.cases.enumerated() {
      let expected = selections.filter { $0.selected[index] }.map(\.key)
      let ndjson = try Pktbench.run(["decode", capture, "--format", "ndjson", "-Y", filter])
      #expect(ndjson.status == all.status, "\(capture) -Y '\(filter)': \(ndjson.stderr)")
      #expect(
        try Self.keys(ndjson: ndjson.stdout) == expected,
        "\(capture) -Y '\(filter)' against jq '\(condition)'")
      // Only rider and legctrl write flat fields: elsewhere both paths are the tree.
      guard hasFlatFields else { continue }
      let json = try Pktbench.run(["decode", capture, "--format", "json", "-Y", filter])
      #expect(try Self.keys(jsonArray: json.stdout) == expected, "\(capture) -Y '\(filter)' --format json")
    }
  }

  /// Each case selects something and leaves something out, over all the
  /// captures: none is vacuous. (jq alone: it says what the cases test.)
  @Test func noCaseIsVacuous() throws {
    #expect(Self.captures.count >= 10, "the shipped captures, damaged ones included")
    var kept = Array(repeating: 0, count: Self.cases.count)
    var records = 0
    for capture in Self.captures {
      let selections = try Self.jqSelections(
        try Pktbench.run(["decode", capture, "--format", "ndjson"]).stdout)
      records += selections.count
      for selection in selections {
        for index in kept.indices where selection.selected[index] { kept[index] += 1 }
      }
    }
    for (index, (filter, _)) in Self.cases.enumerated() {
      #expect(kept[index] > 0, "-Y '\(filter)' keeps nothing in any capture")
      #expect(kept[index] < records, "-Y '\(filter)' keeps everything")
    }
  }
}
