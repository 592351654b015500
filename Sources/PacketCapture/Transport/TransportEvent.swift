import PacketKit

/// The two ends of a TCP connection. The client is the side that sent the
/// SYN, or, for a connection already open when the capture began, the first
/// side seen sending data.
public struct TCPConnectionID: Hashable, Sendable, CustomStringConvertible {
  public var client: Endpoint
  public var server: Endpoint

  public init(client: Endpoint, server: Endpoint) {
    self.client = client
    self.server = server
  }

  public var description: String { "\(client) → \(server)" }

  public func source(_ direction: StreamDirection) -> Endpoint {
    direction == .clientToServer ? client : server
  }

  public func destination(_ direction: StreamDirection) -> Endpoint {
    direction == .clientToServer ? server : client
  }
}

public enum StreamDirection: Sendable, Hashable {
  case clientToServer
  case serverToClient

  public var reversed: StreamDirection {
    self == .clientToServer ? .serverToClient : .clientToServer
  }
}

/// What the layers below the application hand up for one capture record.
/// Buffers are valid only during the callback that receives the event.
public enum TransportEvent {
  /// A whole UDP datagram (reassembled if it came in IP fragments; then
  /// `frame` is the first record that carried a fragment). Warnings about
  /// the IP and UDP headers travel with it.
  case datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint,
    payload: UnsafeRawBufferPointer, diagnostics: [Diagnostic])
  case streamOpened(TCPConnectionID, frame: Int, time: Double)
  /// Stream bytes in order, each byte once; `frame` carried them.
  case streamData(TCPConnectionID, StreamDirection, frame: Int, time: Double, bytes: UnsafeRawBufferPointer)
  /// Bytes that never arrived; delivery resumes after them.
  case streamGap(TCPConnectionID, StreamDirection, frame: Int, time: Double, missingBytes: Int)
  /// `reason`: "fin", "rst", "idle", "evicted", "port reuse" or "end of capture".
  case streamClosed(TCPConnectionID, frame: Int, time: Double, reason: String)
  /// Something pktbench does not decode (a link type, a non-IP EtherType,
  /// another IP protocol, fragments that never completed): counted, not an error.
  case undecoded(frame: Int, time: Double, reason: String)
  /// Bytes that contradict their own headers; `offset` is in the frame.
  case damaged(frame: Int, time: Double, layer: String, offset: Int, text: String)

  /// The record the event is about.
  public var frame: Int {
    switch self {
    case .datagram(let frame, _, _, _, _, _): frame
    case .streamOpened(_, let frame, _): frame
    case .streamData(_, _, let frame, _, _): frame
    case .streamGap(_, _, let frame, _, _): frame
    case .streamClosed(_, let frame, _, _): frame
    case .undecoded(let frame, _, _): frame
    case .damaged(let frame, _, _, _, _): frame
    }
  }

  public var time: Double {
    switch self {
    case .datagram(_, let time, _, _, _, _): time
    case .streamOpened(_, _, let time): time
    case .streamData(_, _, _, let time, _): time
    case .streamGap(_, _, _, let time, _): time
    case .streamClosed(_, _, let time, _): time
    case .undecoded(_, let time, _): time
    case .damaged(_, let time, _, _, _): time
    }
  }
}
