import PacketKit

/// Which way bytes travel on a WebSocket connection. Masking rules and the
/// permessage-deflate parameters differ by direction (RFC 6455 §5.1, RFC 7692 §7.1).
public enum WebSocketDirection: Sendable, Hashable, CustomStringConvertible {
  case clientToServer, serverToClient

  public var description: String {
    switch self {
    case .clientToServer: "client→server"
    case .serverToClient: "server→client"
    }
  }
}

/// Bounds on what one connection may make the decoder hold. Captured bytes are
/// untrusted: a frame header may claim 2^63 bytes, a 1 KiB deflate stream may
/// inflate to gigabytes, an HTTP head may never end.
public struct WebSocketLimits: Sendable, Hashable {
  /// Largest message payload as carried on the wire (all fragments together,
  /// before inflating).
  public var maxMessageBytes: Int
  /// Largest inflated permessage-deflate message: the zip-bomb guard.
  public var maxDecompressedBytes: Int
  /// Largest HTTP Upgrade request or response head.
  public var maxHandshakeBytes: Int

  public init(
    maxMessageBytes: Int = 16 << 20, maxDecompressedBytes: Int = 16 << 20,
    maxHandshakeBytes: Int = 16 << 10
  ) {
    self.maxMessageBytes = max(0, maxMessageBytes)
    self.maxDecompressedBytes = max(0, maxDecompressedBytes)
    self.maxHandshakeBytes = max(4, maxHandshakeBytes)
  }

  public static let `default` = WebSocketLimits()
}

/// The client's HTTP/1.1 Upgrade request (RFC 6455 §4.1).
public struct WebSocketHandshake: Sendable, Hashable {
  /// The request-target as sent, query included.
  public var path: String
  public var host: String?
  /// The client's Sec-WebSocket-Extensions offer, verbatim.
  public var requestedExtensions: String?
  /// The client's Sec-WebSocket-Protocol list, verbatim.
  public var subprotocol: String?
  public var key: String?
  public var origin: String?
  public var userAgent: String?

  public init(
    path: String, host: String? = nil, requestedExtensions: String? = nil, subprotocol: String? = nil,
    key: String? = nil, origin: String? = nil, userAgent: String? = nil
  ) {
    self.path = path
    self.host = host
    self.requestedExtensions = requestedExtensions
    self.subprotocol = subprotocol
    self.key = key
    self.origin = origin
    self.userAgent = userAgent
  }
}

/// What permessage-deflate the server accepted (RFC 7692 §7.1).
public struct WebSocketDeflateParameters: Sendable, Hashable {
  public var serverNoContextTakeover: Bool
  public var clientNoContextTakeover: Bool
  public var serverMaxWindowBits: Int?
  public var clientMaxWindowBits: Int?

  public init(
    serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
    serverMaxWindowBits: Int? = nil, clientMaxWindowBits: Int? = nil
  ) {
    self.serverNoContextTakeover = serverNoContextTakeover
    self.clientNoContextTakeover = clientNoContextTakeover
    self.serverMaxWindowBits = serverMaxWindowBits
    self.clientMaxWindowBits = clientMaxWindowBits
  }

  /// Whether the sender in `direction` keeps its LZ77 window between messages.
  public func contextTakeover(_ direction: WebSocketDirection) -> Bool {
    switch direction {
    case .clientToServer: !clientNoContextTakeover
    case .serverToClient: !serverNoContextTakeover
    }
  }
}

/// One reassembled data message: all its fragments joined, unmasked and inflated.
public struct WebSocketMessage: Sendable, Hashable {
  public var direction: WebSocketDirection
  public var isText: Bool
  /// The application payload, inflated when the message was compressed.
  public var payload: [UInt8]
  /// Capture record that carried the first byte of the message's first frame header.
  public var firstFrame: Int
  /// Capture record that carried the last byte of its final fragment.
  public var lastFrame: Int
  /// Time of `firstFrame`.
  public var time: Double
  public var wasCompressed: Bool
  /// Data frames that made it (1 for an unfragmented message).
  public var fragments: Int
  /// Frame headers plus payloads of its data frames, as on the wire.
  public var wireBytes: Int
  public var diagnostics: [Diagnostic]
  /// Payload bytes lost in the capture (TCP gaps inside its frames); 0 when
  /// the message is complete. An incomplete message's `payload` holds only
  /// the bytes seen, nothing in place of the lost ones; a compressed one is
  /// left as the compressed bytes seen, since it cannot be inflated.
  public var missingBytes: Int
  /// Where the bytes were lost, in stream order; empty when complete.
  public var holes: [Hole]

  /// Bytes of a message lost in the capture.
  public struct Hole: Sendable, Hashable {
    /// The lost bytes belonged just before `payload[offset]` (offsets into
    /// the payload as held, that is without the lost bytes).
    public var offset: Int
    public var count: Int
    /// The capture record that reported the gap.
    public var frame: Int

    public init(offset: Int, count: Int, frame: Int) {
      self.offset = offset
      self.count = count
      self.frame = frame
    }
  }

  public init(
    direction: WebSocketDirection, isText: Bool, payload: [UInt8], firstFrame: Int, lastFrame: Int,
    time: Double, wasCompressed: Bool, fragments: Int, wireBytes: Int, diagnostics: [Diagnostic] = [],
    holes: [Hole] = []
  ) {
    self.direction = direction
    self.isText = isText
    self.payload = payload
    self.firstFrame = firstFrame
    self.lastFrame = lastFrame
    self.time = time
    self.wasCompressed = wasCompressed
    self.fragments = fragments
    self.wireBytes = wireBytes
    self.diagnostics = diagnostics
    self.holes = holes
    missingBytes = holes.reduce(0) { $0 &+ $1.count }
  }

  public var isComplete: Bool { missingBytes == 0 }
}

/// A control frame (RFC 6455 §5.5).
public enum WebSocketControl: Sendable, Hashable {
  case ping([UInt8])
  case pong([UInt8])
  /// `code` is nil when the close frame had no body.
  case close(code: UInt16?, reason: String)
}

/// What the decoder reports, in stream order per direction.
public enum WebSocketEvent: Sendable, Hashable {
  case handshakeRequest(WebSocketHandshake, frame: Int, time: Double)
  /// Status 101 means upgraded; any other status means the connection stays HTTP.
  case handshakeResponse(status: Int, extensions: String?, frame: Int, time: Double)
  case message(WebSocketMessage)
  case control(WebSocketControl, direction: WebSocketDirection, frame: Int, time: Double)
  /// A protocol violation or lost data. `text` names the stream offset (bytes
  /// fed in that direction before the offending byte) where it was found.
  case error(direction: WebSocketDirection, frame: Int, time: Double, code: String, text: String)
}
