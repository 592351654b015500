import ArgumentParser
import CodecRegistry
import NIOCore
import NIOPosix
import PacketKit

/// `pktbench listen udp:5005` / `listen ws:8000 [--respond]`: a real socket
/// that decodes each message as it arrives.
struct ListenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "listen",
    abstract: "Listen on a UDP port or as a WebSocket server and decode each message as it arrives.",
    discussion: """
      ADDRESS is udp:PORT or ws:PORT (every address, IPv4 and IPv6), or with an \
      address: udp:127.0.0.1:5005, udp:[::]:9000, ws:[::1]:8000. The WebSocket \
      server upgrades /ws/connect/<deviceId> only, as the Aerie server does, and \
      declines permessage-deflate. Output is decode's (same formats), plus the \
      arrival time and the gap since the previous message from the same source. \
      Ctrl-C, --count or --duration stop it cleanly.
      Examples:
        pktbench listen udp:5005
        pktbench listen udp:[::]:9000 --codec legctrl --format ndjson
        pktbench listen ws:8000 --respond --secret S
        pktbench listen udp:5005 --count 100 --stats -q
      """)

  @Argument(help: "udp:PORT, ws:PORT, or with an address: udp:127.0.0.1:5005, udp:[::]:9000.")
  var address: String

  @OptionGroup var routing: RoutingOptions
  @Flag(help: "ws only: answer like the Aerie server (authResponse, heartbeat pong, auth timeout).")
  var respond = false

  @Option(help: "ws --respond: the shared secret (tokens are checked for shape only, as the server does).")
  var secret: String?

  @Option(
    name: .customLong("auth-timeout"),
    help: "ws --respond: close an unauthenticated socket with 1008 after this long.")
  var authTimeout = DurationArgument(seconds: 10)

  @Option(name: .customLong("session-ttl"), help: "ws --respond: close a session with 1008 after this long.")
  var sessionTTL = DurationArgument(seconds: 3600)

  @Option(name: .customLong("max-message"), help: "ws: largest message accepted, in bytes.")
  var maxMessage = 16 << 20

  @OptionGroup var limits: LiveLimitOptions
  @OptionGroup var output: LiveOutputOptions

  func validate() throws {
    if authTimeout.seconds <= 0 { throw ValidationError("--auth-timeout must be more than 0") }
    if sessionTTL.seconds <= 0 { throw ValidationError("--session-ttl must be more than 0") }
    if maxMessage < 1024 || maxMessage > Int(UInt32.max) {
      throw ValidationError("--max-message must be 1024…\(UInt32.max) bytes")
    }
  }

  func run() throws {
    let address = try ListenAddress.parse(self.address)
    if address.kind != .ws, respond || secret != nil {
      throw CommandFailure("--respond and --secret are for ws listeners (e.g. ws:8000)")
    }
    if secret != nil && !respond { throw CommandFailure("--secret needs --respond") }
    let rules = try routing.rules()
    var configuration = ListenConfiguration(
      address: address, codec: routing.codec, rules: rules, output: output.settings, countLimit: limits.count,
      responder: nil)
    if respond {
      configuration.responder = FalconEyeResponder.Configuration(
        secret: secret, authTimeoutSeconds: authTimeout.seconds, sessionSeconds: sessionTTL.seconds)
    }

    let settings = configuration
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    let done = loop.makePromise(of: Int32.self)
    let session = try loop.submit {
      NIOLoopBound(ListenSession(configuration: settings, loop: loop, done: done), eventLoop: loop)
    }.wait()
    let signals = StopSignals { name in
      loop.execute { session.value.stop(name) }
    }

    let channels: [Channel]
    do {
      switch address.kind {
      case .udp: channels = try UDPListener.bind(group: group, address: address, session: session)
      case .ws:
        channels = try WebSocketListener.bind(
          group: group, address: address, session: session, maxMessageBytes: maxMessage)
      }
    } catch {
      // Nothing will stop the session now: complete its promise before it goes away.
      done.fail(error)
      throw error
    }
    let bound = channels.compactMap { EndpointText.of($0.localAddress) }.joined(separator: ", ")
    loop.execute {
      for channel in channels { session.value.add(channel) }
    }
    var note = respond ? ", answering as the Aerie server" : ""
    if address.kind == .ws { note = " (path /ws/connect/<deviceId>)" + note }
    OutputWriter.standardError.line("pktbench: listening on \(address.kind.rawValue) \(bound)\(note)")

    if let duration = limits.duration {
      loop.scheduleTask(in: .nanoseconds(Int64(duration.nanoseconds))) {
        session.value.stop("--duration \(DurationText.of(duration.seconds))")
      }
    }
    let status = try done.futureResult.wait()
    withExtendedLifetime(signals) {}
    if status != 0 { throw ExitCode(status) }
  }
}

/// "5s", "500ms", "1.5s" for messages.
enum DurationText {
  static func of(_ seconds: Double) -> String {
    if seconds < 1 { return "\(JSONWriter.formatNumber(seconds * 1000))ms" }
    return "\(JSONWriter.formatNumber(seconds))s"
  }
}
