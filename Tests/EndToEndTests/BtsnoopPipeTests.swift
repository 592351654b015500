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

    let process = Process()
    process.executableURL = Pktbench.binary
    process.arguments = ["decode", "-", "--stats", "--format", "json"]
    let input = Pipe()
    let out = Pipe()
    let err = Pipe()
    process.standardInput = input
    process.standardOutput = out
    process.standardError = err
    try process.run()
    try input.fileHandleForWriting.write(contentsOf: try Data(contentsOf: capture))
    // The input stays open: pktbench has read it all and waits for more.
    nonisolated(unsafe) var output = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      output = out.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    Thread.sleep(forTimeInterval: 1.5)
    #expect(process.isRunning)
    RobustnessEndToEndTests.interrupt(process, with: SIGINT)
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    try input.fileHandleForWriting.close()
    let stderr = String(decoding: errData, as: UTF8.self)
    #expect(process.terminationStatus == 130, "\(stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any], "\(stderr)")
    #expect(report["records"] as? Int == count, "\(stderr)")
  }
}
