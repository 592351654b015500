import ArgumentParser
import NIOCore
import NIOPosix
import NIOSSL
import PacketDecode
import PacketLive

/// `pktbench send URL MESSAGE [fields] [--rate R] [--count N] [--duration D] [then ...]`.
struct SendCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "send",
      abstract: "Send crafted messages over UDP or WebSocket at a steady rate, step by step.",
      discussion: """
        The message after the URL is named and filled in as for 'craft' (see \
        'pktbench codecs'). Each step paces itself: --rate 20hz (or 20/s, or a \
        period: 50ms), --count N, --duration 5s; a step with neither --rate, \
        --count nor --duration sends one message; --count or --duration without \
        --rate sends at 1 Hz; --rate alone sends until Ctrl-C. 'then' starts the \
        next step. Message k of a step leaves at start + k·period on the monotonic \
        clock, so the rate does not drift. Each message sent (and each reply) is \
        printed as decode prints it; at the end a report gives the count, \
        duration, mean rate and the largest lateness.
        Two more kinds of step script a conversation: 'wait 200ms' sends nothing \
        for that long, and 'expect MESSAGE [--field value ...] [--within 2s]' \
        waits for the peer to send that message with those field values (a \
        reply that came before the step counts); one not met in time ends the \
        run with one line and exit status 1, so a device can be checked from CI.
        ws:// performs the HTTP upgrade, masks its frames, answers pings and \
        closes with 1000; wss:// does the same over TLS, checking the server's \
        certificate (--insecure skips the check, for a self-signed test \
        server). udp:// counts each datagram the kernel took; ICMP port \
        unreachable answers (nothing listening yet) are counted as refused, \
        the report says how many, and sending goes on. On a path a codec names (see 'pktbench codecs'), a \
        message field the path's last segment stands for is filled from it.

        """ + HelpExamples.text("send"))
  }

  @Argument(help: "udp://HOST:PORT, ws://HOST:PORT/PATH or wss://HOST:PORT/PATH.")
  var target: String

  @Argument(
    parsing: .allUnrecognized,
    help:
      "MESSAGE [--field value ...] [--rate R] [--count N] [--duration D] [then MESSAGE | wait T | expect MESSAGE ...]"
  )
  var steps: [String] = []

  @Flag(help: "Send out-of-range values anyway, for testing devices.")
  var force = false

  @Flag(name: .customLong("bad-check"), help: "Write a wrong check byte (codecs that have one).")
  var badCheck = false

  @Option(help: "After the last message, keep listening for replies this long (udp).")
  var linger = DurationArgument(seconds: 0)

  @Option(name: .customLong("connect-timeout"), help: "ws: give up connecting after this long.")
  var connectTimeout = DurationArgument(seconds: 5)

  @Option(name: .customLong("max-message"), help: "ws: largest message accepted from the server, in bytes.")
  var maxMessage = 16 << 20

  @Flag(
    help:
      "wss: accept the server's certificate unchecked (a self-signed test server); the traffic is still encrypted, but anyone in the path could pose as the server."
  )
  var insecure = false

  @OptionGroup var output: LiveOutputOptions

  @OptionGroup var spec: SpecOption

  func validate() throws {
    if connectTimeout.seconds <= 0 { throw ValidationError("--connect-timeout must be more than 0") }
    if maxMessage < 1024 || maxMessage > Int(UInt32.max) {
      throw ValidationError("--max-message must be 1024…\(UInt32.max) bytes")
    }
  }

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let target = try TargetURL.parse(self.target)
    if insecure, target.scheme != .wss {
      throw CommandFailure("--insecure applies to wss:// only (it skips the server's certificate check)")
    }
    let tls = try target.scheme == .wss ? Self.clientTLS(insecure: insecure) : nil
    let plan = try SendPlan.parse(
      steps, codecs: codecs, force: force, badCheck: badCheck,
      pathField: target.scheme.isWebSocket ? WebSocketPathField(codecs).of(target.path) : nil
    )
    let configuration = SendConfiguration(
      codecs: codecs, target: target, steps: plan, output: output.settings,
      lingerNanoseconds: target.scheme == .udp ? linger.nanoseconds : 0)

    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let done = loop.makePromise(of: Int32.self)
    let session = try loop.submit {
      NIOLoopBound(SendSession(configuration: configuration, loop: loop, done: done), eventLoop: loop)
    }.wait()
    // From here on Ctrl-C stops cleanly, even while connecting.
    let signals = StopSignals { name in
      loop.execute { session.value.stop(name) }
    }
    do {
      switch target.scheme {
      case .udp:
        try UDPSender.connect(group: group, target: target, session: session)
      case .ws, .wss:
        try loop.submit { session.value.expectTransport(within: connectTimeout.seconds + 5) }.wait()
        try WebSocketClient.connect(
          group: group, target: target, session: session,
          connectTimeout: .nanoseconds(Int64(connectTimeout.nanoseconds)), maxMessageBytes: maxMessage,
          tls: tls)
      }
    } catch {
      done.fail(error)
      throw error
    }
    let status = try done.futureResult.wait()
    withExtendedLifetime(signals) {}
    if status != 0 { throw ExitCode(status) }
  }

  /// The client's TLS: the system's trust roots and the host name checked, or nothing checked with --insecure.
  static func clientTLS(insecure: Bool) throws(CommandFailure) -> NIOSSLContext {
    var configuration = TLSConfiguration.makeClientConfiguration()
    if insecure { configuration.certificateVerification = .none }
    do {
      return try NIOSSLContext(configuration: configuration)
    } catch {
      throw CommandFailure("cannot set up TLS: \(TLSFailure.describe(error))", status: ExitStatus.failed)
    }
  }
}
