#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One direction of a TCP connection turned back into the byte stream the
/// sender wrote: each byte delivered once, in order.
///
/// Segments ahead of the next expected byte wait in a buffer; where copies
/// overlap, the first arrival wins, and copies whose bytes differ are
/// reported (`conflict`). Retransmitted and already-delivered bytes are
/// dropped, after a comparison with the last bytes delivered. A hole
/// becomes a gap, and delivery resumes after it, as soon as it is certain
/// never to be filled:
/// - the peer's cumulative ACK has passed its start (`acknowledge`) and
///   later bytes have been seen: the peer got the missing bytes, so the
///   sender will not retransmit them, as Wireshark reasons for "ACKed unseen
///   segment". The gap is reported by the record that completes that proof:
///   the ACK when the later bytes were already buffered, else the next data
///   (or FIN) after the ACK. Waiting for that data, rather than trusting an
///   ACK alone, bounds the gap by bytes actually seen, so a bogus ACK number
///   or an ACK captured just before the data it covers cannot discard data;
/// - for one-way captures, which show no ACKs: once the buffered data behind
///   it outgrows `maxBufferedBytes`, or when the stream is flushed at close;
/// - the capture's snap length cut the segment before it (`cut`).
///
/// Sequence numbers are unwrapped against the next expected one into 64-bit
/// stream positions, so wraparound past 2³² needs no special case. A
/// segment further from the expected byte than TCP's largest window (or,
/// after a SYN, before the stream's start) cannot belong to it: it is held
/// aside, and if the next such segment continues it the stream has jumped
/// (`desync`) and delivery resumes there; otherwise it is reported and
/// dropped (`outOfWindow`).
public struct TCPStreamReassembler: Sendable {
  public enum Output {
    /// Bytes in order; `frame` is the record that carried them.
    case data(UnsafeRawBufferPointer, frame: Int, time: Double)
    /// `missingBytes` never arrived. `frame` is the ACK or data record that
    /// proved them lost, or, for a hole given up on because the buffer filled
    /// or the stream closed, the record where delivery resumes.
    case gap(missingBytes: Int, frame: Int, time: Double)
    /// The capture kept `kept` of the `original` payload bytes of the segment
    /// in `frame`: `missingBytes` after them (the rest, or fewer where a
    /// later copy holds some) are missing, and delivery resumes after them.
    case cut(kept: Int, original: Int, missingBytes: Int, frame: Int, time: Double)
    /// Two copies of the stream bytes `range` (stream positions) differ: the
    /// copy that arrived first (in `keptFrame`, when still known) was kept,
    /// the one in `frame` dropped. `sequence` is the range's first sequence number.
    case conflict(range: Range<Int64>, sequence: UInt32, keptFrame: Int?, frame: Int, time: Double)
    /// The sequence numbers jumped from `expected` to `sequence`, and a later
    /// segment confirmed it; delivery resumes at `sequence`, and how much
    /// was lost is unknown. `frame` carried the first segment of the jump.
    case desync(sequence: UInt32, expected: UInt32, frame: Int, time: Double)
    /// A segment of `bytes` bytes at `sequence`, far outside the window
    /// around `expected`, that nothing confirmed: dropped.
    case outOfWindow(sequence: UInt32, expected: UInt32, bytes: Int, frame: Int, time: Double)
  }

  private struct Pending: Sendable {
    var start: Int64
    var bytes: [UInt8]
    var frame: Int
    var time: Double
    /// Set on the piece that ends where the snap length cut its segment:
    /// the segment's kept and original payload lengths.
    var cut: (kept: Int, original: Int)?
    var end: Int64 { start + Int64(bytes.count) }
    /// Where the cut segment's bytes would have ended.
    var cutEnd: Int64 { cut.map { end + Int64($0.original - $0.kept) } ?? end }
  }

  /// A segment too far from the window, held until the next one says
  /// whether the stream jumped there.
  private struct Stray: Sendable {
    var sequence: UInt32
    var bytes: [UInt8]
    var fin: Bool
    var original: Int
    var frame: Int
    var time: Double
  }

  /// Bookkeeping charged per buffered segment, so floods of tiny segments count.
  public static let segmentOverhead = 64
  /// TCP's largest window (RFC 7323 §2.3: 2³⁰ bytes). No retransmission is
  /// older than that behind the stream, and no sender runs further ahead.
  public static let maxWindow: Int64 = 1 << 30
  /// Bytes of delivered data kept to compare retransmissions against.
  public static let defaultHistoryBytes = 1024

  public var maxBufferedBytes: Int
  /// Out-of-order bytes held now, plus the per-segment overhead (and a
  /// stray segment held aside).
  public private(set) var bufferedBytes = 0
  public private(set) var isStarted = false
  /// The SYN's sequence number, when the SYN was seen.
  public private(set) var initialSequence: UInt32?
  /// Bytes delivered or declared missing so far.
  public private(set) var position: Int64 = 0
  /// True once a segment with payload was seen.
  public private(set) var carriedData = false
  private var expectedSequence: UInt32 = 0
  /// The stream position of the first byte after the SYN; before it, only a
  /// keep-alive's byte may lie. Nil when the stream started mid-connection.
  private var synPosition: Int64?
  /// The highest stream position the peer has acknowledged: bytes before it
  /// reached the peer, whether or not the capture saw them.
  private var acknowledged: Int64 = 0
  private var pending: [Pending] = []
  private var finPosition: Int64?
  private var finFrame = 0
  private var finTime = 0.0
  private var stray: Stray?
  /// The last delivered bytes, a ring indexed by stream position, and the
  /// records they came from (a few, newest last). Empty until data is
  /// delivered, and when `historyBytes` is 0.
  private var historyBytes: Int
  private var history: [UInt8] = []
  /// Delivered bytes from here on are in `history` (as far as it reaches).
  private var historyStart: Int64 = 0
  private var historyFrames: [(start: Int64, frame: Int)] = []

  /// `historyBytes`: how much delivered data to keep for comparing
  /// retransmissions (allocated at the first delivery; 0: none).
  public init(
    maxBufferedBytes: Int = CaptureLimits.default.maxBufferedBytesPerDirection,
    historyBytes: Int = defaultHistoryBytes
  ) {
    self.maxBufferedBytes = maxBufferedBytes
    self.historyBytes = max(0, historyBytes)
  }

  /// A direction picked up again after its connection was evicted: it
  /// continues at `sequence`, the next byte it was expecting.
  public init(
    resumingAt sequence: UInt32, maxBufferedBytes: Int = CaptureLimits.default.maxBufferedBytesPerDirection,
    historyBytes: Int = defaultHistoryBytes
  ) {
    self.init(maxBufferedBytes: maxBufferedBytes, historyBytes: historyBytes)
    isStarted = true
    expectedSequence = sequence
  }

  /// Allocates the history now rather than at the first delivery.
  public mutating func reserveHistory() {
    guard historyBytes > 0, history.isEmpty else { return }
    history = [UInt8](repeating: 0, count: historyBytes)
    historyStart = position
  }

  /// Stops keeping delivered bytes, and frees them.
  public mutating func releaseHistory() {
    historyBytes = 0
    history = []
    historyFrames = []
  }

  /// True once a FIN was seen in this direction.
  public var sawFIN: Bool { finPosition != nil }
  /// True once every byte before the FIN was delivered or declared missing.
  public var isFinished: Bool { finPosition.map { position >= $0 } ?? false }
  public var hasBufferedData: Bool { !pending.isEmpty || stray != nil }
  /// The sequence number of the next byte expected, once started.
  public var nextSequence: UInt32? { isStarted ? expectedSequence : nil }

  /// Feeds one segment. A stream without a SYN starts at the first segment
  /// that carries data (or a FIN). `original`: the payload's length on the
  /// wire when the capture kept only `payload` of it.
  public mutating func segment(
    sequence: UInt32, syn: Bool = false, fin: Bool = false, payload: UnsafeRawBufferPointer,
    original: Int? = nil, frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    var dataSequence = sequence
    if syn {
      dataSequence = sequence &+ 1
      if !isStarted {
        isStarted = true
        initialSequence = sequence
        expectedSequence = dataSequence
        synPosition = position
      }
    }
    if !isStarted {
      guard !payload.isEmpty || fin else { return }
      isStarted = true
      expectedSequence = dataSequence
    }
    let wireLength = max(original ?? payload.count, payload.count)
    if !payload.isEmpty { carriedData = true }
    let start = streamPosition(of: dataSequence)
    if wireLength > 0 || fin {
      if isOutOfWindow(start) {
        holdStray(
          sequence: dataSequence, fin: fin, payload: payload, original: wireLength, frame: frame, time: time,
          output)
        return
      }
      if let held = stray {
        // The stream went on where it was: the stray was not a jump.
        stray = nil
        bufferedBytes -= held.bytes.count + Self.segmentOverhead
        output(
          .outOfWindow(
            sequence: held.sequence, expected: expectedSequence, bytes: held.original, frame: held.frame,
            time: held.time))
      }
    }
    accept(
      start: start, fin: fin, payload: payload, original: wireLength, frame: frame, time: time, output)
  }

  /// The peer acknowledged every byte before `sequence` (the ACK number of a
  /// segment going the other way). A hole before that point will never be
  /// filled: it becomes a gap once later bytes of this direction are seen
  /// (at once if they are already buffered). ACKs of bytes already delivered,
  /// ACKs before this direction started, and ACKs of bytes further ahead
  /// than a window (the ACKs of a stream that jumped) change nothing.
  public mutating func acknowledge(
    _ sequence: UInt32, frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    guard isStarted else { return }
    let acked = streamPosition(of: sequence)
    guard acked > acknowledged, acked - position <= Self.maxWindow else { return }
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
      skip(missing)
    }
    drain(output)
    return true
  }

  /// At close: reports every remaining hole (including one just before a
  /// FIN) and delivers everything buffered; a stray segment nothing
  /// confirmed is reported and dropped.
  public mutating func flush(_ output: (Output) -> Void) {
    while skipGap(output) {}
    if let finPosition, finPosition > position {
      output(.gap(missingBytes: Int(finPosition - position), frame: finFrame, time: finTime))
      skip(finPosition - position)
    }
    if let held = stray {
      stray = nil
      bufferedBytes -= held.bytes.count + Self.segmentOverhead
      output(
        .outOfWindow(
          sequence: held.sequence, expected: expectedSequence, bytes: held.original, frame: held.frame,
          time: held.time))
    }
  }

  // MARK: In the window

  private mutating func accept(
    start: Int64, fin: Bool, payload: UnsafeRawBufferPointer, original: Int, frame: Int, time: Double,
    _ output: (Output) -> Void
  ) {
    // Whatever this segment brings, a hole the peer already acknowledged
    // may now be closed off by it.
    defer { releaseAcknowledged(frame: frame, time: time, output) }
    let keptEnd = start + Int64(payload.count)
    let wireEnd = start + Int64(original)
    if fin, finPosition == nil, wireEnd >= position {
      finPosition = wireEnd
      finFrame = frame
      finTime = time
      discardBuffered(from: wireEnd)
    }
    let limit = finPosition ?? Int64.max  // nothing follows a FIN
    let end = min(keptEnd, limit)
    // A keep-alive (one byte just before the next, RFC 9293 §3.8.4) may
    // carry any byte: it is not a copy of the one it overlaps.
    let keepAlive = payload.count == 1 && start == position - 1
    if start < position, end > start, !history.isEmpty, !keepAlive {
      compareWithHistory(start: start, payload: payload, frame: frame, time: time, output)
    }
    let cut = original > payload.count ? (kept: payload.count, original: original) : nil
    if end > position, start <= position {
      deliverInOrder(from: start, to: end, payload, frame: frame, time: time, output)
      if let cut, keptEnd <= limit, position == keptEnd {
        reportCut(cut, upTo: min(wireEnd, limit), frame: frame, time: time, output)
      }
      drain(output)
    } else if end > position, end > start {
      buffer(
        start: start, payload: UnsafeRawBufferPointer(rebasing: payload[0..<Int(end - start)]),
        cut: keptEnd <= limit ? cut : nil, frame: frame, time: time, output)
      while bufferedBytes > maxBufferedBytes, skipGap(output) {}
    } else if let cut, keptEnd == position, wireEnd > position, keptEnd < limit {
      // The kept part was delivered before; the cut after it is news.
      reportCut(cut, upTo: min(wireEnd, limit), frame: frame, time: time, output)
      drain(output)
    }
  }

  /// Delivers `payload` (which starts at `start`, at or before `position`)
  /// up to `end`. Where a buffered copy arrived first, it is delivered
  /// instead, and a copy that differs is reported.
  private mutating func deliverInOrder(
    from start: Int64, to end: Int64, _ payload: UnsafeRawBufferPointer, frame: Int, time: Double,
    _ output: (Output) -> Void
  ) {
    if pending.isEmpty {
      deliver(
        UnsafeRawBufferPointer(rebasing: payload[Int(position - start)..<Int(end - start)]), frame: frame,
        time: time, output)
      return
    }
    while position < end {
      let next = pending.first.map { max($0.start, position) } ?? end
      if next > position {
        let to = min(end, next)
        deliver(
          UnsafeRawBufferPointer(rebasing: payload[Int(position - start)..<Int(to - start)]), frame: frame,
          time: time, output)
        continue
      }
      guard let first = pending.first else { break }
      let overlapEnd = min(end, first.end)
      if overlapEnd > position {
        first.bytes.withUnsafeBytes { kept in
          compare(
            kept: UnsafeRawBufferPointer(
              rebasing: kept[Int(position - first.start)..<Int(overlapEnd - first.start)]),
            keptFrame: first.frame,
            arriving: UnsafeRawBufferPointer(
              rebasing: payload[Int(position - start)..<Int(overlapEnd - start)]),
            at: position, frame: frame, time: time, output)
        }
      }
      drain(output)
    }
  }

  /// Reports the bytes the snap length cut after a segment's kept part, up
  /// to the next byte seen (a later copy may hold them) or `end`.
  private mutating func reportCut(
    _ cut: (kept: Int, original: Int), upTo end: Int64, frame: Int, time: Double,
    _ output: (Output) -> Void
  ) {
    let stop = pending.first.map { min(end, max($0.start, position)) } ?? end
    guard stop > position else { return }
    output(
      .cut(
        kept: cut.kept, original: cut.original, missingBytes: Int(stop - position), frame: frame, time: time))
    skip(stop - position)
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
        skip(end - position)
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

  /// Moves past bytes that never arrived: the history holds none of them.
  private mutating func skip(_ count: Int64) {
    advance(by: count)
    historyStart = position
  }

  private mutating func deliver(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    guard !bytes.isEmpty else { return }
    if historyBytes > 0 { remember(bytes, frame: frame) }
    advance(by: Int64(bytes.count))
    output(.data(bytes, frame: frame, time: time))
  }

  /// Delivers buffered segments that now continue the stream, and reports
  /// the cut after a piece whose segment the snap length shortened.
  private mutating func drain(_ output: (Output) -> Void) {
    var used = 0
    while used < pending.count, pending[used].start <= position {
      let first = pending[used]
      used += 1
      bufferedBytes -= first.bytes.count + Self.segmentOverhead
      if first.end > position {
        let skip = Int(position - first.start)
        first.bytes.withUnsafeBytes { bytes in
          deliver(
            UnsafeRawBufferPointer(rebasing: bytes[skip...]), frame: first.frame, time: first.time, output)
        }
      }
      if let cut = first.cut, position == first.end, first.cutEnd > position {
        let next = used < pending.count ? max(pending[used].start, position) : first.cutEnd
        let stop = min(first.cutEnd, next, finPosition ?? Int64.max)
        if stop > position {
          output(
            .cut(
              kept: cut.kept, original: cut.original, missingBytes: Int(stop - position), frame: first.frame,
              time: first.time))
          skip(stop - position)
        }
      }
    }
    // One shift for the whole run rather than one per segment.
    pending.removeFirst(used)
  }

  /// Drops buffered bytes at or after `limit` (a FIN's position): a sender
  /// sends nothing after its FIN, so they are not part of the stream.
  private mutating func discardBuffered(from limit: Int64) {
    while let last = pending.last, last.end > limit || (last.cut != nil && last.cutEnd > limit) {
      pending.removeLast()
      bufferedBytes -= last.bytes.count + Self.segmentOverhead
      if last.start < limit {
        var kept = last
        if last.end > limit { kept.bytes.removeLast(Int(last.end - limit)) }
        kept.cut = nil
        pending.append(kept)
        bufferedBytes += kept.bytes.count + Self.segmentOverhead
        return
      }
    }
  }

  /// Keeps the parts of a future segment no buffered segment covers yet,
  /// and reports where a buffered copy it overlaps holds other bytes.
  private mutating func buffer(
    start: Int64, payload: UnsafeRawBufferPointer, cut: (kept: Int, original: Int)?, frame: Int,
    time: Double, _ output: (Output) -> Void
  ) {
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
        var piece = Pending(
          start: cursor, bytes: [UInt8](UnsafeRawBufferPointer(rebasing: payload[from..<to])), frame: frame,
          time: time)
        if nextStart == end, to == payload.count { piece.cut = cut }
        pending.insert(piece, at: index)
        bufferedBytes += piece.bytes.count + Self.segmentOverhead
        index += 1
      }
      guard index < pending.count, pending[index].start < end else { break }
      let existing = pending[index]
      let overlapStart = max(cursor, existing.start)
      let overlapEnd = min(end, existing.end)
      if overlapEnd > overlapStart {
        existing.bytes.withUnsafeBytes { kept in
          compare(
            kept: UnsafeRawBufferPointer(
              rebasing: kept[Int(overlapStart - existing.start)..<Int(overlapEnd - existing.start)]),
            keptFrame: existing.frame,
            arriving: UnsafeRawBufferPointer(
              rebasing: payload[Int(overlapStart - start)..<Int(overlapEnd - start)]),
            at: overlapStart, frame: frame, time: time, output)
        }
      }
      cursor = max(cursor, existing.end)
      index += 1
    }
  }

  // MARK: Comparing copies

  /// Reports the span from the first to the last differing byte of two
  /// copies of the stream bytes starting at `position`.
  private func compare(
    kept: UnsafeRawBufferPointer, keptFrame: Int?, arriving: UnsafeRawBufferPointer, at position: Int64,
    frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    let count = min(kept.count, arriving.count)
    guard count > 0, let a = kept.baseAddress, let b = arriving.baseAddress, memcmp(a, b, count) != 0 else {
      return
    }
    var first = 0
    while kept[first] == arriving[first] { first += 1 }
    var last = count - 1
    while kept[last] == arriving[last] { last -= 1 }
    let range = position + Int64(first)..<position + Int64(last + 1)
    output(
      .conflict(
        range: range, sequence: sequenceNumber(at: range.lowerBound), keptFrame: keptFrame, frame: frame,
        time: time))
  }

  /// Compares the part of a segment that was already delivered with the
  /// delivered bytes still in `history`.
  private func compareWithHistory(
    start: Int64, payload: UnsafeRawBufferPointer, frame: Int, time: Double, _ output: (Output) -> Void
  ) {
    let from = max(start, historyStart, position - Int64(history.count))
    let to = min(position, start + Int64(payload.count))
    guard to > from else { return }
    // The ring's bytes for `from..<to`, in runs that neither wrap nor
    // cross from one delivering record to the next.
    var cursor = from
    while cursor < to {
      let index = Int(cursor % Int64(history.count))
      let mark = historyFrames.lastIndex { $0.start <= cursor }
      let nextMark = historyFrames[(mark.map { $0 + 1 } ?? 0)...].first?.start ?? to
      let run = min(Int(to - cursor), history.count - index, Int(max(nextMark, cursor + 1) - cursor))
      let keptFrame = mark.map { historyFrames[$0].frame }
      history.withUnsafeBytes { ring in
        compare(
          kept: UnsafeRawBufferPointer(rebasing: ring[index..<index + run]), keptFrame: keptFrame,
          arriving: UnsafeRawBufferPointer(
            rebasing: payload[Int(cursor - start)..<Int(cursor - start) + run]),
          at: cursor, frame: frame, time: time, output)
      }
      cursor += Int64(run)
    }
  }

  /// Copies the end of delivered bytes into the ring.
  private mutating func remember(_ bytes: UnsafeRawBufferPointer, frame: Int) {
    if history.isEmpty {
      history = [UInt8](repeating: 0, count: historyBytes)
      historyStart = position
    }
    if historyFrames.last?.frame != frame {
      if historyFrames.count == 8 { historyFrames.removeFirst() }
      historyFrames.append((position, frame))
    }
    let size = Int64(history.count)
    let keep = min(bytes.count, history.count)
    var cursor = position + Int64(bytes.count - keep)
    var from = bytes.count - keep
    guard let source = bytes.baseAddress else { return }
    history.withUnsafeMutableBytes { ring in
      guard let target = ring.baseAddress else { return }
      while from < bytes.count {
        let index = Int(cursor % size)
        let run = min(bytes.count - from, ring.count - index)
        (target + index).copyMemory(from: source + from, byteCount: run)
        from += run
        cursor += Int64(run)
      }
    }
  }

  private func sequenceNumber(at streamPosition: Int64) -> UInt32 {
    expectedSequence &+ UInt32(truncatingIfNeeded: streamPosition - position)
  }

  // MARK: Out of the window

  /// Whether a segment starting at `start` cannot be part of this stream
  /// as it stands: further from the next byte than any window, or, after a
  /// SYN, before the first byte (a keep-alive's one byte before is allowed).
  private func isOutOfWindow(_ start: Int64) -> Bool {
    if abs(start - position) > Self.maxWindow { return true }
    if let synPosition, start < synPosition - 1 { return true }
    return false
  }

  /// Holds a segment outside the window. If one is already held and this
  /// one lies within a window of it, the stream jumped: delivery resumes
  /// at the held one. Otherwise the held one is reported and replaced.
  private mutating func holdStray(
    sequence: UInt32, fin: Bool, payload: UnsafeRawBufferPointer, original: Int, frame: Int, time: Double,
    _ output: (Output) -> Void
  ) {
    if let held = stray {
      let distance = Int64(Int32(bitPattern: sequence &- held.sequence))
      stray = nil
      bufferedBytes -= held.bytes.count + Self.segmentOverhead
      if abs(distance) <= Self.maxWindow {
        resynchronise(at: held, output)
        segment(
          sequence: sequence, fin: fin, payload: payload, original: original, frame: frame, time: time, output
        )
        return
      }
      output(
        .outOfWindow(
          sequence: held.sequence, expected: expectedSequence, bytes: held.original, frame: held.frame,
          time: held.time))
    }
    // Held within the buffer's bound: a stray larger than it keeps its first bytes.
    let kept = min(payload.count, max(0, maxBufferedBytes))
    stray = Stray(
      sequence: sequence, bytes: [UInt8](UnsafeRawBufferPointer(rebasing: payload[0..<kept])), fin: fin,
      original: original, frame: frame, time: time)
    bufferedBytes += kept + Self.segmentOverhead
  }

  /// Gives up on the stream as it was (delivering what it buffered, with its
  /// holes as gaps) and starts again at the held segment.
  private mutating func resynchronise(at held: Stray, _ output: (Output) -> Void) {
    while skipGap(output) {}
    output(.desync(sequence: held.sequence, expected: expectedSequence, frame: held.frame, time: held.time))
    expectedSequence = held.sequence
    acknowledged = position
    finPosition = nil
    synPosition = nil
    historyStart = position
    historyFrames.removeAll()
    held.bytes.withUnsafeBytes { bytes in
      accept(
        start: position, fin: held.fin, payload: bytes, original: held.original, frame: held.frame,
        time: held.time, output)
    }
  }
}
