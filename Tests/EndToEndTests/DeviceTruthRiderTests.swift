import Foundation
import Testing

/// The Rider robot's model against the robot's own log (`motor_controller.py`
/// run unmodified, its I²C bus recorded): every datagram applied or ignored
/// as the robot did, the motor board's bytes after each, the watchdog's stops.
@Suite(.enabled(if: DeviceTruth.isPresent))
struct DeviceTruthRiderTests {
  static let recordings = ["watchdog", "gaps", "dialects", "edge", "two-apps"]

  @Test(arguments: recordings)
  func timelineAgreesWithTheRobotsLog(_ name: String) throws {
    let events = try DeviceTruth.timeline("rider/\(name).pcap")
    let log = try DeviceTruth.log("rider/\(name).robot.jsonl")

    // The same datagrams applied and ignored, in the same order.
    let modelled = events.filter { ["applied", "ignored"].contains($0.name) }
    let logged = log.filter { ["applied", "ignored"].contains($0["event"] as? String) }
    #expect(modelled.count == logged.count)
    #expect(modelled.map(\.name) == logged.compactMap { $0["event"] as? String })

    // After each applied datagram, what the model says the motor board got
    // is what the robot wrote to it next: [ldir, |l|, rdir, |r|].
    var writes: [[Int]] = []
    for (index, entry) in log.enumerated() where entry["event"] as? String == "applied" {
      let next = log[(index + 1)...].first { $0["event"] as? String == "i2c" }
      writes.append(try #require(next?["data"] as? [Int]))
    }
    let applied = modelled.filter { $0.name == "applied" }
    #expect(applied.count == writes.count)
    for (event, data) in zip(applied, writes) {
      let left = event.state["left"] as? Int ?? .min
      let right = event.state["right"] as? Int ?? .min
      #expect(
        [left >= 0 ? 1 : 0, abs(left), right >= 0 ? 1 : 0, abs(right)] == data,
        "frame \(event.frame ?? -1): modelled \(left)/\(right), the robot wrote \(data)")
    }

    // Every logged stop has a modelled one within 150 ms; every certain
    // modelled stop has a logged one.
    let stops = events.filter { $0.name == "watchdog_stop" }
    let loggedStops = log.filter { $0["event"] as? String == "watchdog_stop" }.compactMap {
      $0["t"] as? Double
    }
    for time in loggedStops {
      #expect(stops.contains { abs($0.time - time) <= 0.150 }, "logged stop at \(time) has no modelled one")
    }
    for stop in stops where stop.certain {
      #expect(
        loggedStops.contains { abs($0 - stop.time) <= 0.150 },
        "certain stop at \(stop.time) is not in the log")
    }
  }

  /// What `analyze` says about the dialects recording: the ignored string
  /// values kept the robot driving, NaN and Infinity ran it at full speed.
  @Test func dialectsFindingsSayWhatTheRobotDid() throws {
    let report = try Analyze.run(DeviceTruth.path("rider/dialects.pcap"))
    let kept = report.findings("rider.ignored").filter {
      Analyze.details($0)["kept_driving"] as? Bool == true
    }
    #expect(!kept.isEmpty, "string values after driving kept the robot at 50/50")
    let fullSpeed = try #require(
      report.findings("rider.full-speed").first, "NaN and Infinity run it at full speed")
    let values = Analyze.details(fullSpeed)["values"] as? [String] ?? []
    #expect(
      values.contains { $0.contains("NaN → 100") } && values.contains { $0.contains("-Infinity → -100") })
    #expect(report.findings("decode.error").isEmpty, "the robot's own handling is reported instead")
    #expect(report.findings("rider.model-mismatch").isEmpty)
  }
}
