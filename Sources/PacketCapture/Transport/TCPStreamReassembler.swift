/// One direction of a TCP connection turned back into the byte stream the
/// sender wrote: each byte delivered once, in order.
///
/// Segments ahead of the next expected byte wait in a buffer (first arrival
/// wins where they overlap); retransmitted and already-delivered bytes are
/// dropped. A hole becomes a gap, and delivery resumes after it, as soon as
/// it is certain never to be filled:
/// - the peer's cumulative ACK has passed its start (`acknowledge`) and
///   later bytes have been seen: the peer got the missing bytes, so the
///   sender will not retransmit them, as Wireshark reasons for "ACKed unseen
///   segment". The gap is reported by the record that completes that proof:
///   the ACK when the later bytes were already buffered, else the next data
///   (or FIN) after the ACK. Waiting for that data, rather than trusting an
///   ACK alone, bounds the gap by bytes actually seen, so a bogus ACK number
///   or an ACK captured just before the data it covers cannot discard data;
/// - for one-way captures, which show no ACKs: once the buffered data behind
///   it outgrows `maxBufferedBytes`, or when the stream is flushed at close.
///
/// Sequence numbers are unwrapped against the next expected one into 64-bit
/// stream positions, so wraparound past 2³² needs no special case. A
/// segment more than 2³¹ bytes away is taken as old, as TCP itself does.
public struct TCPStreamReassembler: Sendable {
  public enum Output {
    /// Bytes in order; `frame` is the record that carried them.
    case data(UnsafeRawBufferPointer, frame: Int, time: Double)
    /// `missingBytes` never arrived. `frame` is the ACK or data record that
    /// proved them lost, or, for a hole given up on because the buffer filled
    /// or the stream closed, the record where delivery resumes.
    case gap(missingBytes: Int, frame: Int, time: Double)
  }

  private struct Pending: Sendable {
    var start: Int64
    var bytes: [UInt8]
    var frame: Int
    var time: Double
    var end: Int64 { start + Int64(bytes.count) }
  }

  /// Bookkeeping charged per buffered segment, so floods of tiny segments count.
  public static let segmentOverhead = 64

  public var maxBufferedBytes: Int
  /// Out-of-order bytes held now, plus the per-segment overhead.
  public private(set) var bufferedBytes = 0
  public private(set) var isStarted = false
  /// The SYN's sequence number, when the SYN was seen.
  public private(set) var initialSequence: UInt32?
  /// Bytes delivered or declared missing so far.
  public private(set) var position: Int64 = 0
  private var expectedSequence: UInt32 = 0
  /// The highest stream position the peer has acknowledged: bytes before it
  /// reached the peer, whether or not the capture saw them.
  private var acknowledged: Int64 = 0
  private var pending: [Pending] = []
  private var finPosition: Int64?
  private var finFrame = 0
  private var finTime = 0.0

  public init(maxBufferedBytes: Int = CaptureLimits.default.maxBufferedBytesPerDirection) {
    self.maxBufferedBytes = maxBufferedBytes
  }

  /// True once a FIN was seen in this direction.
  public var sawFIN: Bool { finPosition != nil }
  /// True once every byte before the FIN was delivered or declared missing.
  public var isFinished: Bool { finPosition.map { position >= $0 } ?? false }
  public var hasBufferedData: Bool { !pending.isEmpty }

  /// Feeds one segment. A stream without a SYN starts at the first segment
  /// that carries data (or a FIN).
  public mutating func segment(
    sequence: UInt32, syn: Bool = false, fin: Bool = false, payload: UnsafeRawBufferPointer,
    frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    var dataSequence = sequence
    if syn {
      dataSequence = sequence &+ 1
      if !isStarted {
        isStarted = true
        initialSequence = sequence
        expectedSequence = dataSequence
      }
    }
    if !isStarted {
      guard !payload.isEmpty || fin else { return }
      isStarted = true
      expectedSequence = dataSequence
    }
    // Whatever this segment brings, a hole the peer already acknowledged
    // may now be closed off by it.
    defer { releaseAcknowledged(frame: frame, time: time, output) }
    let start = streamPosition(of: dataSequence)
    var end = start + Int64(payload.count)
    if fin, finPosition == nil, end >= position {
      finPosition = end
      finFrame = frame
      finTime = time
      discardBuffered(from: end)
    }
    if let finPosition { end = min(end, finPosition) }  // nothing follows a FIN
    // Already delivered, or (past a FIN) nothing left of it.
    guard end > position, end > start else { return }
    if start <= position {
      let skip = Int(position - start)
      let count = Int(end - start)
      deliver(UnsafeRawBufferPointer(rebasing: payload[skip..<count]), frame: frame, time: time, output)
      drain(output)
    } else {
      buffer(
        start: start, payload: UnsafeRawBufferPointer(rebasing: payload[0..<Int(end - start)]), frame: frame,
        time: time)
      while bufferedBytes > maxBufferedBytes, skipGap(output) {}
    }
  }

  /// The peer acknowledged every byte before `sequence` (the ACK number of a
  /// segment going the other way). A hole before that point will never be
  /// filled: it becomes a gap once later bytes of this direction are seen
  /// (at once if they are already buffered). ACKs of bytes already delivered,
  /// and ACKs before this direction started, change nothing.
  public mutating func acknowledge(
    _ sequence: UInt32, frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    guard isStarted else { return }
    let acked = streamPosition(of: sequence)
    guard acked > acknowledged else { return }
    acknowledged = acked
    releaseAcknowledged(frame: frame, time: time, output)
  }

  /// Declares the hole before the first buffered segment a gap and delivers
  /// what follows it. Returns false when nothing is buffered.
  @discardableResult
  public mutating func skipGap(_ output: (Output) -> Void) -> Bool {
    guard let first = pending.first else { return false }
    let missing = first.start - position
    if missing > 0 {
      output(.gap(missingBytes: Int(missing), frame: first.frame, time: first.time))
      advance(by: missing)
    }
    drain(output)
    return true
  }

  /// At close: reports every remaining hole (including one just before a
  /// FIN) and delivers everything buffered.
  public mutating func flush(_ output: (Output) -> Void) {
    while skipGap(output) {}
    if let finPosition, finPosition > position {
      output(.gap(missingBytes: Int(finPosition - position), frame: finFrame, time: finTime))
      advance(by: finPosition - position)
    }
  }

  /// Reports the acknowledged part of each hole that has data (or the FIN)
  /// after it, and delivers what follows; `frame` is the record that proved it.
  private mutating func releaseAcknowledged(frame: Int, time: Double, _ output: (Output) -> Void) {
    while acknowledged > position {
      // The next byte seen after the hole bounds it: the ACK may run past
      // what the capture shows, and only seen bytes can resume delivery.
      guard let next = pending.first?.start ?? finPosition else { return }
      let end = min(acknowledged, next)
      if end > position {
        output(.gap(missingBytes: Int(end - position), frame: frame, time: time))
        advance(by: end - position)
      }
      guard !pending.isEmpty else { return }
      drain(output)
    }
  }

  private func streamPosition(of sequence: UInt32) -> Int64 {
    position + Int64(Int32(bitPattern: sequence &- expectedSequence))
  }

  private mutating func advance(by count: Int64) {
    position += count
    expectedSequence &+= UInt32(truncatingIfNeeded: count)
  }

  private mutating func deliver(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    guard !bytes.isEmpty else { return }
    advance(by: Int64(bytes.count))
    output(.data(bytes, frame: frame, time: time))
  }

  /// Delivers buffered segments that now continue the stream.
  private mutating func drain(_ output: (Output) -> Void) {
    var used = 0
    while used < pending.count, pending[used].start <= position {
      let first = pending[used]
      used += 1
      bufferedBytes -= first.bytes.count + Self.segmentOverhead
      guard first.end > position else { continue }
      let skip = Int(position - first.start)
      first.bytes.withUnsafeBytes { bytes in
        deliver(
          UnsafeRawBufferPointer(rebasing: bytes[skip...]), frame: first.frame, time: first.time, output)
      }
    }
    // One shift for the whole run rather than one per segment.
    pending.removeFirst(used)
  }

  /// Drops buffered bytes at or after `limit` (a FIN's position): a sender
  /// sends nothing after its FIN, so they are not part of the stream.
  private mutating func discardBuffered(from limit: Int64) {
    while let last = pending.last, last.end > limit {
      pending.removeLast()
      bufferedBytes -= last.bytes.count + Self.segmentOverhead
      if last.start < limit {
        var kept = last
        kept.bytes.removeLast(Int(last.end - limit))
        pending.append(kept)
        bufferedBytes += kept.bytes.count + Self.segmentOverhead
        return
      }
    }
  }

  /// Keeps the parts of a future segment no buffered segment covers yet.
  private mutating func buffer(start: Int64, payload: UnsafeRawBufferPointer, frame: Int, time: Double) {
    let end = start + Int64(payload.count)
    // Index of the first buffered segment that ends after `start`.
    var low = 0
    var high = pending.count
    while low < high {
      let middle = (low + high) / 2
      if pending[middle].end <= start { low = middle + 1 } else { high = middle }
    }
    var index = low
    var cursor = start
    while cursor < end {
      let nextStart = index < pending.count ? min(pending[index].start, end) : end
      if nextStart > cursor {
        let from = Int(cursor - start)
        let to = Int(nextStart - start)
        let piece = Pending(
          start: cursor, bytes: [UInt8](UnsafeRawBufferPointer(rebasing: payload[from..<to])), frame: frame,
          time: time)
        pending.insert(piece, at: index)
        bufferedBytes += piece.bytes.count + Self.segmentOverhead
        index += 1
      }
      guard index < pending.count, pending[index].start < end else { break }
      cursor = max(cursor, pending[index].end)
      index += 1
    }
  }
}
