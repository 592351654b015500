import Foundation
import Testing

/// A btsnoop log piped in that pauses (an `adb shell` stream still being
/// written): the records sent so far are decoded while the pipe waits, and
/// Ctrl-C ends the read with every one of them counted (exit 130). The
/// count is tshark's, on the same file.
@Suite struct BtsnoopPipeTests {
  @Test func ctrlCOnAnIdlePipeKeepsEveryRecordSent() throws {
    let capture = Pktbench.root.appendingPathComponent("Captures/ble/legctrl-session.btsnoop")
    let tshark = try #require(Pktbench.which("tshark"))
    let frames = try Pktbench.runProgram(tshark, ["-r", capture.path, "-T", "fields", "-e", "frame.number"])
    let count = frames.text.split(separator: "\n").count
    #expect(count > 1)

    let run = try IdlePipeRun.run(
      ["decode", "-", "--stats", "--format", "json"], sending: try Data(contentsOf: capture))
    #expect(run.wasWaiting)
    let (stderr, output) = (run.stderr, run.stdout)
    #expect(run.status == 130, "\(stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(stderr)")
    #expect(report["records"] as? Int == count, "\(stderr)")
  }
}
