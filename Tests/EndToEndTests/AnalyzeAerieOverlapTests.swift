import Foundation
import Testing

/// `analyze` on the real Aerie server with one deviceId over two
/// connections (device-truth/falconeye/overlap-close-old): one device, its
/// state kept by deviceId across both sockets, every outcome in the order
/// and with the sessions the server's own log shows.
@Suite(.enabled(if: DeviceTruth.isPresent))
struct AnalyzeAerieOverlapTests {
  static let capture = "falconeye/overlap-close-old.pcap"
  static let log = "falconeye/overlap-close-old.server.log"
  static let logged = ["opened", "closed", "frame_accepted", "error_report", "pong", "authenticated"]

  @Test func timelineAgreesWithTheServersLogPerEvent() throws {
    let outcomes = try AerieServerLog.outcomes(DeviceTruth.path(Self.log))
    // The log's own story, as the recording's README tells it.
    #expect(outcomes.filter { $0.event == "opened" }.count == 2)
    #expect(outcomes.filter { $0.event == "authenticated" }.map(\.reused) == [false, true, false])
    #expect(outcomes.filter { $0.event == "authenticated" }.map(\.marked) == [true, true, false])

    let events = try DeviceTruth.timeline(Self.capture)
    #expect(Set(events.compactMap { $0.json["device"] as? String }).count == 1, "one server, one device")
    #expect(
      events.allSatisfy { $0.json["mismatch"] == nil }, "\(events.filter { $0.json["mismatch"] != nil })")
    let modelled = events.filter { Self.logged.contains($0.name) }
    #expect(modelled.map(\.name) == outcomes.map(\.event))
    let guesses = modelled.filter { !$0.certain }.map(\.name)
    #expect(guesses.isEmpty, "every outcome settled: \(guesses)")

    for (index, (event, outcome)) in zip(modelled, outcomes).enumerated()
    where outcome.event == "authenticated" {
      let text = event.json["text"] as? String ?? ""
      #expect(text.contains("again") == outcome.reused, "auth \(index): \(text)")
      #expect(text.contains("entry is gone") == !outcome.marked, "auth \(index): \(text)")
      // The session the model holds after it is the one the server made or reused.
      let after = modelled[(index + 1)...].first { $0.state["session_id"] is String }
      #expect(after?.state["session_id"] as? String == outcome.sessionId, "auth \(index)")
    }

    // Connection a's frames right after b opened are refused: b's 101 reset
    // the device's authentication; a's close refuses b's frames.
    let flows = Dictionary(grouping: modelled, by: { $0.json["flow"] as? Int ?? 0 })
    #expect(flows.count == 2)
    let second = try #require(
      modelled.firstIndex {
        $0.name == "opened" && $0.json["flow"] as? Int != modelled[0].json["flow"] as? Int
      })
    let next = modelled[(second + 1)...].prefix(2)
    #expect(
      next.allSatisfy {
        $0.name == "error_report" && $0.json["flow"] as? Int == modelled[0].json["flow"] as? Int
      })
  }

  @Test func reportIsOneDeviceWithTwoClientsAndNoMismatch() throws {
    let report = try Analyze.run(DeviceTruth.path(Self.capture))
    #expect(report.status == 0)
    #expect(report.findings("falconeye.model-mismatch").isEmpty)
    #expect(report.devices.count == 1)
    let device = try #require(report.devices.first)
    #expect((device["clients"] as? [Int])?.count == 2)
    #expect((device["clients_text"] as? String ?? "").hasPrefix("two connections reached the Aerie server"))
    // Each connection's facts: a's session and b's last one, from the log.
    let sessions = try AerieServerLog.outcomes(DeviceTruth.path(Self.log)).compactMap(\.sessionId)
    let facts = report.flows.compactMap { $0["facts"] as? [String: Any] }
    let expected = Set([sessions[0], sessions[2]])
    #expect(Set(facts.compactMap { $0["session_id"] as? String }) == expected)
  }
}
