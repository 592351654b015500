import Foundation
import Testing

/// The pace `send` keeps, measured by `listen` at the other end. The bands
/// are wide on purpose: a loaded 2-core machine must not make them flaky.
extension LiveTests {
  @Suite struct Rate {
    @Test func twentyHertzForOneSecondGivesTwentyMessages() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "--format", "ndjson", "--duration", "20s", "--stats"]
      }
      let sender = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "drive", "--left", "10", "--right", "10", "--rate", "20hz",
        "--duration", "1s", "-q",
      ])
      #expect(sender.status == 0, "\(sender.stderr)")
      #expect(sender.text.contains("sent 20 messages"))
      // Give the last datagram time to arrive, then stop the listener as a user would.
      _ = listener.waitForLines(20, timeout: 5)
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)

      let times = listener.jsonLines.compactMap { $0["time"] as? Double }
      #expect((19...21).contains(times.count))
      guard times.count > 1, let first = times.first, let last = times.last else { return }
      let meanInterval = (last - first) / Double(times.count - 1) * 1000
      #expect(meanInterval > 40 && meanInterval < 60, "mean interval \(meanInterval) ms")
      // The summary (on stderr, as stdout carries ndjson) says why it stopped and the measured rate.
      #expect(listener.stderr.contains("stopped by SIGINT"))
      #expect(listener.stderr.contains("/s, gap min"))
    }

    @Test func sendReportsCountDurationRateAndLateness() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "-q", "--count", "10"]
      }
      let sender = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "servo", "--us", "1500", "--rate", "50hz", "--count", "10",
        "--quiet", "--format", "json",
      ])
      #expect(listener.finish() == 0)
      #expect(sender.status == 0, "\(sender.stderr)")
      let report = (try? JSONSerialization.jsonObject(with: Data(sender.stdout))) as? [String: Any] ?? [:]
      #expect(report["sent"] as? Int == 10)
      let rate = report["mean_rate"] as? Double ?? 0
      #expect(rate > 35 && rate < 70, "mean rate \(rate)/s")
      let duration = report["duration"] as? Double ?? 0
      // Nine intervals of 20 ms.
      #expect(duration > 0.12 && duration < 0.5)
      #expect(report["max_lateness_ms"] is Double)
    }
  }
}
