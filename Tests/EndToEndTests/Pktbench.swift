import Foundation
import Testing

/// Runs the built `pktbench` binary, as a user would.
struct Pktbench {
  struct Result {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
  }

  /// The package root, found from this file's path.
  static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  static var binary: URL {
    if let path = ProcessInfo.processInfo.environment["PKTBENCH_BIN"] {
      return URL(fileURLWithPath: path)
    }
    return root.appendingPathComponent(".build/debug/pktbench")
  }

  static func run(_ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:]) throws
    -> Result
  {
    try runProgram(binary.path, arguments, stdin: stdin, environment: environment)
  }

  /// Runs `path`; `environment` is added to this process's own.
  static func runProgram(
    _ path: String, _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:],
    timeout: TimeInterval = 120
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = root
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
    try input.fileHandleForWriting.close()
    // Read both pipes fully before waiting, so a large output cannot block the child.
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
      outData = out.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
      errData = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    if group.wait(timeout: .now() + timeout) == .timedOut {
      process.terminate()
      Issue.record("\(path) \(arguments) did not finish in \(timeout) s")
    }
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, stdout: [UInt8](outData),
      stderr: String(decoding: errData, as: UTF8.self))
  }

  static func which(_ tool: String) -> String? {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
      separator: ":")
    {
      let path = "\(directory)/\(tool)"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }
}
