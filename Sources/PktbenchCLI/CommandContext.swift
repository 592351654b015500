import ArgumentParser
import PacketKit

/// What ArgumentParser reads while it parses a command line and writes its
/// help: the run's codecs, for help texts, examples and the flags'
/// validation. Bound only around parsing and help (`Pktbench.run`);
/// commands are handed the codecs themselves (`CodecCommand.run(_:)`), so
/// nothing at run time reads codecs from context.
enum CommandContext {
  @TaskLocal static var codecs: CodecSet = .empty
  /// False while a command line is only parsed: ArgumentParser reads every
  /// command's configuration many times then, and the examples and
  /// settings a help text shows are made only when one is written.
  @TaskLocal static var writesHelp = true
}

/// What a command runs with, besides its own flags.
struct CommandRun: Sendable {
  /// The codecs of this run: the program's, with `--spec` files added.
  var codecs: CodecSet
  /// The spec files loaded (for command lines that reproduce this run).
  var specFiles: [String] = []
}

/// A command that reads codecs: every command but `help`.
protocol CodecCommand: ParsableCommand {
  func run(_ run: CommandRun) throws
}

extension CodecCommand {
  /// Commands run through `Pktbench.run`, which hands them the codecs.
  func run() throws {
    try run(CommandRun(codecs: CommandContext.codecs))
  }
}
