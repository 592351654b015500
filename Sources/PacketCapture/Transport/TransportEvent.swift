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
  /// The capture's snap length cut this record's segment: it kept `kept`
  /// of `original` payload bytes, and the `missingBytes` after the kept
  /// ones (the rest, or fewer where a later copy held some) are missing;
  /// delivery resumes after them.
  case streamCut(
    TCPConnectionID, StreamDirection, frame: Int, time: Double, kept: Int, original: Int, missingBytes: Int)
  /// The direction's sequence numbers jumped by more than TCP's window can
  /// explain (to `sequence`, from the expected `expected`), and later
  /// segments confirmed it: how many bytes were lost is unknown, and
  /// delivery resumes at the new numbers.
  case streamDesync(
    TCPConnectionID, StreamDirection, frame: Int, time: Double, sequence: UInt32, expected: UInt32)
  /// `reason`: "fin", "rst", "idle", "evicted", "port reuse" or "end of
  /// capture". An evicted connection that carried data is remembered: if
  /// it speaks again it reopens with the same ID, in step with its stream.
  case streamClosed(TCPConnectionID, frame: Int, time: Double, reason: String)
  /// Something pktbench does not decode (a link type, a non-IP EtherType,
  /// another IP protocol, fragments that never completed): counted, not an error.
  case undecoded(frame: Int, time: Double, reason: String)
  /// Bytes that contradict their own headers; `offset` is in the frame.
  case damaged(frame: Int, time: Double, layer: String, offset: Int, text: String)
  /// Something the capture layer did to what it hands up that the output
  /// must say: data dropped to stay in bounds, bytes that disagreed.
  case notice(CaptureNotice)

  /// The record the event is about.
  public var frame: Int {
    switch self {
    case .datagram(let frame, _, _, _, _, _): frame
    case .streamOpened(_, let frame, _): frame
    case .streamData(_, _, let frame, _, _): frame
    case .streamGap(_, _, let frame, _, _): frame
    case .streamCut(_, _, let frame, _, _, _, _): frame
    case .streamDesync(_, _, let frame, _, _, _): frame
    case .streamClosed(_, let frame, _, _): frame
    case .undecoded(let frame, _, _): frame
    case .damaged(let frame, _, _, _, _): frame
    case .notice(let notice): notice.frame
    }
  }

  public var time: Double {
    switch self {
    case .datagram(_, let time, _, _, _, _): time
    case .streamOpened(_, _, let time): time
    case .streamData(_, _, _, let time, _): time
    case .streamGap(_, _, _, let time, _): time
    case .streamCut(_, _, _, let time, _, _, _): time
    case .streamDesync(_, _, _, let time, _, _): time
    case .streamClosed(_, _, let time, _): time
    case .undecoded(_, let time, _): time
    case .damaged(_, let time, _, _, _): time
    case .notice(let notice): notice.time
    }
  }
}

/// What the capture layer says about its own handling of the traffic: what
/// it dropped to stay within its bounds, bytes that disagreed where two
/// copies overlapped, connections it stopped or resumed tracking. Each is
/// about one record, so the outputs can show it where it happened.
public struct CaptureNotice {
  public enum Kind: String, Sendable, CaseIterable {
    /// An incomplete IP datagram was given up on: its fragments are lost.
    case fragmentsDropped = "ip.fragments-dropped"
    /// TCP segments overlapped with different bytes; the first arrival was kept.
    case segmentOverlap = "tcp.overlap"
    /// A connection that carried data was evicted from the full connection table.
    case evicted = "tcp.evicted"
    /// An evicted connection carried data again: tracked from where it left off.
    case resumed = "tcp.resumed"
    /// A segment far outside its direction's sequence window was ignored.
    case outOfWindow = "tcp.out-of-window"
    /// A record holds more bytes than the file's snapshot length.
    case beyondSnapLength = "capture.beyond-snaplen"
  }

  /// The ends it is about.
  public enum Ends: Sendable {
    case none
    case ip(source: IPAddress, destination: IPAddress)
    case tcp(TCPConnectionID, StreamDirection)
  }

  public var kind: Kind
  public var severity: Diagnostic.Severity
  public var frame: Int
  public var time: Double
  public var ends: Ends
  /// One sentence for a person, naming frames and byte ranges. Written
  /// when read: a flood of notices counted by `--stats` never needs it.
  public var text: String { makeText() }
  private let makeText: () -> String
  /// A word for the cause, where there are several (fragments: `limit`,
  /// `expired`, `end`, `overlap`, `cut`).
  public var reason: String?
  /// Measured values (byte counts, ranges, other frames), as name and value.
  public var details: [(name: String, value: Int)]

  public init(
    _ kind: Kind, _ severity: Diagnostic.Severity, frame: Int, time: Double, ends: Ends = .none,
    text: @autoclosure @escaping () -> String, reason: String? = nil,
    details: [(name: String, value: Int)] = []
  ) {
    self.kind = kind
    self.severity = severity
    self.frame = frame
    self.time = time
    self.ends = ends
    self.makeText = text
    self.reason = reason
    self.details = details
  }
}

extension CaptureNotice.Kind {
  /// The code of the diagnostic its record carries.
  public var code: String {
    switch self {
    case .fragmentsDropped: "fragments-dropped"
    case .segmentOverlap: "tcp-overlap"
    case .evicted: "tcp-evicted"
    case .resumed: "tcp-resumed"
    case .outOfWindow: "tcp-out-of-window"
    case .beyondSnapLength: "beyond-snaplen"
    }
  }
}

extension Diagnostic {
  /// The words every layer uses for a payload the capture's snap length cut.
  public static func captureCut(kept: Int, original: Int) -> Diagnostic {
    .warning("capture-cut", "payload cut by the capture: kept \(kept) of \(original) bytes")
  }
}
