import ArgumentParser
import Testing

@testable import PktbenchCLI

/// Help as an 80-column terminal shows it (ArgumentParser wraps every line
/// to the terminal's width, and to 80 columns when it cannot tell).
@Suite struct HelpTextTests {
  static let commands: [any ParsableCommand.Type] = [Pktbench.self] + Pktbench.configuration.subcommands

  /// An example (an indented line of a discussion) is shown whole, on one
  /// line, so it can be copied: a wrapped one split commands mid-argument.
  @Test(arguments: commands.indices)
  func examplesAreNotWrapped(index: Int) {
    let command = Self.commands[index]
    let help = Set(
      Pktbench.helpMessage(for: command, columns: 80).split(separator: "\n").map(String.init))
    for line in command.configuration.discussion.split(separator: "\n") where line.hasPrefix(" ") {
      let shownWhole = help.contains(String(line))
      #expect(shownWhole, "\(command.configuration.commandName ?? ""): \(line)")
    }
  }

  /// Prose is one paragraph per line, left to the wrapping: a sentence
  /// broken by hand past 80 columns is wrapped again, into long and short
  /// lines in turn. A line over 80 columns ends its paragraph.
  @Test(arguments: commands.indices)
  func proseIsNotBrokenByHand(index: Int) {
    let command = Self.commands[index]
    let lines = command.configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false)
    for (line, next) in zip(lines, lines.dropFirst())
    where line.count > 80 && !line.hasPrefix(" ") && !next.isEmpty && !next.hasPrefix(" ") {
      #expect(
        line.hasSuffix(".") || line.hasSuffix(":"),
        "\(command.configuration.commandName ?? ""): \(line.suffix(40)) / \(next.prefix(40))")
    }
  }

  /// A wrapped example keeps its indent on its first line and continues
  /// under it, each piece short of the edge (ArgumentParser wraps again,
  /// flush left, a line that reaches it).
  @Test func wrappedExamplesKeepTheirIndent() {
    let line =
      "  pktbench craft rallie --upper 50 --lower 50 --pitch 45 --yaw 45 --feed 50 --start --checksum xor"
    let pieces = HelpExamples.wrapped(line, continuation: "      ")
    #expect(pieces.count == 2)
    #expect(pieces.first?.hasPrefix("  pktbench craft rallie ") == true)
    #expect(pieces.dropFirst().allSatisfy { $0.hasPrefix("      ") && !$0.hasPrefix("       ") })
    #expect(pieces.dropLast().allSatisfy { $0.hasSuffix(" \\") })
    #expect(pieces.allSatisfy { $0.count <= HelpExamples.columns })
    // The words are all there, in order.
    let words = pieces.joined(separator: " ").split(separator: " ").filter { $0 != "\\" }
    #expect(words == line.split(separator: " "))
  }

  /// Every continued line of every command's help starts indented, as the
  /// example it belongs to does.
  @Test(arguments: commands.indices)
  func continuedExamplesStartIndented(index: Int) {
    let command = Self.commands[index]
    for line in command.configuration.discussion.split(separator: "\n") where line.hasSuffix(" \\") {
      #expect(line.hasPrefix("  "), "\(command.configuration.commandName ?? ""): \(line)")
    }
  }

  /// `--spec` works on every command (it is taken off the command line
  /// before parsing), so every command's help lists it.
  @Test(arguments: Pktbench.configuration.subcommands.indices)
  func everyCommandListsSpec(index: Int) {
    let command = Pktbench.configuration.subcommands[index]
    #expect(Pktbench.helpMessage(for: command, columns: 80).contains("--spec <file>"))
  }
}
