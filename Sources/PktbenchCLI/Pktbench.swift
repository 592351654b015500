import ArgumentParser
import CodecRegistry

/// The root command.
public struct Pktbench: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "pktbench",
    abstract: "Decode, craft, fuzz and emulate \(Codecs.titleList).",
    discussion: """
      Typical use:
        pktbench decode capture.pcap     decode a capture (pcap, pcapng, btsnoop)
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
      EmulateCommand.self, FuzzCommand.self, ListenCommand.self, ReplayCommand.self, SendCommand.self,
    ]
  )

  public init() {}

  /// Runs the command line and returns the exit status. A usage error is
  /// one line on stderr naming what is wrong and what is allowed.
  public static func run(arguments: [String]) -> Int32 {
    do {
      var command = try parseAsRoot(try SpecArguments.register(arguments))
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

/// A failure a command reports in one line, with its exit status.
public struct CommandFailure: Error, CustomStringConvertible {
  public var message: String
  public var status: Int32

  public var description: String { message }

  public init(_ message: String, status: Int32 = 2) {
    self.message = message
    self.status = status
  }
}
