import Foundation
import Testing

/// `listen udp:` under a flood says how many datagrams the kernel dropped:
/// with a tiny receive buffer, everything Python sent was either received
/// or counted as dropped.
extension LiveTests {
  @Suite(.enabled(if: Live.hasPython, "needs python3")) struct UDPDrops {
    static let flood = #"""
      import socket, sys
      port, count = int(sys.argv[1]), int(sys.argv[2])
      s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
      for i in range(count):
          s.sendto(b"flood %08d " % i + b"x" * 48, ("127.0.0.1", port))
      print("sent", count)
      """#

    @Test func aFloodedListenerCountsTheKernelsDrops() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "-q", "--stats", "--format", "json", "--receive-buffer", "4KB"]
      }
      let sent = 20_000
      let result = try Live.python(Self.flood, [String(port), String(sent)])
      #expect(result.status == 0, "\(result.stderr)")
      // Let the listener read what is still queued (a few datagrams at most), then stop it.
      Thread.sleep(forTimeInterval: 1.5)
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      let summary =
        (try? JSONSerialization.jsonObject(with: Data(listener.stdout.utf8))) as? [String: Any] ?? [:]
      let drops = summary["kernel_drops"] as? Int ?? -1
      // The payloads belong to no codec: each is a record, not a message.
      let received = (summary["stats"] as? [String: Any])?["records"] as? Int ?? -1
      #expect(drops > 0, "\(listener.stdout)")
      #expect(received > 0)
      #expect(received + drops == sent, "received \(received) + dropped \(drops) ≠ sent \(sent)")
    }

    @Test func theTextSummarySaysNoneWhenNothingWasDropped() throws {
      let (listener, port) = try Live.startListener { port in
        ["listen", "udp:127.0.0.1:\(port)", "-q", "--stats"]
      }
      let result = try Live.python(Self.flood, [String(port), "5"])
      #expect(result.status == 0)
      Thread.sleep(forTimeInterval: 0.5)
      listener.signal(SIGINT)
      #expect(listener.finish() == 130)
      #expect(listener.stdout.contains("kernel drops: none"), "\(listener.stdout)")
    }
  }
}
