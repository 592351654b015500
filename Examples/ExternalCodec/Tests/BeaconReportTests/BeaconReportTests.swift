import BeaconCodec
import Foundation
import PacketAnalysis
import PacketDecode
import PacketKit
import Testing

/// PacketAnalysis on Captures/beacon.pcap, as `beacon-report` runs it. What
/// the capture holds is what Captures/make_beacon_capture.py wrote: six
/// readings 10 s apart, each acked 4 ms later but the fourth, whose check
/// byte was spoiled (frame 7): 11 records over 50.004 s.
@Suite struct BeaconReportTests {
  static let capture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Captures/beacon.pcap").standardizedFileURL.path

  @Test func theSpoiledReadingIsTheOneFinding() throws {
    let report = try CaptureAnalysis(codecs: CodecSet([.bound(BeaconCodec())])).report(of: [Self.capture])
    #expect(report.records == 11)
    #expect(abs(report.duration - 50.004) < 1e-6)
    #expect(report.findings.map(\.rule) == ["decode.error"])
    let finding = try #require(report.findings.first)
    #expect(finding.frame == 7)
    #expect(finding.severity == .warning)
    #expect(finding.details.contains { $0.key == "code" && $0.value == .string("bad-check") })
    #expect(report.verdict == "warning")
    #expect(report.fails(at: .warning) && !report.fails(at: .error))
  }

  @Test func aMissingFileIsOneSentenceWithItsStatus() {
    #expect {
      try CaptureAnalysis(codecs: CodecSet([.bound(BeaconCodec())])).report(of: ["no-such.pcap"])
    } throws: { error in
      (error as? CommandFailure)?.status == ExitStatus.unreadable
    }
  }
}
