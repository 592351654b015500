import PacketKit

/// One application payload and what carried it: a UDP datagram, a chunk of
/// a TCP stream that is not WebSocket, a WebSocket message, or an ATT value.
/// The bytes are a view valid only while the payload is being delivered.
public struct Payload {
  /// The first capture record that carried any of its bytes.
  public var frame: Int
  public var time: Double
  public var carrier: Carrier
  public var bytes: UnsafeRawBufferPointer
  /// What the layers below said of it (IP and UDP checksums, a snap length
  /// that cut it: code `capture-cut`).
  public var diagnostics: [Diagnostic]
  /// The process that sent or received it, and the other records that
  /// carried it.
  public var context: CarrierContext

  public init(
    frame: Int, time: Double, carrier: Carrier, bytes: UnsafeRawBufferPointer, diagnostics: [Diagnostic] = [],
    context: CarrierContext = CarrierContext()
  ) {
    self.frame = frame
    self.time = time
    self.carrier = carrier
    self.bytes = bytes
    self.diagnostics = diagnostics
    self.context = context
  }
}

/// What the stage knows of a payload or event beyond its carrier.
public struct CarrierContext {
  /// The process a PKTAP record names (which app sent or received it), for
  /// what that record's own bytes complete; nil otherwise.
  public var process: PKTAP.Process?
  /// The records besides the first that carried it (a WebSocket message's
  /// other TCP segments, an ATT value's other ACL fragments); empty unless
  /// the stage tracks them (`PayloadStage.Options.tracksCarrierFrames`).
  public var otherFrames: [Int]

  public init(process: PKTAP.Process? = nil, otherFrames: [Int] = []) {
    self.process = process
    self.otherFrames = otherFrames
  }
}

/// How a payload travelled.
public enum Carrier {
  case udp(source: Endpoint, destination: Endpoint)
  /// Stream bytes of a TCP connection that is not WebSocket, as delivered.
  case tcp(TCPConnectionID, StreamDirection)
  /// A whole WebSocket data message (`bytes` is its payload); `path` is
  /// the request path of the connection's handshake, when it was captured.
  case webSocket(TCPConnectionID, StreamDirection, path: String?, message: WebSocketMessage)
  /// An ATT value (a write, notification, indication or read result).
  case att(ATTValue)

  /// The carrier's two ends as source and destination, for the IP ones.
  public var endpoints: (source: Endpoint, destination: Endpoint)? {
    switch self {
    case .udp(let source, let destination): (source, destination)
    case .tcp(let connection, let direction), .webSocket(let connection, let direction, _, _):
      direction == .clientToServer
        ? (connection.client, connection.server) : (connection.server, connection.client)
    case .att: nil
    }
  }
}
