import ArgumentParser
import NIOSSL
import PacketDecode
import PacketLive

/// The WebSocket server's options (`listen ws:` and `emulate … --listen
/// ws:`): TLS (wss) from a PEM certificate and key, and the guards against
/// clients that hold memory or sockets.
struct WebSocketServerOptions: ParsableArguments {
  @Option(
    name: .customLong("max-buffered"),
    help:
      "ws: most bytes held for all connections together (partial frames and messages); past it the connection holding the most is cut. 64MB, 512KB or bytes."
  )
  var maxBuffered = ByteCountArgument(bytes: WebSocketServerSettings.defaultMaxBuffered)

  @Option(
    name: .customLong("head-timeout"),
    help:
      "ws: cut a connection whose TLS handshake and HTTP request head have not arrived whole after this long."
  )
  var headTimeout = DurationArgument(seconds: WebSocketServerSettings.defaultHeadTimeoutSeconds)

  @Option(
    name: .customLong("idle-timeout"),
    help: "ws: close (1001) an upgraded connection that sends no whole frame for this long.")
  var idleTimeout = DurationArgument(seconds: WebSocketServerSettings.defaultIdleTimeoutSeconds)

  @Option(
    name: .customLong("max-connections"),
    help: ArgumentHelp(
      "ws: most connections open at once; past it a new client is refused (default: the open-file limit less 64, \(WebSocketServerSettings.defaultMaxConnections) here).",
      valueName: "N"))
  var maxConnections: Int?

  @Option(help: "ws: serve wss (WebSocket over TLS) with this certificate chain (PEM); needs --key.")
  var cert: String?

  @Option(help: "ws: the private key (PEM) of --cert.")
  var key: String?

  func validate() throws {
    if (cert == nil) != (key == nil) {
      throw ValidationError("--cert and --key go together: give both for wss")
    }
    if maxBuffered.bytes < 1024 { throw ValidationError("--max-buffered must be at least 1KB") }
    if headTimeout.seconds <= 0 { throw ValidationError("--head-timeout must be more than 0") }
    if idleTimeout.seconds <= 0 { throw ValidationError("--idle-timeout must be more than 0") }
    if let maxConnections, maxConnections < 1 || maxConnections > WebSocketServerSettings.openFileLimit {
      throw ValidationError(
        "--max-connections must be 1…\(WebSocketServerSettings.openFileLimit) (the open-file limit, ulimit -n)"
      )
    }
  }

  /// The settings, with the TLS context made from --cert and --key (one
  /// sentence when a file cannot be read or the two do not match).
  func settings(for address: ListenAddress) throws(CommandFailure) -> WebSocketServerSettings {
    var settings = WebSocketServerSettings(
      maxBufferedBytes: maxBuffered.bytes, headTimeoutNanoseconds: headTimeout.nanoseconds,
      idleTimeoutNanoseconds: idleTimeout.nanoseconds,
      maxConnections: maxConnections ?? WebSocketServerSettings.defaultMaxConnections)
    guard let cert, let key else { return settings }
    guard address.kind == .ws else {
      throw CommandFailure("--cert and --key serve wss; a \(address.kind.rawValue): listener has no TLS")
    }
    let chain: [NIOSSLCertificate]
    do {
      chain = try NIOSSLCertificate.fromPEMFile(cert)
    } catch {
      throw CommandFailure(
        "--cert \(cert): cannot read a PEM certificate from it (\(TLSFailure.describe(error)))")
    }
    guard !chain.isEmpty else { throw CommandFailure("--cert \(cert): the file holds no PEM certificate") }
    let privateKey: NIOSSLPrivateKey
    do {
      privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
    } catch {
      throw CommandFailure(
        "--key \(key): cannot read a PEM private key from it (\(TLSFailure.describe(error)))")
    }
    let configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    do {
      settings.tls = try NIOSSLContext(configuration: configuration)
    } catch {
      throw CommandFailure(
        "--cert \(cert) and --key \(key) do not make a TLS server (\(TLSFailure.describe(error))); "
          + "is the key the certificate's?")
    }
    return settings
  }
}
