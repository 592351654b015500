/// Both directions of one TCP connection.
final class TCPConnection {
  let id: TCPConnectionID
  /// Creation order, so sweeps and evictions run in a reproducible order.
  let serial: Int
  @exclusivity(unchecked) var clientToServer: TCPStreamReassembler
  @exclusivity(unchecked) var serverToClient: TCPStreamReassembler
  @exclusivity(unchecked) var lastFrame: Int
  @exclusivity(unchecked) var lastTime: Double
  /// Closed connections stay as tombstones until idle, so the last ACKs and
  /// retransmissions after a close do not open a new mid-stream connection.
  @exclusivity(unchecked) var isClosed = false

  /// Whether its streams keep delivered bytes to compare retransmissions with.
  @exclusivity(unchecked) var keepsHistory: Bool

  init(
    id: TCPConnectionID, serial: Int, frame: Int, time: Double, maxBufferedBytes: Int, keepsHistory: Bool,
    resuming: TCPConnectionTable.Evicted? = nil
  ) {
    self.id = id
    self.serial = serial
    self.keepsHistory = keepsHistory
    let history = keepsHistory ? TCPStreamReassembler.defaultHistoryBytes : 0
    func stream(_ next: UInt32?) -> TCPStreamReassembler {
      guard let next else {
        return TCPStreamReassembler(maxBufferedBytes: maxBufferedBytes, historyBytes: history)
      }
      return TCPStreamReassembler(resumingAt: next, maxBufferedBytes: maxBufferedBytes, historyBytes: history)
    }
    clientToServer = stream(resuming?.clientNext)
    serverToClient = stream(resuming?.serverNext)
    // Allocated with the connection, before the buffers its payloads grow:
    // allocated among them, it kept `realloc` from growing those in place.
    clientToServer.reserveHistory()
    serverToClient.reserveHistory()
    lastFrame = frame
    lastTime = time
  }

  var bufferedBytes: Int { clientToServer.bufferedBytes + serverToClient.bufferedBytes }
  /// True once either direction carried payload.
  var carriedData: Bool { clientToServer.carriedData || serverToClient.carriedData }
}

/// The connections being reassembled, keyed by their unordered endpoint pair.
/// Bounded in count and in buffered bytes overall. When full, closed
/// connections go first, then those that never carried data (a SYN flood is
/// all of these), then the longest idle. An evicted connection that carried
/// data is remembered (its ends and next sequence numbers, a bounded number
/// of them): when it sends data again it reopens as the same connection, in
/// step with its streams, so what decodes it can carry on.
final class TCPConnectionTable {
  /// Where an evicted connection had got to.
  struct Evicted {
    var id: TCPConnectionID
    var clientNext: UInt32?
    var serverNext: UInt32?
    var lastFrame: Int
    var order: Int
    /// Bytes it had delivered, both ways: what decides who is forgotten.
    var delivered: Int64
  }

  /// Connections whose streams keep delivered bytes for comparison at once:
  /// 2 KiB each, 2 MiB in all. Allocated when a connection opens, so a SYN
  /// flood holds them (until evicted, first of all) too.
  static let maxConnectionsWithHistory = 1024

  private struct Key: Hashable {
    var low: Endpoint
    var high: Endpoint

    init(_ a: Endpoint, _ b: Endpoint) {
      (low, high) = a < b ? (a, b) : (b, a)
    }
  }

  @exclusivity(unchecked) private var connections: [Key: TCPConnection] = [:]
  @exclusivity(unchecked) private var evicted: [Key: Evicted] = [:]
  @exclusivity(unchecked) private var evictions = 0
  @exclusivity(unchecked) private var withHistory = 0
  @exclusivity(unchecked) private var serial = 0
  private let limits: CaptureLimits
  /// Out-of-order bytes held over all connections.
  @exclusivity(unchecked) private(set) var bufferedBytes = 0
  @exclusivity(unchecked) private var lastSweep = -Double.infinity

  init(limits: CaptureLimits) {
    self.limits = limits
  }

  /// Connections open now (tombstones excluded).
  var openCount: Int { connections.values.reduce(0) { $0 + ($1.isClosed ? 0 : 1) } }
  var count: Int { connections.count }

  func segment(
    _ segment: TCPSegment, source: Endpoint, destination: Endpoint, frame: Int, time: Double,
    _ emit: (TransportEvent) -> Void
  ) {
    let key = Key(source, destination)
    var connection = connections[key]
    if let existing = connection {
      if existing.isClosed {
        existing.lastFrame = frame
        existing.lastTime = time
        guard segment.isSYN, !segment.isACK else { return }
        // A fresh SYN on a closed pair of ports is a new connection.
        remove(key)
        connection = nil
      } else if segment.isSYN, !segment.isACK,
        (existing.id.client == source ? existing.clientToServer : existing.serverToClient)
          .initialSequence != segment.sequence
      {
        // A SYN that is not a retransmission of this connection's own SYN
        // starts a new connection on the same ports (the old close was missed).
        close(existing, reason: "port reuse", frame: frame, time: time, emit)
        remove(key)
        connection = nil
      }
    }
    guard let connection = connection ?? open(segment, source, destination, key, frame, time, emit)
    else { return }
    connection.lastFrame = frame
    connection.lastTime = time
    let direction: StreamDirection = connection.id.client == source ? .clientToServer : .serverToClient
    if segment.isRST {
      close(connection, reason: "rst", frame: frame, time: time, emit)
      return
    }
    if segment.isACK {
      // The ACK speaks about the other direction: what its receiver has got.
      feed(
        connection, direction.reversed,
        .acknowledge(segment.acknowledgement, frame: frame, time: time), emit)
    }
    feed(connection, direction, .segment(segment, frame: frame, time: time), emit)
    if connection.clientToServer.isFinished, connection.serverToClient.isFinished {
      close(connection, reason: "fin", frame: frame, time: time, emit)
    }
    enforceTotal(preferring: connection, direction, emit)
  }

  /// Closes connections idle longer than the timeout and forgets old
  /// tombstones; cheap to call per record (it scans at most once a second).
  /// The test is inlined into the caller and the sweep itself is not: a
  /// UDP-only capture has nothing to sweep, and pays only the test.
  @inline(__always)
  func sweep(now: Double, _ emit: (TransportEvent) -> Void) {
    guard !connections.isEmpty, now - lastSweep >= min(1, limits.idleTimeout) else { return }
    closeIdle(now: now, emit)
  }

  @inline(never)
  private func closeIdle(now: Double, _ emit: (TransportEvent) -> Void) {
    lastSweep = now
    let idle = connections.filter { now - $0.value.lastTime > limits.idleTimeout }
    for (key, connection) in idle.sorted(by: { $0.value.serial < $1.value.serial }) {
      if !connection.isClosed {
        close(connection, reason: "idle", frame: connection.lastFrame, time: connection.lastTime, emit)
      }
      remove(key)
    }
  }

  /// End of capture: reports remaining gaps and closes everything.
  func closeAll(_ emit: (TransportEvent) -> Void) {
    for connection in connections.values.sorted(by: { $0.serial < $1.serial }) where !connection.isClosed {
      close(
        connection, reason: "end of capture", frame: connection.lastFrame, time: connection.lastTime, emit)
    }
    connections.removeAll()
    withHistory = 0
    evicted.removeAll()
  }

  private func open(
    _ segment: TCPSegment, _ source: Endpoint, _ destination: Endpoint, _ key: Key, _ frame: Int,
    _ time: Double, _ emit: (TransportEvent) -> Void
  ) -> TCPConnection? {
    // Pure ACKs and resets say nothing about a stream we never saw start.
    let carriesData = segment.originalPayloadLength > 0 && !segment.isRST
    guard segment.isSYN || carriesData else { return nil }
    if connections.count >= max(1, limits.maxConnections) { evict(frame: frame, time: time, emit) }
    // A connection evicted while it carried data, speaking again: the same
    // connection, in step with its streams. A SYN starts a new one instead.
    let resumed = segment.isSYN ? nil : evicted[key]
    if !evicted.isEmpty { evicted[key] = nil }
    // The SYN-ACK comes from the server; otherwise the sender is taken as the client.
    let id =
      resumed?.id
      ?? (segment.isSYN && segment.isACK
        ? TCPConnectionID(client: destination, server: source)
        : TCPConnectionID(client: source, server: destination))
    serial += 1
    let keepsHistory = withHistory < Self.maxConnectionsWithHistory
    if keepsHistory { withHistory += 1 }
    let connection = TCPConnection(
      id: id, serial: serial, frame: frame, time: time,
      maxBufferedBytes: limits.maxBufferedBytesPerDirection, keepsHistory: keepsHistory, resuming: resumed)
    connections[key] = connection
    emit(.streamOpened(id, frame: frame, time: time))
    if let resumed {
      emit(
        .notice(
          CaptureNotice(
            .resumed, .note, frame: frame, time: time, ends: .tcp(id, .clientToServer),
            text:
              "the connection \(id), evicted from the connection table after frame \(resumed.lastFrame), "
              + "sends again: tracked from where it left off",
            details: [("last_frame", resumed.lastFrame)])))
    }
    return connection
  }

  /// Makes room: drops tombstones, then connections that never carried
  /// data, then the longest idle, an eighth of the table at a time so a
  /// flood of new connections does not rescan the table for each one.
  /// `frame` is the record that needed the room.
  private func evict(frame: Int, time: Double, _ emit: (TransportEvent) -> Void) {
    let victims = connections.sorted { a, b in
      if a.value.isClosed != b.value.isClosed { return a.value.isClosed }
      let aData = a.value.carriedData
      if aData != b.value.carriedData { return !aData }
      if a.value.lastTime != b.value.lastTime { return a.value.lastTime < b.value.lastTime }
      return a.value.serial < b.value.serial
    }.prefix(max(1, connections.count / 8))
    for (key, connection) in victims {
      if !connection.isClosed {
        close(connection, reason: "evicted", frame: connection.lastFrame, time: connection.lastTime, emit)
        if connection.carriedData { remember(key, connection, frame: frame, time: time, emit) }
      }
      remove(key)
    }
  }

  /// Keeps where an evicted connection with data had got to, and says so.
  private func remember(
    _ key: Key, _ connection: TCPConnection, frame: Int, time: Double, _ emit: (TransportEvent) -> Void
  ) {
    evictions += 1
    evicted[key] = Evicted(
      id: connection.id, clientNext: connection.clientToServer.nextSequence,
      serverNext: connection.serverToClient.nextSequence, lastFrame: connection.lastFrame, order: evictions,
      delivered: connection.clientToServer.position + connection.serverToClient.position)
    // Bounded: past the table's size, half is forgotten — those that had
    // delivered least first, then the oldest. A flood of connections that
    // each carried a byte must not push out the session that carried a
    // conversation (it would never be picked up again).
    let limit = max(1, limits.maxConnections)
    if evicted.count > limit {
      let kept = evicted.sorted { a, b in
        a.value.delivered != b.value.delivered
          ? a.value.delivered > b.value.delivered : a.value.order > b.value.order
      }.prefix(limit / 2)
      evicted = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }
    emit(
      .notice(
        CaptureNotice(
          .evicted, .warning, frame: frame, time: time, ends: .tcp(connection.id, .clientToServer),
          text:
            "the connection table is full (\(limit) connections): \(connection.id), which carried data "
            + "and was last seen in frame \(connection.lastFrame), is evicted; if it sends again it is "
            + "picked up where it left off",
          details: [("last_frame", connection.lastFrame), ("limit", limit)])))
  }

  private func remove(_ key: Key) {
    guard let connection = connections.removeValue(forKey: key) else { return }
    if connection.keepsHistory { withHistory -= 1 }
  }

  private func close(
    _ connection: TCPConnection, reason: String, frame: Int, time: Double, _ emit: (TransportEvent) -> Void
  ) {
    feed(connection, .clientToServer, .flush, emit)
    feed(connection, .serverToClient, .flush, emit)
    connection.isClosed = true
    emit(.streamClosed(connection.id, frame: frame, time: time, reason: reason))
    // A tombstone compares no more retransmissions: its history goes back
    // to the budget.
    if connection.keepsHistory {
      connection.clientToServer.releaseHistory()
      connection.serverToClient.releaseHistory()
      connection.keepsHistory = false
      withHistory -= 1
    }
  }

  private enum Operation {
    case segment(TCPSegment, frame: Int, time: Double)
    case acknowledge(UInt32, frame: Int, time: Double)
    case skipGap
    case flush
  }

  /// Runs one operation on one direction's reassembler, turning its output
  /// into events and keeping the table's byte count in step. Returns false
  /// for a `skipGap` that found nothing buffered.
  @discardableResult
  private func feed(
    _ connection: TCPConnection, _ direction: StreamDirection, _ operation: Operation,
    _ emit: (TransportEvent) -> Void
  ) -> Bool {
    let id = connection.id
    let before = connection.bufferedBytes
    let output = { (item: TCPStreamReassembler.Output) in
      switch item {
      case .data(let bytes, let frame, let time):
        emit(.streamData(id, direction, frame: frame, time: time, bytes: bytes))
      case .gap(let missing, let frame, let time):
        emit(.streamGap(id, direction, frame: frame, time: time, missingBytes: missing))
      case .cut(let kept, let original, let missing, let frame, let time):
        emit(
          .streamCut(
            id, direction, frame: frame, time: time, kept: kept, original: original, missingBytes: missing))
      case .desync(let sequence, let expected, let frame, let time):
        emit(.streamDesync(id, direction, frame: frame, time: time, sequence: sequence, expected: expected))
      case .conflict(let range, let sequence, let keptFrame, let frame, let time):
        emit(.notice(Self.conflict(id, direction, range, sequence, keptFrame, frame: frame, time: time)))
      case .outOfWindow(let sequence, let expected, let bytes, let frame, let time):
        let distance = Int64(sequence) - Int64(expected)
        emit(
          .notice(
            CaptureNotice(
              .outOfWindow, .warning, frame: frame, time: time, ends: .tcp(id, direction),
              text:
                "a segment of \(bytes) bytes at sequence \(sequence), \(distance) from the expected \(expected) "
                + "(beyond any TCP window), was dropped: no segment after it continued it",
              details: [("bytes", bytes), ("sequence", Int(sequence)), ("expected", Int(expected))])))
      }
    }
    // Changed in place, through the stored property: taken out as a copy,
    // its buffers would be copied on write.
    let progressed =
      switch direction {
      case .clientToServer: Self.apply(operation, to: &connection.clientToServer, output)
      case .serverToClient: Self.apply(operation, to: &connection.serverToClient, output)
      }
    bufferedBytes += connection.bufferedBytes - before
    return progressed
  }

  /// Runs `operation` on one direction; false for a `skipGap` that found nothing.
  private static func apply(
    _ operation: Operation, to stream: inout TCPStreamReassembler,
    _ output: (TCPStreamReassembler.Output) -> Void
  ) -> Bool {
    switch operation {
    case .segment(let segment, let frame, let time):
      stream.segment(
        sequence: segment.sequence, syn: segment.isSYN, fin: segment.isFIN, payload: segment.payload,
        original: segment.originalPayloadLength, frame: frame, time: time, output)
    case .acknowledge(let sequence, let frame, let time):
      stream.acknowledge(sequence, frame: frame, time: time, output)
    case .skipGap:
      return stream.skipGap(output)
    case .flush:
      stream.flush(output)
    }
    return true
  }

  private static func conflict(
    _ id: TCPConnectionID, _ direction: StreamDirection, _ range: Range<Int64>, _ sequence: UInt32,
    _ keptFrame: Int?, frame: Int, time: Double
  ) -> CaptureNotice {
    let count = range.upperBound - range.lowerBound
    let kept = keptFrame.map { "frame \($0)'s bytes" } ?? "the bytes delivered earlier"
    return CaptureNotice(
      .segmentOverlap, .warning, frame: frame, time: time, ends: .tcp(id, direction),
      text:
        "TCP segments overlap with different bytes at stream bytes \(range.lowerBound)..<\(range.upperBound) "
        + "(sequence \(sequence)..<\(sequence &+ UInt32(truncatingIfNeeded: count))): \(kept) "
        + "(the first to arrive) were kept, frame \(frame)'s dropped",
      details: [
        ("kept_frame", keptFrame ?? 0), ("range_start", Int(range.lowerBound)),
        ("range_end", Int(range.upperBound)), ("sequence", Int(sequence)),
      ])
  }

  /// Over the overall bound, gives up on holes: first in the stream that
  /// just grew, then in whichever holds the most.
  private func enforceTotal(
    preferring connection: TCPConnection, _ direction: StreamDirection, _ emit: (TransportEvent) -> Void
  ) {
    var progressed = true
    while bufferedBytes > limits.maxBufferedBytesTotal, progressed {
      progressed = false
      progressed = feed(connection, direction, .skipGap, emit)
      if progressed { continue }
      let fullest = connections.values.max { a, b in
        a.bufferedBytes != b.bufferedBytes ? a.bufferedBytes < b.bufferedBytes : a.serial > b.serial
      }
      guard let fullest, fullest.bufferedBytes > 0 else { break }
      let side: StreamDirection =
        fullest.clientToServer.bufferedBytes >= fullest.serverToClient.bufferedBytes
        ? .clientToServer : .serverToClient
      progressed = feed(fullest, side, .skipGap, emit)
    }
  }
}
