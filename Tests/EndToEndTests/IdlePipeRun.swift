import Foundation
import Testing

/// pktbench reading a capture from a pipe that stays open (a log still
/// being written), stopped by SIGINT once it has had time to read what was
/// sent: what it wrote, said and exited with.
struct IdlePipeRun {
  let status: Int32
  let stdout: Data
  let stderr: String
  /// Whether pktbench was still running (waiting on the pipe) when signalled.
  let wasWaiting: Bool

  var text: String { String(decoding: stdout, as: UTF8.self) }

  static func run(_ arguments: [String], sending input: Data) throws -> IdlePipeRun {
    let process = Process()
    process.executableURL = Pktbench.binary
    process.arguments = arguments
    process.currentDirectoryURL = Pktbench.root
    let stdin = Pipe()
    let out = Pipe()
    let err = Pipe()
    process.standardInput = stdin
    process.standardOutput = out
    process.standardError = err
    try process.run()
    try stdin.fileHandleForWriting.write(contentsOf: input)
    // The input stays open: pktbench has read it all and waits for more.
    nonisolated(unsafe) var output = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
      output = out.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    Thread.sleep(forTimeInterval: 1.5)
    let wasWaiting = process.isRunning
    RobustnessEndToEndTests.interrupt(process, with: SIGINT)
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    try stdin.fileHandleForWriting.close()
    return IdlePipeRun(
      status: process.terminationStatus, stdout: output, stderr: String(decoding: errData, as: UTF8.self),
      wasWaiting: wasWaiting)
  }
}
