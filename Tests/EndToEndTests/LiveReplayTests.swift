import Foundation
import Testing

/// `replay` of a shipped capture into `listen`: the same payloads arrive, in
/// order, and decode to the same left/right values. The expected payloads
/// come from tshark, not from pktbench.
extension LiveTests {
  @Suite struct Replay {
    @Test(.enabled(if: Pktbench.which("tshark") != nil, "needs tshark"))
    func riderCaptureAtTenTimesSpeedArrivesIntact() throws {
      let capture = "Captures/rider-20hz.pcap"
      let tshark = try Pktbench.runProgram(
        Pktbench.which("tshark") ?? "tshark",
        ["-r", capture, "-Y", "udp", "-T", "fields", "-e", "udp.payload"])
      let expected = tshark.text.split(separator: "\n").map { $0.lowercased() }
      #expect(expected.count > 50)

      let (listener, port) = try Live.startListener { port in
        [
          "listen", "udp:127.0.0.1:\(port)", "--count", String(expected.count), "--format", "ndjson",
          "--payload-hex", "--codec", "rider",
        ]
      }
      let started = Date()
      let replay = try Pktbench.run([
        "replay", capture, "--to", "udp://127.0.0.1:\(port)", "--speed", "10x", "-q",
      ])
      let elapsed = Date().timeIntervalSince(started)
      #expect(replay.status == 0, "\(replay.stderr)")
      #expect(listener.finish() == 0)
      let records = listener.jsonLines
      let payloads = records.compactMap { $0["payload"] as? String }
      #expect(payloads == expected)

      // Left/right of every JSON command, parsed here from tshark's bytes, equal what listen decoded.
      for (record, hex) in zip(records, expected) {
        guard let object = Self.json(hex), let left = object["left"] as? Double else { continue }
        #expect(Live.fields(record)["left"] as? Double == left)
        #expect(Live.fields(record)["right"] as? Double == object["right"] as? Double)
      }
      // The capture spans about 3.15 s: at 10x the replay takes about 0.3 s, not 3 s.
      #expect(elapsed < 2.5)
      #expect(replay.text.contains("sent \(expected.count) messages"))
    }

    @Test func replayRefusesAWebSocketDestination() throws {
      let result = try Pktbench.run(["replay", "Captures/rider-20hz.pcap", "--to", "ws://127.0.0.1:9/x"])
      #expect(result.status != 0)
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("udp://"))
    }

    static func json(_ hex: String) -> [String: Any]? {
      var bytes: [UInt8] = []
      var index = hex.startIndex
      while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
        guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
      }
      return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
  }
}
