import Foundation
import Testing

/// Captures made by Tests/Fixtures/analyze/make_analyze_captures.py with
/// faults at known frames and times (its expected.json): each finding must
/// be reported at that frame and time, and nothing else may be.
@Suite struct AnalyzeGeneratedCaptureTests {
  static let folder = "Tests/Fixtures/analyze"

  static var expected: [String: Any] {
    (try? Analyze.fixture("\(folder)/expected.json")) ?? [:]
  }

  static var captures: [String] {
    ((expected["captures"] as? [String: Any]) ?? [:]).keys.sorted()
  }

  @Test func thereAreGeneratedCaptures() {
    #expect(Self.captures.count >= 5)
  }

  @Test(arguments: captures, [true, false])
  func findingsAtTheirFramesAndNothingElse(capture: String, withSecret: Bool) throws {
    let entry = try #require((Self.expected["captures"] as? [String: Any])?[capture] as? [String: Any])
    let secret = try #require(Self.expected["secret"] as? String)
    var wanted = try #require(entry["findings"] as? [[String: Any]])
    if !withSecret { wanted.removeAll { $0["needs_secret"] as? Bool == true } }
    let report = try Analyze.run("\(Self.folder)/\(capture)", withSecret ? ["--secret", secret] : [])
    #expect(report.status == 0, "\(report.stderr)")
    #expect(report.json["records"] as? Int == entry["records"] as? Int)

    func key(_ finding: [String: Any]) -> String {
      "\(finding["rule"] as? String ?? "?")/\(finding["severity"] as? String ?? "?")@\(finding["frame"] as? Int ?? -1)"
    }
    #expect(report.findings.map(key).sorted() == wanted.map(key).sorted(), "\(capture)")

    for want in wanted {
      let got = try #require(report.findings.first { key($0) == key(want) }, "\(capture): \(key(want))")
      let time = try #require(want["time"] as? Double)
      #expect(abs((got["time"] as? Double ?? 0) - time) < 2e-6, "\(capture): \(key(want)) time")
      if let frames = want["frames"] as? [Int] {
        #expect(got["frames"] as? [Int] == frames, "\(capture): \(key(want)) frames")
      }
      let details = Analyze.details(got)
      for name in ["resume_frame", "next_command_frame", "fault_frame", "side"] where want[name] != nil {
        #expect("\(details[name] ?? "nil")" == "\(want[name] ?? "")", "\(capture): \(key(want)) \(name)")
      }
      for name in ["silence_s", "gap_s"] {
        guard let seconds = want[name] as? Double else { continue }
        #expect(abs((details[name] as? Double ?? 0) - seconds) < 1e-5, "\(capture): \(key(want)) \(name)")
      }
    }
  }
}

/// The command as CI and users meet it: exit statuses, the HTML page, bad files.
@Suite struct AnalyzeCommandTests {
  @Test func failOnSetsTheExitStatus() throws {
    let cases: [(capture: String, arguments: [String], status: Int32)] = [
      ("Tests/Fixtures/analyze/rider-watchdog.pcap", [], 0),
      ("Tests/Fixtures/analyze/rider-watchdog.pcap", ["--fail-on", "error"], 1),
      ("Captures/rallie-udp.pcap", ["--fail-on", "error"], 0),
      ("Captures/rallie-udp.pcap", ["--fail-on", "warning"], 1),
      ("Captures/rider-20hz.pcap", ["--fail-on", "error"], 0),
      ("Captures/rider-20hz.pcap", ["--fail-on", "warning"], 1),
      ("Captures/falconeye-ws.pcap", ["--fail-on", "warning"], 0),
      ("Captures/falconeye-ws.pcap", ["--fail-on", "note"], 1),
    ]
    for test in cases {
      let result = try Pktbench.run(["analyze", test.capture] + test.arguments)
      #expect(result.status == test.status, "\(test.capture) \(test.arguments): \(result.stderr)")
      #expect(result.text.contains("verdict"), "the report is written whatever the status")
    }
  }

  @Test func htmlIsOneSelfContainedPageWithPlots() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "analyze-\(UUID().uuidString).html")
    defer { try? FileManager.default.removeItem(at: path) }
    let result = try Pktbench.run(["analyze", "Captures/legctrl-udp.pcap", "--html", path.path])
    #expect(result.status == 0, "\(result.stderr)")
    let html = try String(contentsOf: path, encoding: .utf8)
    #expect(html.hasPrefix("<!DOCTYPE html>"))
    #expect(html.contains("<svg"))
    #expect(html.contains("legctrl.deadman-gap"))
    for outside in ["http:", "https:", "<script", "src=", "<link", "@import", "url("] {
      #expect(!html.lowercased().contains(outside), "the page must not fetch anything (\(outside))")
    }
  }

  /// The page draws what the robot did under the message lanes: one lane
  /// per motor as steps, and a line at each watchdog stop (the gaps
  /// recording has two certain stops and two that may have happened).
  @Test func htmlDrawsTheDevicesStateUnderTheLanes() throws {
    guard DeviceTruth.isPresent else { return }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "analyze-\(UUID().uuidString).html")
    defer { try? FileManager.default.removeItem(at: path) }
    let result = try Pktbench.run(["analyze", DeviceTruth.path("rider/gaps.pcap"), "--html", path.path])
    #expect(result.status == 0, "\(result.stderr)")
    let html = try String(contentsOf: path, encoding: .utf8)
    #expect(html.components(separatedBy: "class=\"state-line\"").count - 1 == 2, "left and right")
    #expect(html.components(separatedBy: "class=\"device-event\"").count - 1 == 2, "two certain stops")
    // Two stops in the 1.0–1.1 s gaps and one after the capture's last record may have happened.
    #expect(html.components(separatedBy: "class=\"device-event maybe\"").count - 1 == 3)
    #expect(html.contains("what the robot did"))
    // Histograms say what their bars count.
    #expect(html.contains("per bin"))
  }

  /// The caption promises the expected-rate band only where one is drawn:
  /// Rallie's few commands are drawn as ticks, without a band.
  @Test func theCaptionPromisesNoBandThatIsNotDrawn() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "analyze-\(UUID().uuidString).html")
    defer { try? FileManager.default.removeItem(at: path) }
    _ = try Pktbench.run(["analyze", "Captures/rallie-udp.pcap", "--html", path.path])
    let html = try String(contentsOf: path, encoding: .utf8)
    #expect(!html.contains("class=\"band\""))
    #expect(!html.contains("green band"))
    let rider = try Pktbench.run(["analyze", "Captures/rider-20hz.pcap", "--html", path.path])
    #expect(rider.status == 0)
    let banded = try String(contentsOf: path, encoding: .utf8)
    #expect(banded.contains("class=\"band\"") && banded.contains("green band"))
  }

  /// --model gives analyze's device models the settings emulate takes:
  /// told the machine speaks MODBUS-low, the XOR commands of rallie-udp
  /// are ones it refuses, and its answers to them contradict that.
  @Test func modelSettingsReachTheModels() throws {
    let plain = try Analyze.run("Captures/rallie-udp.pcap")
    #expect(plain.findings("rallie.command-refused").isEmpty)
    let told = try Analyze.run("Captures/rallie-udp.pcap", ["--model", "rallie.checksum=modbus16lo"])
    #expect(!told.findings("rallie.command-refused").isEmpty)
    #expect(!told.findings("rallie.model-mismatch").isEmpty)
    let wrong = try Pktbench.run(["analyze", "Captures/rallie-udp.pcap", "--model", "rallie.checksum=crc32"])
    #expect(wrong.status == 64)  // a wrong command line (ExitStatus.usage)
    #expect(wrong.stderr.contains("--checksum takes one of xor, modbus16lo"))
  }

  @Test func unreadableInputsSayWhyAndExit2() throws {
    let missing = try Pktbench.run(["analyze", "Captures/no-such-file.pcap"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("no-such-file.pcap") && missing.stderr.contains("cannot open"))
    let notCapture = try Pktbench.run(["analyze", "Package.swift"])
    #expect(notCapture.status == 2)
    #expect(notCapture.stderr.contains("is not a pcap or pcapng file"))
  }

  @Test func truncatedCaptureIsAnalysedUpToTheDamage() throws {
    let report = try Analyze.run("Captures/damaged/rider-truncated.pcap")
    #expect(report.status == 0)
    #expect(!(report.json["stopped_early"] is NSNull))
    #expect(report.findings("capture.truncated").count == 1)
    #expect(report.stderr.contains("damaged"))
  }

  @Test func filterAndDecodeAsRouteAsInDecode() throws {
    let riderOnly = try Analyze.run("Captures/field-session.pcapng", ["--filter", "udp port 5005"])
    #expect(riderOnly.flows.count == 1)
    #expect(riderOnly.flows.first?["protocol"] as? String == "rider")
    let forced = try Analyze.run("Captures/legctrl-udp.pcap", ["--decode-as", "udp:9000=legctrl"])
    #expect(forced.findings("legctrl.deadman-gap").count == 1)
  }

  /// Every finding names its rule, severity, flow, time and the frames it
  /// rests on, in every shipped capture.
  @Test func everyFindingPointsBackIntoTheCapture() throws {
    var captures = [
      "Captures/legctrl-udp.pcap", "Captures/rallie-udp.pcap", "Captures/field-session.pcapng",
      "Captures/falconeye-ws.pcap", "Captures/damaged/rider-bad-json.pcap",
      "Captures/damaged/falconeye-lost-segment.pcap", "Tests/Fixtures/analyze/rallie-faults.pcap",
    ]
    if Analyze.hasRealCapture { captures.append(Analyze.realCapture) }
    for capture in captures {
      let report = try Analyze.run(capture)
      #expect(report.json["schema"] as? String == "pktbench-analyze/1")
      #expect(!report.findings.isEmpty, "\(capture)")
      let flowNames = Set(report.flows.compactMap { $0["name"] as? String })
      for finding in report.findings {
        let rule = finding["rule"] as? String ?? ""
        #expect(rule.contains("."), "\(capture): \(finding)")
        #expect(["error", "warning", "note"].contains(finding["severity"] as? String ?? ""))
        #expect(finding["time"] is Double || finding["time"] is Int)
        let frame = try #require(finding["frame"] as? Int, "\(capture) \(rule)")
        let frames = finding["frames"] as? [Int] ?? []
        #expect(frames.contains(frame) && frames == frames.sorted())
        if let flow = finding["flow"] as? String { #expect(flowNames.contains(flow)) }
        for (name, value) in Analyze.details(finding) where name.contains("frame") {
          #expect(value is Int || value is NSNull, "\(capture) \(rule) \(name)")
        }
      }
    }
  }
}
