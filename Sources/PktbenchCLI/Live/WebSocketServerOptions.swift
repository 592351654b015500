import ArgumentParser
import NIOSSL

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
    help: "ws: cut a connection whose HTTP request head has not arrived whole after this long.")
  var headTimeout = DurationArgument(seconds: WebSocketServerSettings.defaultHeadTimeoutSeconds)

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
  }

  /// The settings, with the TLS context made from --cert and --key (one
  /// sentence when a file cannot be read or the two do not match).
  func settings(for address: ListenAddress) throws(CommandFailure) -> WebSocketServerSettings {
    var settings = WebSocketServerSettings(
      maxBufferedBytes: maxBuffered.bytes, headTimeoutNanoseconds: headTimeout.nanoseconds)
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

/// The server guards as a plain value for the event loop.
struct WebSocketServerSettings: Sendable {
  static let defaultMaxBuffered = 64 << 20
  static let defaultHeadTimeoutSeconds = 10.0

  var maxBufferedBytes = defaultMaxBuffered
  var headTimeoutNanoseconds = UInt64(defaultHeadTimeoutSeconds * 1e9)
  /// wss: the server's TLS context; nil serves plain ws.
  var tls: NIOSSLContext?
}
