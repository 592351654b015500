import Foundation
import Testing

/// The exit status of `decode` on a capture whose records are whole but
/// whose payloads are damaged (issue 34): 0, as tshark and tcpdump exit on
/// packets they find malformed, with the damage in the output. A payload
/// given alone (`--hex`) that does not decode is the input found wanting:
/// 1. The capture (Tests/Fixtures/capture/make_hostile_files.py) holds 10
/// Rider datagrams cut mid-JSON and 3 DNS queries cut mid-name, which
/// tshark marks malformed.
@Suite struct DamagedPayloadStatusTests {
  @Test func aCaptureOfDamagedPayloadsExitsZeroAsTsharkAndTcpdumpDo() throws {
    let capture = try CaptureHostileTests.make("make_hostile_files.py", ["damaged"])
    defer { try? FileManager.default.removeItem(atPath: capture.path) }
    let rider = capture.facts["rider"] as? Int ?? 0
    let dns = capture.facts["dns"] as? Int ?? 0
    #expect(rider == 10 && dns == 3)

    let tshark = try #require(Pktbench.which("tshark"))
    let dissected = try Pktbench.runProgram(tshark, ["-r", capture.path])
    #expect(dissected.status == 0)
    #expect(
      dissected.text.components(separatedBy: "[Malformed Packet]").count - 1 == dns, "\(dissected.text)")
    if let tcpdump = Pktbench.which("tcpdump") {
      let read = try Pktbench.runProgram(tcpdump, ["-r", capture.path, "-nn"])
      #expect(read.status == 0)
      #expect(read.text.components(separatedBy: "[|domain]").count - 1 == dns, "\(read.text)")
    }

    let decoded = try Pktbench.run(["decode", capture.path, "--format", "ndjson"])
    #expect(decoded.status == 0, "\(decoded.stderr)")
    let errors = decoded.text.split(separator: "\n").filter {
      $0.contains("\"codec\":\"rider\"") && $0.contains("\"error\":{")
    }
    #expect(errors.count == rider)
    let kept = try Pktbench.run(["decode", capture.path, "-Y", "error", "--stats"])
    #expect(kept.status == 0)
    #expect(kept.text.contains("rider bad-json  \(rider)"), "\(kept.text)")
  }

  @Test func aPayloadGivenAloneThatDoesNotDecodeExitsOne() throws {
    let result = try Pktbench.run(["decode", "--codec", "rider", "--hex", "7b226c656674"])
    #expect(result.status == 1)
    #expect(result.text.contains("rider decode error"))
  }
}
