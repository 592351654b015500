import ArgumentParser

/// The WebSocket server's guards against clients that hold memory or
/// sockets (`listen ws:` and `emulate … --listen ws:`).
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

  func validate() throws {
    if maxBuffered.bytes < 1024 { throw ValidationError("--max-buffered must be at least 1KB") }
    if headTimeout.seconds <= 0 { throw ValidationError("--head-timeout must be more than 0") }
  }

  var settings: WebSocketServerSettings {
    WebSocketServerSettings(
      maxBufferedBytes: maxBuffered.bytes, headTimeoutNanoseconds: headTimeout.nanoseconds)
  }
}

/// The server guards as a plain value for the event loop.
struct WebSocketServerSettings: Sendable {
  static let defaultMaxBuffered = 64 << 20
  static let defaultHeadTimeoutSeconds = 10.0

  var maxBufferedBytes = defaultMaxBuffered
  var headTimeoutNanoseconds = UInt64(defaultHeadTimeoutSeconds * 1e9)
}
