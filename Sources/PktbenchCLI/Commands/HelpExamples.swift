import Foundation
import PacketDecode

/// The examples in help texts: a command's own, then those its codecs'
/// plugins give (`CodecInfo.examples`), so the CLI names no codec.
enum HelpExamples {
  /// Help is read at 80 columns, and ArgumentParser wraps again (losing
  /// the indent) a line that reaches the edge: ours stop short of it.
  static let columns = 76

  /// "Examples:" then one line each, indented as ArgumentParser shows them;
  /// a long one is continued with a backslash, as a shell takes it.
  static func text(_ command: String, generic: [String] = []) -> String {
    guard CommandContext.writesHelp else { return "" }
    let lines = generic + CommandContext.codecs.examples(for: command).map { "pktbench " + $0 }
    return (["Examples:"] + lines.flatMap { wrapped("  " + $0, continuation: "      ") }).joined(
      separator: "\n")
  }

  /// `line` cut at spaces into lines of at most `columns`, each but the
  /// last ending in " \\" (a shell line continuation), the rest indented.
  static func wrapped(_ line: String, continuation: String, marker: String = " \\") -> [String] {
    guard line.count > columns else { return [line] }
    // The line's own indent leads its first line (split on spaces, it
    // would be a run of empty words and be lost).
    let indent = String(line.prefix { $0 == " " })
    var out: [String] = []
    var current = indent
    for word in line.dropFirst(indent.count).split(separator: " ") {
      let candidate = current.count == indent.count && out.isEmpty ? current + word : current + " " + word
      if candidate.count + marker.count > columns, current.contains(where: { $0 != " " }) {
        out.append(current + marker)
        current = continuation + word
      } else {
        current = candidate
      }
    }
    out.append(current)
    return out
  }

  /// A codec that lives on BLE, for `--ble-map` examples.
  static var bleCodec: String { BLEMapRule.exampleCodec(in: CommandContext.codecs) }
}
