import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The live tests run real sockets over loopback, one at a time (a rate
/// measured while another test floods the two cores would be noise).
@Suite(.serialized) struct LiveTests {}

/// A `pktbench` (or any program) running in the background, its output
/// collected as it comes, so a test can wait for "listening on" before
/// sending. Every wait is bounded.
final class LiveProcess: @unchecked Sendable {
  private let process = Process()
  private let lock = NSLock()
  private var stdoutData = Data()
  private var stderrData = Data()
  private let group = DispatchGroup()
  let arguments: [String]
  /// The process's standard input, when started with `standardInput: true`
  /// (else it reads /dev/null).
  let input: FileHandle?

  init(_ arguments: [String], program path: String = Pktbench.binary.path, standardInput: Bool = false) throws
  {
    self.arguments = arguments
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = Pktbench.root
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    if standardInput {
      let pipe = Pipe()
      process.standardInput = pipe
      input = pipe.fileHandleForWriting
    } else {
      process.standardInput = FileHandle.nullDevice
      input = nil
    }
    try process.run()
    drain(out.fileHandleForReading) { self.stdoutData.append($0) }
    drain(err.fileHandleForReading) { self.stderrData.append($0) }
  }

  private func drain(_ handle: FileHandle, into append: @escaping @Sendable (Data) -> Void) {
    group.enter()
    let lock = self.lock
    let group = self.group
    Thread.detachNewThread {
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        lock.lock()
        append(chunk)
        lock.unlock()
      }
      group.leave()
    }
  }

  var stdout: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: stdoutData, as: UTF8.self)
  }

  var stderr: String {
    lock.lock()
    defer { lock.unlock() }
    return String(decoding: stderrData, as: UTF8.self)
  }

  var isRunning: Bool { process.isRunning }

  /// The process's peak resident memory in KiB (VmHWM, Linux), or nil.
  var peakResidentKiB: Int? {
    guard
      let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
    else { return nil }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap {
      Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
  }

  /// How many descriptors the process has open (Linux), or nil.
  var openDescriptors: Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd"))?.count
  }

  /// The open descriptors once they are at most `limit`, or as many as
  /// there are after `timeout`: a server closes a socket on its event loop,
  /// a moment after the client has seen it closed.
  func openDescriptors(atMost limit: Int, within timeout: TimeInterval = 5) -> Int? {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
      guard let count = openDescriptors else { return nil }
      if count <= limit { return count }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return openDescriptors
  }

  /// Waits until stderr contains `text` or the process ends; true if seen.
  func waitForStderr(_ text: String, timeout: TimeInterval = 20) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
      if stderr.contains(text) { return true }
      if !process.isRunning { return stderr.contains(text) }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return false
  }

  /// Waits until stdout has at least `lines` lines or the time is up.
  func waitForLines(_ lines: Int, timeout: TimeInterval = 20) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
      if stdout.split(separator: "\n").count >= lines { return true }
      if !process.isRunning { break }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return stdout.split(separator: "\n").count >= lines
  }

  func signal(_ number: Int32) {
    if process.isRunning { kill(process.processIdentifier, number) }
  }

  /// Waits for the exit (killing the process past the timeout) and returns
  /// its status; output is complete afterwards.
  @discardableResult
  func finish(timeout: TimeInterval = 30) -> Int32 {
    let end = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
    if process.isRunning {
      Issue.record("\(arguments) still running after \(timeout) s; killed")
      kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    _ = group.wait(timeout: .now() + 10)
    return process.terminationStatus
  }

  /// The stdout lines that are JSON objects.
  var jsonLines: [[String: Any]] {
    stdout.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}

enum Live {
  /// A random port in 20000–60000.
  static func randomPort() -> Int { Int.random(in: 20_000...60_000) }

  /// Starts a `pktbench listen` (or `capture`) whose arguments depend on the
  /// port, retrying with another port when the chosen one is in use. Returns
  /// once the listener says it listens.
  static func startListener(
    ready: String = "listening on", program: String = Pktbench.binary.path, _ arguments: (Int) -> [String]
  ) throws -> (LiveProcess, Int) {
    for _ in 0..<6 {
      let port = randomPort()
      let process = try LiveProcess(arguments(port), program: program)
      if process.waitForStderr(ready) { return (process, port) }
      process.finish(timeout: 5)
      if process.stderr.contains("already in use") { continue }
      Issue.record("listener did not start: \(process.stderr)")
      return (process, port)
    }
    throw LiveTestError("no free port after 6 tries")
  }

  /// Runs Python code with arguments; the script's stdout is returned.
  static func python(_ script: String, _ arguments: [String], timeout: TimeInterval = 30) throws
    -> Pktbench.Result
  {
    guard let python = Pktbench.which("python3") else { throw LiveTestError("python3 is not installed") }
    return try Pktbench.runProgram(python, ["-c", script] + arguments, timeout: timeout)
  }

  static var hasPython: Bool { Pktbench.which("python3") != nil }

  /// Whether python3 can import `websockets` (scripts/bootstrap.sh --test-tools installs it).
  static var hasPythonWebsockets: Bool {
    guard let python = Pktbench.which("python3") else { return false }
    let result = try? Pktbench.runProgram(python, ["-c", "import websockets.asyncio.client"], timeout: 30)
    return result?.status == 0
  }

  static var isRoot: Bool { getuid() == 0 }

  static func hasInterface(_ name: String) -> Bool {
    FileManager.default.fileExists(atPath: "/sys/class/net/\(name)")
  }

  /// A temporary file path that does not exist yet.
  static func temporaryPath(_ suffix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "pktbench-live-\(UUID().uuidString)\(suffix)"
    ).path
  }

  /// The `fields` object of a decoded record.
  static func fields(_ record: [String: Any]) -> [String: Any] {
    record["fields"] as? [String: Any] ?? [:]
  }

  /// The records that a peer sent (not pktbench's own replies).
  static func received(_ records: [[String: Any]]) -> [[String: Any]] {
    records.filter { ($0["direction"] as? String) != "sent" && $0["codec"] is String }
  }
}

struct LiveTestError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
