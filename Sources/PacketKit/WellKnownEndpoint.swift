/// Where a protocol's traffic is recognised without probing: the router
/// sends payloads there to the codec that names it.
public enum WellKnownEndpoint: Sendable, Equatable {
  /// A UDP port, at either end of a datagram.
  case udp(UInt16)
  /// A WebSocket whose request path starts with `pathPrefix`. When
  /// `lastSegmentField` is set, the path's last segment is that field of
  /// the codec's messages (`send` fills it from the URL).
  case webSocket(pathPrefix: String, lastSegmentField: String?)
}

/// How a codec writes its messages.
public enum PayloadEncoding: Sendable, Equatable {
  /// JSON text: the fuzzer mutates it as JSON too.
  case json
  case binary
}
