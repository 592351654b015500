import Foundation
import Testing

/// `send udp://` to a device that is still booting: the first datagrams are
/// answered with ICMP port unreachable, then a listener starts. Every
/// datagram is still sent; the refusals are counted and reported.
extension LiveTests {
  @Suite struct Refusal {
    @Test func aListenerThatStartsLateGetsTheRestAndTheCountsAddUp() throws {
      let port = Live.randomPort()
      let sender = try LiveProcess([
        "send", "udp://127.0.0.1:\(port)", "arm", "then", "servo", "--us", "1500", "--rate", "50hz",
        "--duration", "3s", "--quiet", "--format", "json",
      ])
      // Nothing listens for the first second: the kernel answers port unreachable.
      Thread.sleep(forTimeInterval: 1)
      let listener = try LiveProcess(["listen", "udp:127.0.0.1:\(port)", "--format", "ndjson"])
      #expect(listener.waitForStderr("listening on"), "\(listener.stderr)")
      let status = sender.finish(timeout: 20)
      Thread.sleep(forTimeInterval: 0.3)
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)

      // Refusals make the run fail (exit 1), and are said once on stderr.
      #expect(status == 1, "\(sender.stderr)")
      #expect(sender.stderr.split(separator: "\n").count == 1, "\(sender.stderr)")
      #expect(sender.stderr.contains("connection refused"))
      let report =
        (try? JSONSerialization.jsonObject(with: Data(sender.stdout.utf8))) as? [String: Any] ?? [:]
      let sent = report["sent"] as? Int ?? -1
      let refused = report["refused"] as? Int ?? -1
      // One arm, then 3 s at 50 Hz: 150 set_servo_ch0. None is lost to a refusal.
      #expect(sent == 151, "\(report)")
      #expect(report["not_sent"] as? Int == 0)
      let received = listener.jsonLines.filter { $0["codec"] as? String == "legctrl" }
      let servos = received.filter { $0["message"] as? String == "set_servo_ch0" }
      #expect(refused > 20, "refused \(refused)")
      #expect(servos.count > 50, "the listener got \(servos.count)")
      // Each datagram was either refused (before the listener bound) or received.
      #expect(refused + received.count == sent, "refused \(refused) + received \(received.count) ≠ \(sent)")
    }

    @Test func theTextReportSaysHowManyWereRefused() throws {
      let port = Live.randomPort()
      let result = try Pktbench.run([
        "send", "udp://127.0.0.1:\(port)", "servo", "--us", "1500", "--rate", "100hz", "--count", "5", "-q",
      ])
      #expect(result.status == 1)
      // The last datagram's refusal is still pending on the socket at the end: it counts too.
      #expect(result.text.contains("5 sent, 5 refused by the peer (port unreachable)"), "\(result.text)")
    }
  }
}
