import Foundation
import Testing

/// `decode --stats`: a flow's rate is over its own span (first message to
/// last), not the capture's; one message has none. The spans come from
/// tshark, picking the same datagrams by their bytes (docs/protocols.md: LegCtrl's
/// msg_type is the second byte, TELEMETRY 0x10, SET_SERVO_CH0 0x03).
@Suite struct StatsFlowRateTests {
  static func flows(_ arguments: [String]) throws -> [[String: Any]] {
    let result = try Pktbench.run(
      ["decode", "Captures/field-session.pcapng", "--stats", "--format", "json"] + arguments)
    #expect(result.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    return try #require(object["flows"] as? [[String: Any]])
  }

  static func tsharkRate(_ filter: String) throws -> (count: Int, rate: Double)? {
    guard let tshark = Pktbench.which("tshark") else { return nil }
    let result = try Pktbench.runProgram(
      tshark, ["-r", "Captures/field-session.pcapng", "-Y", filter, "-T", "fields", "-e", "frame.time_epoch"])
    let times = result.text.split(separator: "\n").compactMap { Double($0) }
    guard let first = times.first, let last = times.last, times.count > 1 else { return nil }
    return (times.count, Double(times.count - 1) / (last - first))
  }

  @Test(arguments: [true, false]) func ratesAreOverEachFlowsOwnSpan(filtered: Bool) throws {
    // Both counting paths: clean messages counted without records, and records read by -Y.
    let flows = try Self.flows(filtered ? ["-Y", "frame > 0"] : [])
    func flow(_ src: String, _ dst: String, _ message: String) -> [String: Any]? {
      flows.first {
        $0["src"] as? String == src && $0["dst"] as? String == dst && $0["message"] as? String == message
      }
    }
    for (src, dst, message, filter) in [
      ("127.0.0.1:9000", "127.0.0.1:40012", "telemetry", "udp.srcport == 9000 and udp.payload[1] == 0x10"),
      (
        "127.0.0.1:40012", "127.0.0.1:9000", "set_servo_ch0", "udp.dstport == 9000 and udp.payload[1] == 0x03"
      ),
    ] {
      guard let expected = try Self.tsharkRate(filter) else { return }
      let entry = try #require(flow(src, dst, message))
      #expect(entry["count"] as? Int == expected.count)
      let rate = try #require(entry["rate"] as? Double)
      #expect(
        abs(rate - expected.rate) < 1e-6 * expected.rate, "\(message): \(rate) vs tshark's \(expected.rate)")
    }
    // A heartbeat and its reply are two flows of one message each: no rate.
    let heartbeats = flows.filter { $0["message"] as? String == "heartbeat" }
    #expect(heartbeats.count == 2)
    #expect(heartbeats.allSatisfy { $0["count"] as? Int == 1 && $0["rate"] is NSNull })
  }

  @Test func textShowsTheRatesAndNoneForOneMessage() throws {
    let result = try Pktbench.run(["decode", "Captures/field-session.pcapng", "--stats"])
    let lines = result.text.split(separator: "\n").map(String.init)
    let telemetry = try #require(lines.first { $0.contains("→ 127.0.0.1:40012  legctrl telemetry") })
    #expect(telemetry.hasSuffix("18  10.0/s"))
    let arm = try #require(lines.first { $0.contains("legctrl arm") && $0.contains("→") })
    #expect(arm.hasSuffix(" 1"))
  }
}
