import Foundation
import Testing

/// Every README example that reads a shipped file runs as written and says
/// something: exit status 0 (1 where the example is a damaged file or
/// `--fail-on`), and output on stdout or in the file it writes. An example
/// that prints nothing on the shipped captures teaches nothing.
@Suite struct ReadmeExampleTests {
  static let blocks = ReadmeExamples.load()

  @Test func theReadmeHasExamplesToRun() {
    let commands = Self.blocks.flatMap(\.commands)
    #expect(commands.count > 40)
    #expect(commands.filter { ReadmeExamples.skipReason($0.text) == nil }.count > 30)
  }

  @Test(arguments: blocks)
  func everyExampleRunsAndSaysSomething(_ block: ReadmeExamples.Block) throws {
    let work = try WorkDirectory()
    defer { work.remove() }
    if block.isScript {
      // The fleet examples query with DuckDB; scripts/test.sh installs it.
      guard (try? Pktbench.runProgram("/usr/bin/env", ["python3", "-c", "import duckdb"]).status) == 0 else {
        return
      }
      let result = try work.run(block.commands.map(\.text).joined(separator: "\n"))
      #expect(result.status == 0, "the script at README.md:\(block.line): \(result.stderr)")
      #expect(!result.stdout.isEmpty, "the script at README.md:\(block.line) printed nothing")
      // The fleet examples' globs reach the captures in subdirectories.
      #expect(
        result.text.contains("att.error-response") || result.text.contains("ble/legctrl-session"),
        "README.md:\(block.line) skipped Captures/ble: \(result.text)")
      return
    }
    for command in block.commands where ReadmeExamples.skipReason(command.text) == nil {
      let before = work.files()
      let result = try work.run(command.text)
      let allowed: Set<Int32> =
        command.text.contains("damaged/") || command.text.contains("--fail-on") ? [0, 1] : [0]
      #expect(allowed.contains(result.status), "\(command) exit \(result.status): \(result.stderr)")
      let wrote = work.files().contains { path, size in size > 0 && before[path] != size }
      #expect(!result.stdout.isEmpty || wrote, "\(command) printed nothing and wrote nothing")
    }
  }
}

/// A directory with a copy of the shipped captures, specs and examples, and
/// `pktbench` first on PATH, where README commands run as a user types them.
private struct WorkDirectory {
  let url: URL
  let bin: URL

  init() throws {
    let manager = FileManager.default
    url = manager.temporaryDirectory.appendingPathComponent("pktbench-readme-\(UUID().uuidString)")
    bin = url.appendingPathComponent(".bin")
    try manager.createDirectory(at: bin, withIntermediateDirectories: true)
    try manager.createSymbolicLink(
      at: bin.appendingPathComponent("pktbench"), withDestinationURL: Pktbench.binary)
    for folder in ["Captures", "Specs", "Examples"] {
      try manager.copyItem(
        at: Pktbench.root.appendingPathComponent(folder), to: url.appendingPathComponent(folder))
    }
  }

  func run(_ script: String) throws -> Pktbench.Result {
    let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    return try Pktbench.runProgram(
      "/bin/bash", ["-o", "pipefail", "-c", "cd \"$0\" && " + script, url.path],
      environment: ["PATH": path], timeout: 300)
  }

  /// Every file under the directory and its size.
  func files() -> [String: Int] {
    var sizes: [String: Int] = [:]
    let keys: [URLResourceKey] = [.fileSizeKey, .isRegularFileKey]
    guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: keys) else {
      return [:]
    }
    for case let file as URL in walk {
      guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else {
        continue
      }
      sizes[file.path] = values.fileSize ?? 0
    }
    return sizes
  }

  func remove() { try? FileManager.default.removeItem(at: url) }
}
