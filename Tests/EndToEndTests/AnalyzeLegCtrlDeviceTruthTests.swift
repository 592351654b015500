import Foundation
import Testing

/// `analyze` against the real LegCtrl firmware's recordings
/// (../shared/device-truth/legctrl: a capture and the firmware's own log on
/// one clock): the timeline must say what the log says the firmware did,
/// and the report must hold no mismatch and no finding the log does not
/// bear out.
@Suite struct AnalyzeLegCtrlDeviceTruthTests {
  static let folder = Pktbench.root.deletingLastPathComponent().appendingPathComponent(
    "shared/device-truth/legctrl")
  static let recordings = ["deadman", "keepalive", "edge", "reconnect", "i2c", "restart"]
  static let states = [0: "DISARMED", 1: "ARMED", 2: "FAULT"]
  static let errors = [0: "NONE", 1: "DEADMAN_TIMEOUT", 2: "LOW_BATTERY", 3: "I2C_FAULT", 4: "INVALID_CMD"]
  /// The firmware's log lines that say a write was taken but not acted on.
  static let ignoredLines = [
    "Command ignored - not in ARMED state", "Invalid SET_SERVO_CH0 payload length", "Cannot ARM from FAULT",
    "Unknown command",
  ]

  static var available: Bool {
    FileManager.default.fileExists(atPath: folder.appendingPathComponent("deadman.pcap").path)
  }

  static func lines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  /// What the log says about the k-th write: executed, ignored or rejected
  /// (a negative `returned`), the state and error after it, and the last
  /// pulse put on the servo channel.
  struct Done {
    var verdict: String
    var state: String
    var error: String
    var pulse: Int
    var uptime: Int
    var age: Int
    var returned: Int
    var lines: [String]
  }

  static func log(_ name: String) throws -> [[String: Any]] {
    let text = try String(
      contentsOf: folder.appendingPathComponent("\(name).firmware.jsonl"), encoding: .utf8)
    return try lines(text)
  }

  static func dones(_ log: [[String: Any]]) -> [Done] {
    var dones: [Done] = []
    var lines: [String] = []
    var pulse = -1
    for entry in log {
      switch entry["event"] as? String {
      case "pwm": pulse = entry["pulse_us"] as? Int ?? pulse
      case "log": lines.append(entry["text"] as? String ?? "")
      case "command_done":
        let returned = entry["returned"] as? Int ?? 0
        let ignored = lines.contains { line in ignoredLines.contains { line.hasPrefix($0) } }
        dones.append(
          Done(
            verdict: returned < 0 ? "rejected" : ignored ? "ignored" : "executed",
            state: states[entry["state"] as? Int ?? -1] ?? "?",
            error: errors[entry["error"] as? Int ?? -1] ?? "?",
            pulse: pulse, uptime: entry["uptime_ms"] as? Int ?? 0, age: entry["age_ms"] as? Int ?? 0,
            returned: returned, lines: lines))
        lines = []
      default: break
      }
    }
    return dones
  }

  @Test(arguments: recordings)
  func timelineSaysWhatTheFirmwareDid(name: String) throws {
    guard Self.available else { return }
    let capture = Self.folder.appendingPathComponent("\(name).pcap").path
    let decoded = try Pktbench.run([
      "decode", capture, "--decode-as", "udp:29000=legctrl", "--format", "ndjson",
    ])
    let writes = try Self.lines(decoded.text).filter { ($0["dst"] as? String)?.hasSuffix(":29000") == true }
      .compactMap { $0["frame"] as? Int }
    let analyzed = try Pktbench.run(["analyze", capture, "--decode-as", "udp:29000=legctrl", "--timeline"])
    #expect(analyzed.status == 0, "\(analyzed.stderr)")
    let timeline = try Self.lines(analyzed.text)
    let log = try Self.log(name)
    let dones = Self.dones(log)

    // The k-th write is the k-th command_done, with the state after it.
    #expect(writes.count == dones.count, "\(name): \(writes.count) writes, \(dones.count) command_done")
    var byFrame: [Int: [String: Any]] = [:]
    for event in timeline where ["executed", "ignored", "rejected"].contains(event["event"] as? String ?? "")
    {
      if let frame = event["frame"] as? Int { byFrame[frame] = event }
    }
    for (frame, done) in zip(writes, dones) {
      let event = try #require(byFrame[frame], "\(name): no event for frame \(frame)")
      let state = event["state"] as? [String: Any] ?? [:]
      let got =
        "\(event["event"] ?? "?") \(state["state"] ?? "?")/\(state["error_code"] ?? "?") \(state["pulse_us"] ?? "?")"
      let want = "\(done.verdict) \(done.state)/\(done.error) \(done.pulse)"
      #expect(got == want, "\(name) frame \(frame): \(event["text"] ?? "") — the log: \(done.lines)")
    }

    // Every deadman the log shows is in the timeline within 120 ms; no
    // certain one is extra.
    let logged = log.filter { ($0["text"] as? String)?.hasPrefix("Deadman timeout") == true }
      .compactMap { $0["t"] as? Double }
    let modelled = timeline.filter { $0["event"] as? String == "deadman_timeout" }
    for time in logged {
      #expect(
        modelled.contains { abs(($0["time"] as? Double ?? 0) - time) <= 0.12 },
        "\(name): the firmware's deadman at \(time) is not in the timeline")
    }
    for event in modelled where event["certain"] as? Bool == true {
      let time = event["time"] as? Double ?? 0
      #expect(
        logged.contains { abs($0 - time) <= 0.12 }, "\(name): a certain deadman at \(time) the log lacks")
    }
    #expect(!timeline.contains { $0["mismatch"] != nil }, "\(name)")
  }

  /// The findings the log bears out, by rule and severity: each from what
  /// the firmware logged, never from pktbench's output.
  static func expectedFindings(_ log: [[String: Any]]) -> [String] {
    let dones = dones(log)
    var expected: [String] = []
    let texts = log.compactMap { $0["text"] as? String }
    for _ in texts.filter({ $0.hasPrefix("Deadman timeout") }) {
      expected.append("legctrl.deadman-gap/error")
    }
    for _ in texts.filter({ $0.hasPrefix("Cannot ARM from FAULT") }) {
      expected.append("legctrl.arm-refused/warning")
    }
    for _ in texts.filter({ $0.contains("clamped to") }) {
      expected.append("legctrl.pulse-out-of-range/warning")
    }
    for _ in texts.filter({ $0.hasPrefix("Invalid SET_SERVO_CH0 payload length") }) {
      expected.append("legctrl.command-ignored/warning")
    }
    for _ in log.filter({ $0["event"] as? String == "pwm_failure" }) {
      expected.append("legctrl.fault/error")
    }
    for _ in log.filter({ $0["event"] as? String == "link_connect" }) {
      expected.append("legctrl.reconnect/warning")
    }
    // Episodes: a run of rejections for one reason, servo commands ignored
    // in one FAULT (or one DISARMED stretch), one INVALID_CMD.
    var previous: Done?
    for done in dones {
      defer { previous = done }
      if done.returned < 0, previous.map({ $0.returned != done.returned }) ?? true {
        expected.append("legctrl.rejected-write/warning")
      }
      let ignoredServo = done.lines.contains { $0.hasPrefix("Command ignored - not in ARMED state") }
      let previousIgnored =
        previous?.lines.contains { $0.hasPrefix("Command ignored - not in ARMED state") } ?? false
      if ignoredServo, !(previousIgnored && previous?.state == done.state) {
        expected.append(
          done.state == "FAULT" ? "legctrl.command-in-fault/warning" : "legctrl.command-ignored/warning")
      }
      if done.error == "INVALID_CMD", previous?.error != "INVALID_CMD" {
        expected.append("legctrl.invalid-cmd/warning")
      }
    }
    // Keep-alive gaps over 200 ms while ARMED that did not trip: consecutive
    // refreshes (ARMED, age 0 after an accepted write) more than 200 ms apart.
    var refresh: Done?
    for done in dones {
      if done.state != "ARMED" {
        refresh = nil
        continue
      }
      guard done.age == 0, done.returned > 0 else { continue }
      if let last = refresh, done.uptime - last.uptime > 200 { expected.append("legctrl.keepalive-gap/note") }
      refresh = done
    }
    return expected.sorted()
  }

  @Test(arguments: recordings)
  func reportHasNoMismatchAndOnlyWhatTheLogBearsOut(name: String) throws {
    guard Self.available else { return }
    let capture = Self.folder.appendingPathComponent("\(name).pcap").path
    let report = try Analyze.run(capture, ["--decode-as", "udp:29000=legctrl"])
    #expect(report.status == 0, "\(report.stderr)")
    #expect(
      report.findings("legctrl.model-mismatch").isEmpty,
      "\(name): \(report.findings("legctrl.model-mismatch"))")
    let got = report.findings.map { "\($0["rule"] as? String ?? "?")/\($0["severity"] as? String ?? "?")" }
      .sorted()
    #expect(
      got == Self.expectedFindings(try Self.log(name)), "\(name): \(report.findings.map { $0["text"] ?? "" })"
    )
  }
}
