import ArgumentParser
import PacketDecode
import PacketKit

/// The root command.
public struct Pktbench: ParsableCommand {
  public static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "pktbench",
      abstract: "Decode, craft, fuzz and emulate \(CommandContext.codecs.titleList).",
      discussion: """
        Typical use:
          pktbench decode capture.pcap     decode pcap, pcapng, btsnoop or pklg
          pktbench analyze capture.pcap    health report: what each device did
          pktbench codecs                  list codecs, messages and fields
          pktbench capture -i lo           capture with libpcap and decode
          pktbench listen udp:PORT         decode live traffic (also ws:PORT)
          pktbench CMD … --spec FILE       any command: a codec from a spec file
        """
          + "\n" + codecExamples,
      version: "0.1.0",
      subcommands: [
        AnalyzeCommand.self, CaptureCommand.self, CodecsCommand.self, CraftCommand.self, DecodeCommand.self,
        DissectorCommand.self,
        EmulateCommand.self, FuzzCommand.self, ListenCommand.self, ReplayCommand.self, SendCommand.self,
      ]
    )
  }

  public init() {}

  /// One example a codec, from its plugin.
  private static var codecExamples: String {
    guard CommandContext.writesHelp else { return "" }
    return CommandContext.codecs.all.compactMap { codec in
      ["craft", "send", "emulate"].compactMap { codec.info.examples[$0]?.first }.first.map {
        "  pktbench " + $0
      }
    }.flatMap { HelpExamples.wrapped($0, continuation: "      ") }.joined(separator: "\n")
  }

  /// Runs the command line with these codecs and returns the exit status.
  /// A usage error is one line on stderr naming what is wrong and what is
  /// allowed.
  public static func run(arguments given: [String], codecs: CodecSet) -> Int32 {
    // Spec files first: help texts and every command read the codecs.
    let run: CommandRun
    let arguments: [String]
    do {
      (run, arguments) = try SpecArguments.register(given, codecs: codecs)
    } catch {
      OutputWriter.standardError.line("pktbench: \(error.message)")
      return error.status
    }
    if let hint = ForeignOptions.hint(arguments) {
      OutputWriter.standardError.line("pktbench: \(hint)")
      return ExitStatus.usage
    }
    // Parsing and help read the codecs from context; the command is handed them.
    let parsed = CommandContext.$codecs.withValue(run.codecs) { parse(arguments) }
    let command: ParsableCommand
    switch parsed {
    case .success(let parsedCommand): command = parsedCommand
    case .failure(let end): return end.status
    }
    do {
      if let command = command as? any CodecCommand {
        try command.run(run)
      } else {
        var command = command
        try command.run()
      }
      return ExitStatus.ok
    } catch let exit as ExitCode {
      return exit.rawValue
    } catch let failure as CommandFailure {
      OutputWriter.standardError.line("pktbench: \(failure.message)")
      return failure.status
    } catch {
      return CommandContext.$codecs.withValue(run.codecs) { report(error) }
    }
  }

  /// The command of a command line, or the status of what it printed
  /// instead (help, a version, a usage error).
  private static func parse(_ arguments: [String]) -> Result<ParsableCommand, ParseEnd> {
    if let unknown = unknownHelpTopic(arguments) {
      OutputWriter.standardError.line(
        "pktbench: help: no command '\(unknown)'; the commands are "
          + configuration.subcommands.compactMap { $0.configuration.commandName }.joined(separator: ", "))
      return .failure(ParseEnd(status: ExitStatus.usage))
    }
    do {
      return .success(try CommandContext.$writesHelp.withValue(false) { try parseAsRoot(arguments) })
    } catch {
      return .failure(ParseEnd(status: report(error)))
    }
  }

  struct ParseEnd: Error {
    var status: Int32
  }

  /// `--help` and `--version` on stdout (status 0); anything else one line
  /// on stderr, with ArgumentParser's status.
  private static func report(_ error: any Error) -> Int32 {
    let code = exitCode(for: error)
    if code == .success {
      let out = OutputWriter()
      out.line(fullMessage(for: error))
      out.flush()
      return ExitStatus.ok
    }
    let message = self.message(for: error)
    let text = message.isEmpty ? String(describing: error) : message
    OutputWriter.standardError.line("pktbench: \(text) (see 'pktbench help')")
    return code.rawValue
  }
}

extension Pktbench {
  /// The first word of `pktbench help WORD…` that names no command.
  /// ArgumentParser shows the root help for an unknown one and exits 0, so
  /// a typo would pass for success.
  static func unknownHelpTopic(_ arguments: [String]) -> String? {
    guard arguments.first == "help" else { return nil }
    var command: ParsableCommand.Type = Pktbench.self
    for word in arguments.dropFirst() where !word.hasPrefix("-") {
      guard
        let next = command.configuration.subcommands.first(where: { $0.configuration.commandName == word })
      else { return word }
      command = next
    }
    return nil
  }
}
