import Foundation
import Testing

/// A capture that records when it ended (a pcapng Interface Statistics
/// Block's isb_endtime) lets `analyze` tell a stream that stopped inside
/// it from one the capture cut off. The files are written by Python from
/// the pcapng layout, not by pktbench (`AnalyzeManyFilesTests.write`).
@Suite struct CaptureEndTests {
  /// 20 Rider datagrams at 20 Hz driving 40/40 from t = 1000 s; with
  /// `isbEnd`, an ISB whose isb_endtime is that many seconds after the last.
  static func write(isbEnd: Double?) throws -> String {
    let times = AnalyzeManyFilesTests.driving(from: 1000, seconds: 1)
    return try AnalyzeManyFilesTests.write(
      times: times, start: nil, end: isbEnd.map { (times.last ?? 0) + $0 })
  }

  @Test func aStreamThatStopsBeforeTheRecordedEndStoppedTheRobot() throws {
    let path = try Self.write(isbEnd: 3)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    let ended = try #require(report.findings("rider.ended-moving").first)
    #expect(ended["severity"] as? String == "warning")
    #expect(ended["frame"] as? Int == 20)
    #expect(Analyze.details(ended)["certain"] as? Bool == true)
    let stops = try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }
    #expect(stops.count == 1)
    #expect(stops.first?.certain == true)
  }

  @Test func withoutARecordedEndTheStreamMayHaveGoneOn() throws {
    let path = try Self.write(isbEnd: nil)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    #expect(report.findings("rider.ended-moving").isEmpty)
    #expect(report.serious.isEmpty, "\(report.serious)")
    let stops = try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }
    #expect(stops.map(\.certain) == [false])
  }

  /// An end recorded right after the last datagram: the capture stopped
  /// while the app was still sending, nothing to report.
  @Test func aCaptureStoppedMidStreamIsNotAStop() throws {
    let path = try Self.write(isbEnd: 0.03)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let report = try Analyze.run(path)
    #expect(report.serious.isEmpty, "\(report.serious)")
    #expect(try DeviceTruth.timelineOf(path).filter { $0.name == "watchdog_stop" }.isEmpty)
  }
}
