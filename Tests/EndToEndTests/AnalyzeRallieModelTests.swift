import Foundation
import Testing

/// `analyze --timeline` on Tests/Fixtures/analyze/rallie-app.pcap, made by
/// make_rallie_app_capture.py from the Rallie app's own frames and its
/// parser's recorded verdicts (device-truth rallie/): what the timeline says
/// the app did with each response is what the app did.
@Suite struct AnalyzeRallieModelTests {
  static let capture = "Tests/Fixtures/analyze/rallie-app.pcap"

  static func timeline(_ capture: String) throws -> [[String: Any]] {
    let result = try Pktbench.run(["analyze", capture, "--timeline"])
    #expect(result.status == 0, "\(result.stderr)")
    return try result.text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
  }

  @Test func timelineAgreesWithTheAppAndTheMachine() throws {
    let expected = try Analyze.fixture("Tests/Fixtures/analyze/rallie-app.expected.json")
    let frames = try #require(expected["frames"] as? [[String: Any]])
    let events = try Self.timeline(Self.capture)
    #expect(events.count == frames.count, "one event per record")
    let byFrame = Dictionary(grouping: events) { $0["frame"] as? Int ?? -1 }
    var checked = 0
    for want in frames {
      let frame = try #require(want["frame"] as? Int)
      let got = try #require(byFrame[frame]?.first, "frame \(frame) has no event")
      #expect(byFrame[frame]?.count == 1)
      #expect(got["event"] as? String == want["event"] as? String, "frame \(frame)")
      #expect(got["codec"] as? String == "rallie")
      #expect(got["mismatch"] == nil, "frame \(frame): \(got)")
      if let certain = want["certain"] as? Bool {
        #expect(got["certain"] as? Bool == certain, "frame \(frame)")
      }
      let state = try #require(got["state"] as? [String: Any])
      if want["side"] as? String == "app" {
        // The app build is the one recorded: sure of what it did.
        #expect(got["certain"] as? Bool == true, "frame \(frame)")
        let code = want["last_code"] as? String
        #expect(state["last_code"] as? String == code, "frame \(frame)")
        if code == nil { #expect(state["last_code"] is NSNull, "frame \(frame)") }
      }
      if let why = want["why"] as? String {
        #expect((got["text"] as? String ?? "").hasPrefix("\(why):"), "frame \(frame): \(got["text"] ?? "")")
      }
      checked += 1
    }
    #expect(checked >= 30)
    // In time order.
    let times = events.compactMap { $0["time"] as? Double }
    #expect(times == times.sorted())
  }

  @Test func findingsAtTheirFramesAndNothingElse() throws {
    let expected = try Analyze.fixture("Tests/Fixtures/analyze/rallie-app.expected.json")
    let wanted = try #require(expected["findings"] as? [[String: Any]])
    let report = try Analyze.run(Self.capture)
    #expect(report.json["records"] as? Int == expected["records"] as? Int)
    func key(_ finding: [String: Any]) -> String {
      "\(finding["rule"] as? String ?? "?")/\(finding["severity"] as? String ?? "?")@\(finding["frame"] as? Int ?? -1)"
    }
    #expect(report.findings.map(key).sorted() == wanted.map(key).sorted())
    for want in wanted {
      let got = try #require(report.findings.first { key($0) == key(want) })
      #expect(abs((got["time"] as? Double ?? 0) - (want["time"] as? Double ?? -1)) < 2e-6, "\(key(want))")
      if let frames = want["frames"] as? [Int] { #expect(got["frames"] as? [Int] == frames, "\(key(want))") }
      if let side = want["side"] as? String { #expect(Analyze.details(got)["side"] as? String == side) }
    }
    // Each drop says why in the app's words.
    for dropped in report.findings("rallie.response-dropped") {
      let why = Analyze.details(dropped)["why"] as? String ?? ""
      #expect(["header-or-source", "length"].contains(why), "\(dropped)")
      #expect((dropped["text"] as? String ?? "").contains("(\(why):"))
    }
    for skew in report.findings("rallie.check-variant-mismatch") {
      #expect((skew["text"] as? String ?? "").contains("accepts XOR only"), "\(skew)")
    }
  }

  /// The shipped Rallie captures: the machine's responses never contradict
  /// what the model is sure of.
  @Test(arguments: [
    "Captures/rallie-udp.pcap", "Captures/field-session.pcapng", "Tests/Fixtures/analyze/rallie-faults.pcap",
    capture,
  ])
  func noModelMismatch(capture: String) throws {
    let report = try Analyze.run(capture)
    #expect(report.findings("rallie.model-mismatch").isEmpty, "\(capture)")
    let events = try Self.timeline(capture).filter { $0["codec"] as? String == "rallie" }
    #expect(!events.isEmpty)
    #expect(events.allSatisfy { $0["mismatch"] == nil }, "\(capture)")
  }
}
