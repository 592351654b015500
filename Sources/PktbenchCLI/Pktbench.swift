import ArgumentParser
import CodecRegistry

/// The root command.
public struct Pktbench: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "pktbench",
    abstract: "Decode, craft, fuzz and emulate \(Codecs.titleList).",
    discussion: """
      Typical use:
        pktbench decode capture.pcap     decode pcap, pcapng, btsnoop or pklg
        pktbench analyze capture.pcap    health report: what each device did
        pktbench codecs                  list codecs, messages and fields
        pktbench capture -i lo           capture with libpcap and decode
        pktbench listen udp:PORT         decode live traffic (also ws:PORT)
        pktbench CMD … --spec FILE       any command: a codec from a spec file
      """
        + "\n"
        + Codecs.all.compactMap { codec in
          ["craft", "send", "emulate"].compactMap { codec.info.examples[$0]?.first }.first.map {
            "  pktbench " + $0
          }
        }.flatMap { HelpExamples.wrapped($0, continuation: "      ") }.joined(separator: "\n"),
    version: "0.1.0",
    subcommands: [
      AnalyzeCommand.self, CaptureCommand.self, CodecsCommand.self, CraftCommand.self, DecodeCommand.self,
      DissectorCommand.self,
      EmulateCommand.self, FuzzCommand.self, ListenCommand.self, ReplayCommand.self, SendCommand.self,
    ]
  )

  public init() {}

  /// Runs the command line and returns the exit status. A usage error is
  /// one line on stderr naming what is wrong and what is allowed.
  public static func run(arguments given: [String]) -> Int32 {
    // Spec files first: help texts and every command read the codecs.
    let arguments: [String]
    do {
      arguments = try SpecArguments.register(given)
    } catch {
      OutputWriter.standardError.line("pktbench: \(error.message)")
      return error.status
    }
    if let hint = ForeignOptions.hint(arguments) {
      OutputWriter.standardError.line("pktbench: \(hint)")
      return ExitStatus.usage
    }
    if let unknown = unknownHelpTopic(arguments) {
      OutputWriter.standardError.line(
        "pktbench: help: no command '\(unknown)'; the commands are "
          + configuration.subcommands.compactMap { $0.configuration.commandName }.joined(separator: ", "))
      return ExitStatus.usage
    }
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
      return 0
    } catch let exit as ExitCode {
      return exit.rawValue
    } catch let failure as CommandFailure {
      OutputWriter.standardError.line("pktbench: \(failure.message)")
      return failure.status
    } catch {
      let code = exitCode(for: error)
      if code == .success {
        // --help, --version: ArgumentParser's full text on stdout.
        let out = OutputWriter()
        out.line(fullMessage(for: error))
        out.flush()
        return 0
      }
      let message = self.message(for: error)
      let text = message.isEmpty ? String(describing: error) : message
      OutputWriter.standardError.line("pktbench: \(text) (see 'pktbench help')")
      return code.rawValue
    }
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

/// A failure a command reports in one line, with its exit status
/// (`ExitStatus`). Most are about the command line, so that is the default.
public struct CommandFailure: Error, CustomStringConvertible {
  public var message: String
  public var status: Int32

  public var description: String { message }

  public init(_ message: String, status: Int32 = ExitStatus.usage) {
    self.message = message
    self.status = status
  }
}
