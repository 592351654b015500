import ArgumentParser
import NIOCore
import NIOPosix
import PacketCapture
import PacketDecode
import PacketLive

/// `pktbench replay capture.pcap --to udp://HOST:PORT [--speed 2x] [--filter BPF]`.
extension ReplaySockets.Mode: ExpressibleByArgument {}

struct ReplayCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "replay",
      abstract: "Send the UDP payloads of a capture to a destination, with the capture's timing.",
      discussion: """
        Every UDP datagram of the capture (after --filter) is sent, payload only, \
        to --to, at the capture's pace divided by --speed (2x is twice as fast; \
        max sends back to back). Each one is printed as decode prints it, with its \
        capture time and endpoints; at the end a report gives the count, duration, \
        mean rate and the largest lateness.

        --source-ports keep sends each capture sender's datagrams from its own \
        source port, map from a port of its own: a device that tells its peers \
        apart (one that reports to the last writer) sees them as the \
        capture does. By default (one) everything leaves from one socket.

        """
          + HelpExamples.text(
            "replay",
            generic: [
              "pktbench replay field.pcapng --to udp://127.0.0.1:9000 --speed 10x --filter 'udp port 9000'",
              "pktbench replay restart.pcap --to udp://127.0.0.1:29000 --filter 'udp dst port 29000' --source-ports map",
            ]))
  }

  @Argument(help: "Capture file (pcap, pcapng).")
  var input: String

  @Option(help: "Destination: udp://HOST:PORT.")
  var to: String

  @Option(help: "Pace: 1x (the capture's), 2x, 0.5x, or max.")
  var speed = "1x"

  @Option(help: "BPF filter, same syntax as tcpdump.")
  var filter: String?

  @Option(
    name: .customLong("source-ports"),
    help: "Send from one socket (one), each sender from its capture source port (keep), or a port each (map)."
  )
  var sourcePorts: ReplaySockets.Mode = .one

  @Option(help: "Stop after this many datagrams.")
  var count: Int?

  @Option(help: "Decode payloads with this codec (\(CommandContext.codecs.nameList)).")
  var codec: String?

  @Option(name: .customLong("decode-as"), help: "Route a port to a codec: udp:9000=CODEC (repeatable).")
  var decodeAs: [String] = []

  @OptionGroup var output: LiveOutputOptions

  @OptionGroup var spec: SpecOption

  func validate() throws {
    if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    if let codec, CommandContext.codecs.named(codec) == nil {
      throw ValidationError(
        "unknown codec '\(codec)'; known: \(CommandContext.codecs.names.joined(separator: ", "))")
    }
  }

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let target = try TargetURL.parse(to)
    guard target.scheme == .udp else {
      throw CommandFailure("replay sends UDP payloads: --to must be udp://HOST:PORT, not \(target.display)")
    }
    let pace = try Self.parseSpeed(speed)
    let rules = try decodeAs.map { try DecodeAsRule.parse($0, codecs: codecs) }
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: input)
    } catch {
      throw CommandFailure("\(input): \(error.text)", status: ExitStatus.unreadable)
    }
    if let filter {
      do {
        try reader.setFilter(filter)
      } catch {
        throw CommandFailure("--filter: \(error.text)", status: ExitStatus.usage)
      }
    }
    let address: SocketAddress
    do {
      address = try SocketAddress.makeAddressResolvingHost(target.host, port: target.port)
    } catch {
      throw CommandFailure("\(target.display): cannot resolve host '\(target.host)'", status: 1)
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let errors = ReplayErrors()
    let sockets = ReplaySockets(
      mode: sourcePorts, group: group, target: address, errors: errors, display: target.display)
    do {
      try sockets.open()
    } catch {
      throw CommandFailure(SocketFailure.connect(error, what: target.display), status: 1)
    }
    let stop = StopFlag()
    let signals = StopSignals { stop.stop($0) }
    let replayer = Replayer(
      configuration: .init(
        codecs: codecs, path: input, target: target, speed: pace, countLimit: count, output: output.settings,
        codec: codec, rules: rules),
      sockets: sockets, errors: errors, stop: stop)
    let status = replayer.run(reader: reader)
    // Let the last datagrams leave (and an ICMP refusal come back) before closing.
    sockets.closeAll()
    withExtendedLifetime(signals) {}
    if status != 0 { throw ExitCode(status) }
  }

  /// "2x", "2", "0.5x" → 2, 2, 0.5; "max" → nil (no waiting).
  static func parseSpeed(_ text: String) throws(CommandFailure) -> Double? {
    let lower = text.lowercased()
    if lower == "max" || lower == "0" { return nil }
    let number = lower.hasSuffix("x") ? String(lower.dropLast()) : lower
    guard let speed = Double(number), speed.isFinite, speed > 0, speed <= 1e6 else {
      throw CommandFailure("--speed '\(text)': expected a factor such as 1x, 2x, 0.5x, or max")
    }
    return speed
  }
}
