import ArgumentParser
import NIOCore
import NIOPosix
import PacketDecode
import PacketKit
import PacketLive

/// `pktbench listen udp:PORT` / `listen ws:PORT`: a real socket
/// that decodes each message as it arrives.
struct ListenCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "listen",
      abstract: "Listen on a UDP port or as a WebSocket server and decode each message as it arrives.",
      discussion: """
        ADDRESS is udp:PORT or ws:PORT (every address, IPv4 and IPv6), or with an \
        address: udp:127.0.0.1:9000, udp:[::]:9000, ws:[::1]:8080. The WebSocket \
        server upgrades the paths the codecs name only, and declines \
        permessage-deflate. Output is decode's (same formats), plus the arrival \
        time and the gap since the previous message from the same source. \
        Ctrl-C, --count or --duration stop it cleanly. To answer as a device \
        or server does, use 'pktbench emulate'.
        With --cert and --key a ws: listener serves wss (WebSocket over TLS). \
        The bytes clients hold in frames not yet whole, and the bytes written \
        to them and not taken, count against --max-buffered, all connections \
        together (the largest holder is cut with close 1013); a client that \
        takes nothing is not read either. A request head not whole within \
        --head-timeout gets 408 (a TLS handshake not done is closed); no whole \
        frame within --idle-timeout gets close 1001; clients past \
        --max-connections get 503; unmasked frames, RSV bits, reserved opcodes \
        and bad close frames get close 1002, text that is not UTF-8 close \
        1007. Each cut is one line on stderr, and --stats counts them. \
        SIGINT and SIGTERM end it with exit status 130. A udp: \
        listener's summary gives the datagrams the kernel dropped (a full \
        receive buffer: raise it with --receive-buffer).

        """ + HelpExamples.text("listen"))
  }

  @Argument(help: "udp:PORT, ws:PORT, or with an address: udp:127.0.0.1:9000, udp:[::]:9000.")
  var address: String

  @OptionGroup var routing: RoutingOptions
  /// `--respond` moved to `emulate`; the flag stays to say so.
  @Flag(help: .hidden)
  var respond = false

  @Option(name: .customLong("max-message"), help: "ws: largest message accepted, in bytes.")
  var maxMessage = 16 << 20

  @OptionGroup var limits: LiveLimitOptions
  @OptionGroup var server: WebSocketServerOptions

  @Option(
    name: .customLong("receive-buffer"),
    help:
      "udp: the sockets' receive buffer (SO_RCVBUF; the kernel doubles it and caps it at net.core.rmem_max): 4MB, 512KB or bytes."
  )
  var receiveBuffer: ByteCountArgument?
  @OptionGroup var output: LiveOutputOptions

  @Option(
    name: [.customShort("Y"), .customLong("display-filter")],
    help:
      "Show only the messages this display filter keeps (\(RecordFilter.syntax)); --count and --stats count them."
  )
  var displayFilter: String?

  @OptionGroup var spec: SpecOption

  func validate() throws {
    if maxMessage < 1024 || maxMessage > Int(UInt32.max) {
      throw ValidationError("--max-message must be 1024…\(UInt32.max) bytes")
    }
    if let receiveBuffer, receiveBuffer.bytes < 1 || receiveBuffer.bytes > Int(Int32.max) / 2 {
      throw ValidationError("--receive-buffer must be 1 byte…1GB")
    }
  }

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    if respond {
      throw CommandFailure(
        "listen answers nothing; to answer as a device or server does, use "
          + "'pktbench emulate CODEC --listen \(self.address)' (see 'pktbench emulate --help')")
    }
    let address = try ListenAddress.parse(self.address)
    if receiveBuffer != nil, address.kind != .udp {
      throw CommandFailure(
        "--receive-buffer sets a UDP socket's buffer; a \(address.kind.rawValue): listener has none")
    }
    var settings = output.settings
    settings.displayFilter = try RecordFilter.compile(displayFilter, codecs: codecs)
    let configuration = ListenConfiguration(
      codecs: codecs, address: address, codec: routing.codec, rules: try routing.rules(codecs: codecs),
      output: settings,
      countLimit: limits.count, emulation: nil, server: try server.settings(for: address),
      receiveBufferBytes: receiveBuffer?.bytes)
    let status = try ListenRun(
      configuration: configuration, maxMessage: maxMessage, durationSeconds: limits.duration?.seconds
    ).run(note: address.kind == .ws ? " (paths \(WebSocketPathField(codecs).usage))" : "")
    if status != ExitStatus.ok { throw ExitCode(status) }
  }
}
