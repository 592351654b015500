import Foundation
import Testing

/// The shell examples of README.md, read as a user reads them: each ```sh
/// block, its lines joined where they end in `\` or `|`. A block that
/// runs Python is one script; any other block is a list of commands.
struct ReadmeExamples {
  struct Command: CustomStringConvertible {
    var line: Int
    var text: String
    var description: String { "README.md:\(line): \(text)" }
  }

  struct Block: CustomTestStringConvertible {
    var line: Int
    var commands: [Command]
    var isScript: Bool
    var testDescription: String { "the block at README.md:\(line)" }
  }

  static func load() -> [Block] {
    guard
      let text = try? String(contentsOf: Pktbench.root.appendingPathComponent("README.md"), encoding: .utf8)
    else { return [] }
    var blocks: [Block] = []
    var current: Block?
    var pending = ""
    var pendingLine = 0
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("```") {
        if let block = current {
          if !block.commands.isEmpty { blocks.append(block) }
          current = nil
        } else if line == "```sh" {
          current = Block(line: index + 1, commands: [], isScript: false)
        }
        pending = ""
        continue
      }
      guard current != nil else { continue }
      if line.contains("python3 -c") { current?.isScript = true }
      if pending.isEmpty {
        if line.isEmpty || line.hasPrefix("#") { continue }
        pendingLine = index + 1
      }
      pending += (pending.isEmpty ? "" : " ") + line
      if pending.hasSuffix("\\") {
        pending.removeLast()
        continue
      }
      if pending.hasSuffix("|") || current?.isScript == true && pending.filter({ $0 == "\"" }).count % 2 == 1
      {
        pending += "\n"
        continue
      }
      current?.commands.append(Command(line: pendingLine, text: pending))
      pending = ""
    }
    return blocks
  }

  /// Why a command is not run here, or nil when it is: these need a
  /// network peer, a privilege, a display or minutes of fuzzing.
  static func skipReason(_ command: String) -> String? {
    let words = command.split(separator: " ").map(String.init)
    if let at = words.firstIndex(of: "pktbench"), at + 1 < words.count,
      ["listen", "emulate", "send", "capture", "replay"].contains(words[at + 1])
    {
      return "a live socket or interface"
    }
    if words.contains("fuzz") { return "fuzzing runs for its time budget; its own tests cover it" }
    if command.contains("nc -u") || command.contains("tcpdump -i") { return "a live network" }
    if let first = words.first, ["wireshark", "swift", "cd"].contains(first) || first.hasPrefix("scripts/") {
      return "a display, a build, or a script run elsewhere"
    }
    if words.first == "tshark", Pktbench.which("tshark") == nil { return "tshark is not installed" }
    return nil
  }
}
