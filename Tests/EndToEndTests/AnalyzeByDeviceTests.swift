import Foundation
import Testing

/// `analyze` reports by device: each device once with the clients that
/// reached it (their own rates and gaps), its findings in one time line;
/// the timeline, `--format json` and `--html` name device and client.
/// The recording `two-apps`: two senders drove the one robot.
@Suite(.enabled(if: DeviceTruth.isPresent))
struct AnalyzeByDeviceTests {
  static let capture = "rider/two-apps.pcap"

  /// The two senders and their frames, from tshark.
  static func senders() throws -> [String: [Int]]? {
    guard Pktbench.which("tshark") != nil else { return nil }
    let result = try Pktbench.runProgram(
      "/usr/bin/env",
      ["tshark", "-r", DeviceTruth.path(capture), "-T", "fields", "-e", "frame.number", "-e", "udp.srcport"])
    var frames: [String: [Int]] = [:]
    for line in result.text.split(separator: "\n") {
      let parts = line.split(separator: "\t")
      guard parts.count == 2, let frame = Int(parts[0]) else { continue }
      frames["127.0.0.1:\(parts[1])", default: []].append(frame)
    }
    return frames
  }

  @Test func theTextReportSaysWhoDroveTheRobotAndWhatKeptItDriving() throws {
    let result = try Pktbench.run(["analyze", DeviceTruth.path(Self.capture)])
    #expect(result.status == 0)
    let text = result.text
    #expect(text.components(separatedBy: "device 1  the robot at 127.0.0.1:5005").count == 2, "once")
    let line = try #require(
      text.split(separator: "\n").first { $0.contains("two senders reached the robot") })
    if let senders = try Self.senders() {
      for (sender, frames) in senders {
        #expect(line.contains("\(sender) (frames \(frames.min() ?? 0)–\(frames.max() ?? 0))"), "\(line)")
      }
    }
    // The robot's log: the laptop's 8 ignored datagrams kept it driving 50/50 (README, robot.jsonl).
    let log = try DeviceTruth.log("rider/two-apps.robot.jsonl")
    let ignored = log.filter {
      $0["event"] as? String == "ignored" && $0["src"] as? String == "127.0.0.1:45785"
    }
    #expect(ignored.count == 8)
    #expect(text.contains("8 datagrams from 127.0.0.1:45785 the robot ignored"), "\(text)")
    #expect(text.contains("the robot kept driving left 50, right 50 until"))
    #expect(!text.contains("rider.watchdog-gap  (flow 1)"), "no stop while the laptop's datagrams came")
  }

  @Test func jsonAndTimelineNameDeviceAndClient() throws {
    let report = try Analyze.run(DeviceTruth.path(Self.capture))
    #expect(report.devices.count == 1)
    let device = try #require(report.devices.first)
    #expect(device["endpoint"] as? String == "127.0.0.1:5005")
    #expect(device["clients"] as? [Int] == [1, 2])
    #expect(device["client_endpoints"] as? [String] == ["127.0.0.1:37465", "127.0.0.1:45785"])
    #expect(report.flows.allSatisfy { $0["device_id"] as? Int == device["id"] as? Int })
    // Rates per client, as the flows' own series.
    #expect(
      report.flows.allSatisfy { ($0["series"] as? [[String: Any]])?.first?["name"] as? String == "commands" })
    let modelFindings = report.findings.filter { ($0["rule"] as? String ?? "").hasPrefix("rider.") }
    #expect(!modelFindings.isEmpty && modelFindings.allSatisfy { $0["device_id"] as? Int == 1 })

    let events = try DeviceTruth.timeline(Self.capture)
    #expect(events.allSatisfy { $0.json["device"] as? String == "127.0.0.1:5005" })
    // Each datagram's event names its sender's flow; the watchdog's, none.
    let log = try DeviceTruth.log("rider/two-apps.robot.jsonl").filter {
      ["applied", "ignored"].contains($0["event"] as? String ?? "")
    }
    let datagrams = events.filter { ["applied", "ignored"].contains($0.name) }
    #expect(datagrams.count == log.count)
    let flowOf = ["127.0.0.1:37465": 1, "127.0.0.1:45785": 2]
    #expect(datagrams.map { $0.json["flow"] as? Int } == log.map { flowOf[$0["src"] as? String ?? ""] })
    #expect(events.filter { $0.name == "watchdog_stop" }.allSatisfy { $0.json["flow"] is NSNull })
  }

  @Test func theHtmlReportHasALaneGroupPerDeviceColouredByClient() throws {
    let path = Live.temporaryPath(".html")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try Pktbench.run(["analyze", DeviceTruth.path(Self.capture), "--html", path])
    #expect(result.status == 0)
    let html = try String(contentsOfFile: path, encoding: .utf8)
    #expect(html.components(separatedBy: "id=\"device-1\"").count == 2)
    #expect(html.contains("one colour per client"))
    #expect(html.contains("flow 1 · 127.0.0.1:37465") && html.contains("flow 2 · 127.0.0.1:45785"))
    // Two clients, two colours on their lanes.
    #expect(html.contains("style=\"stroke:#2471a3\"") && html.contains("style=\"stroke:#ca6f1e\""))
  }
}
