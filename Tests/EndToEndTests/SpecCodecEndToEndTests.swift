import Foundation
import Testing

/// `--spec FILE` on the commands: Specs/legctrl.ksy and Specs/rallie.ksy
/// replace the built-in codecs and decode every shipped capture to the
/// same ndjson; a bad spec file is one line and exit status 64.
///
/// What may legitimately differ between a spec codec and a Swift one: the
/// words (an error's `text`, `expected`, `found`; a diagnostic's `text`),
/// and the score in `routing: "probe N"` (a spec codec scores its frames
/// generically). Everything else — message, fields, byte ranges, units,
/// diagnostic codes, severities and ranges, error codes and offsets, the
/// codec chosen and how — must be the same.
@Suite struct SpecCodecEndToEndTests {
  static let specs = ["--spec", "Specs/legctrl.ksy", "--spec", "Specs/rallie.ksy"]

  static let captures: [[String]] =
    [
      ["Captures/legctrl-udp.pcap"], ["Captures/rallie-udp.pcap"], ["Captures/field-session.pcapng"],
      ["Captures/rider-20hz.pcap"], ["Captures/falconeye-ws.pcap"], ["Captures/ble/legctrl-session.btsnoop"],
      ["Captures/ble/legctrl-session.pcapng"], ["Captures/ble/rallie-session.btsnoop"],
      ["Captures/ble/damaged/legctrl-truncated.btsnoop"], ["Captures/damaged/rider-truncated.pcap"],
      ["Tests/Fixtures/analyze/legctrl-faults.pcap"], ["Tests/Fixtures/analyze/rallie-faults.pcap"],
      ["Tests/Fixtures/analyze/rallie-app.pcap"],
    ]
    // The firmware's own recordings, when they sit beside the repository.
    + (DeviceTruth.isPresent ? ["deadman", "edge", "i2c", "keepalive", "reconnect"] : []).map {
      ["../shared/device-truth/legctrl/\($0).pcap", "--decode-as", "udp:29000=legctrl"]
    }

  @Test(arguments: captures)
  func sameNdjsonAsTheSwiftCodecs(arguments: [String]) throws {
    let path = Pktbench.root.appendingPathComponent(arguments[0]).path
    try #require(FileManager.default.fileExists(atPath: path), "\(arguments[0]) is missing")
    let swift = try Pktbench.run(["decode"] + arguments + ["--format", "ndjson"])
    let spec = try Pktbench.run(["decode"] + arguments + ["--format", "ndjson"] + Self.specs)
    #expect(swift.status == spec.status)
    let left = swift.text.split(separator: "\n").map { Self.comparable(String($0)) }
    let right = spec.text.split(separator: "\n").map { Self.comparable(String($0)) }
    #expect(left.count == right.count)
    #expect(left.count > 0)
    for (index, (a, b)) in zip(left, right).enumerated() where a != b {
      Issue.record("\(arguments[0]) line \(index + 1):\n  swift \(a)\n  spec  \(b)")
      break
    }
  }

  /// `--stats` counts kinds without decoding, and summary lines leave out
  /// the fields that frame a message: with the specs (their fast path,
  /// their framing fields), the same report and the same lines.
  @Test(arguments: captures)
  func sameStatsAndSummaryAsTheSwiftCodecs(arguments: [String]) throws {
    let path = Pktbench.root.appendingPathComponent(arguments[0]).path
    try #require(FileManager.default.fileExists(atPath: path), "\(arguments[0]) is missing")
    for mode in [["--stats"], []] {
      let swift = try Pktbench.run(["decode"] + arguments + mode)
      let spec = try Pktbench.run(["decode"] + arguments + mode + Self.specs)
      #expect(swift.status == spec.status)
      #expect(!swift.text.isEmpty)
      // An error's words may differ (as in ndjson): its code and offset may not.
      func words(_ text: String) -> [Substring] {
        text.split(separator: "\n").map { line in
          guard let error = line.range(of: " ERROR "),
            let colon = line[error.upperBound...].firstIndex(of: ":")
          else { return line }
          return line[..<colon]
        }
      }
      let (left, right) = (words(swift.text), words(spec.text))
      #expect(left.count == right.count, "\(arguments[0]) \(mode)")
      for (index, (a, b)) in zip(left, right).enumerated() where a != b {
        Issue.record("\(arguments[0]) \(mode) line \(index + 1):\n  swift \(a)\n  spec  \(b)")
        break
      }
    }
  }

  /// A line with the words taken out (they may differ), keys sorted.
  static func comparable(_ line: String) -> String {
    guard var object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
      return line
    }
    if var error = object["error"] as? [String: Any] {
      for key in ["text", "expected", "found"] { error.removeValue(forKey: key) }
      object["error"] = error
    }
    if let diagnostics = object["diagnostics"] as? [[String: Any]] {
      object["diagnostics"] = diagnostics.map { $0.filter { $0.key != "text" } }
    }
    if let routing = object["routing"] as? String, routing.hasPrefix("probe ") { object["routing"] = "probe" }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  @Test func badSpecIsOneLineAndStatus64() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spec-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("x.ksy")
    try """
    meta:
      id: toy
    seq:
      - id: level
        type: u12
    """.write(to: file, atomically: true, encoding: .utf8)
    for command in [
      "decode", "codecs", "craft", "fuzz", "analyze", "emulate", "send", "listen", "replay", "capture",
    ] {
      let result = try Pktbench.run([command, "--spec", file.path])
      #expect(result.status == 64, "\(command)")
      #expect(
        result.stderr == "pktbench: \(file.path):5: key 'type': no type 'u12' from type toy\n",
        "\(command)")
    }
    let missing = try Pktbench.run(["codecs", "--spec", "Specs/none.ksy"])
    #expect(missing.status == 64)
    #expect(missing.stderr == "pktbench: Specs/none.ksy: cannot read it (No such file or directory)\n")
  }

  @Test func codecsListsTheSpec() throws {
    let result = try Pktbench.run(["codecs", "legctrl"] + Self.specs)
    #expect(result.status == 0)
    #expect(result.text.contains("from the spec file Specs/legctrl.ksy"))
    #expect(result.text.contains("--us"))
  }

  @Test func craftFromTheSpec() throws {
    let servo = try Pktbench.run(["craft", "servo", "--us", "1500", "--format", "hex"] + Self.specs)
    #expect(servo.status == 0)
    #expect(servo.text.contains("01 03 02 00 DC 05"))
    let arguments = [
      "craft", "rallie", "--upper", "50", "--lower", "50", "--pitch", "45", "--yaw", "45", "--feed", "50",
      "--start", "--checksum", "modbus16lo", "--format", "raw",
    ]
    let rallie = try Pktbench.run(arguments + Self.specs)
    #expect(rallie.status == 0)
    #expect(rallie.stdout.count == 10)
    #expect(rallie.stdout == (try Pktbench.run(arguments)).stdout)
    let refused = try Pktbench.run(["craft", "servo", "--us", "3000"] + Self.specs)
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("500…2500"))
  }

  @Test func displayFilterReadsSpecFields() throws {
    let result = try Pktbench.run(
      ["decode", "Captures/legctrl-udp.pcap", "-Y", "legctrl.state == \"FAULT\"", "--format", "ndjson"]
        + Self.specs)
    let swift = try Pktbench.run([
      "decode", "Captures/legctrl-udp.pcap", "-Y", "legctrl.state == \"FAULT\"", "--format", "ndjson",
    ])
    #expect(result.status == 0)
    #expect(result.text.split(separator: "\n").count == swift.text.split(separator: "\n").count)
    #expect(!result.text.isEmpty)
  }

  @Test func analyzeJudgesTheSpecRates() throws {
    let result = try Pktbench.run(
      ["analyze", "Captures/ble/legctrl-session.btsnoop", "--format", "json"] + Self.specs)
    #expect(result.status == 0)
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    let flows = try #require(report["flows"] as? [[String: Any]])
    let series = flows.flatMap { ($0["series"] as? [[String: Any]]) ?? [] }
    let telemetry = try #require(series.first { $0["name"] as? String == "telemetry" })
    let expected = try #require(telemetry["expected"] as? [String: Any])
    #expect(expected["text"] as? String == "10 Hz ± 10 %")
    #expect(expected["rule"] as? String == "legctrl.telemetry-rate")
  }

  @Test func fuzzComparesTheSpecWithTheBuiltIn() throws {
    let result = try Pktbench.run(
      [
        "fuzz", "--codec", "compare-legctrl", "--codec", "compare-rallie", "--iterations", "20000", "--seed",
        "5",
      ]
        + Self.specs)
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
    #expect(result.text.contains("compare-legctrl"))
  }
}

/// `emulate` plays the device a spec describes (Specs/rallie.ksy's
/// machine), and `send … then expect` checks it as it would a Swift one.
@Suite(.serialized) struct SpecEmulateEndToEndTests {
  static let command = [
    "rallie", "--upper", "50", "--lower", "50", "--pitch", "45", "--yaw", "45", "--feed", "50",
  ]

  @Test(arguments: [("xor", "--start", "accepted"), ("modbus16lo", "--stop", "completed")])
  func machineAnswersInItsVariant(checksum: String, control: String, code: String) throws {
    let (device, port) = try Live.startListener { port in
      [
        "emulate", "rallie", "--spec", "Specs/rallie.ksy", "--listen", "udp:127.0.0.1:\(port)", "--checksum",
        checksum,
        "--format", "ndjson", "--duration", "20s",
      ]
    }
    let send = try Pktbench.run(
      ["send", "udp://127.0.0.1:\(port)"] + Self.command + [
        control, "--checksum", checksum, "then", "expect",
        "response", "--code", code, "--within", "3s", "--spec", "Specs/rallie.ksy",
      ])
    device.signal(SIGINT)
    _ = device.finish()
    #expect(send.status == 0, "\(send.text)\(send.stderr)")
    #expect(device.jsonLines.contains { $0["event"] as? String == "answered" })
  }

  @Test func machineIgnoresTheOtherVariant() throws {
    let (device, port) = try Live.startListener { port in
      [
        "emulate", "rallie", "--spec", "Specs/rallie.ksy", "--listen", "udp:127.0.0.1:\(port)", "--checksum",
        "xor",
        "--format", "ndjson", "--duration", "20s",
      ]
    }
    let send = try Pktbench.run(
      ["send", "udp://127.0.0.1:\(port)"] + Self.command + [
        "--start", "--checksum", "modbus16lo", "then", "expect",
        "response", "--within", "1s", "--spec", "Specs/rallie.ksy",
      ])
    device.signal(SIGINT)
    _ = device.finish()
    #expect(send.status == 1)
    #expect(device.jsonLines.contains { $0["event"] as? String == "ignored" })
  }
}
