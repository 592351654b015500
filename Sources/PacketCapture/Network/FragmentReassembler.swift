import PacketKit

/// What identifies the fragments of one datagram.
struct FragmentKey: Hashable {
  var source: IPAddress
  var destination: IPAddress
  var identification: UInt32
  /// IPv4 keys on the protocol too (RFC 791); IPv6 does not (RFC 8200) and stores 0.
  var protocolNumber: UInt8

  var family: String { source.isV6 ? "IPv6" : "IPv4" }

  /// "0x0000002a", as tshark shows `ipv6.fragment.id` (IPv4's in four digits).
  var identificationText: String {
    let digits = String(identification, radix: 16)
    let width = source.isV6 ? 8 : 4
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}

/// A datagram rebuilt from all its fragments.
struct ReassembledDatagram {
  var key: FragmentKey
  /// The fragmentable part, from offset 0 to the end.
  var bytes: [UInt8]
  /// The earliest record that carried a fragment, and its time.
  var frame: Int
  var time: Double
  /// The next header of the offset-0 fragment (IPv6); the protocol (IPv4).
  var nextHeader: UInt8
  var diagnostics: [Diagnostic]
}

/// A datagram given up on, and why.
struct AbandonedDatagram {
  enum Reason: String {
    /// Evicted, oldest first, to stay within the reassembly limits.
    case limit
    /// Incomplete when the timeout (capture time) ran out.
    case expired
    /// Incomplete when the capture ended.
    case end
    /// Fragments overlapped (IPv6: RFC 5722 requires dropping the datagram).
    case overlap
    /// The snap length cut one of its fragments.
    case cut
  }

  var key: FragmentKey
  var reason: Reason
  /// The earliest record that carried a fragment, and its time.
  var frame: Int
  var time: Double
  /// The record that decided it (the overlapping or cut fragment, or the
  /// one that made room); `frame` when nothing did.
  var decidingFrame: Int
  var fragments: Int
  var bytes: Int
  /// Why, in words, after "… of datagram X (A → B) "; written when read.
  var text: () -> String
}

/// Collects IPv4 and IPv6 fragments until a datagram is whole. Memory is
/// bounded by `maxFragmentBytes` (bytes held plus a fixed cost per piece, so
/// floods of tiny fragments count) and by a datagram count; datagrams older
/// than the timeout in capture time are abandoned. Every datagram given up
/// on is handed back, with its reason, for the caller to report.
///
/// Where fragments overlap, IPv4 keeps the bytes that arrived first and says
/// so when the copies differ, naming both frames and the byte range; IPv6
/// drops the datagram (RFC 5722, RFC 8200 §4.5), except for exact
/// duplicates, which are ignored.
struct FragmentReassembler {
  /// Bookkeeping cost charged per stored piece.
  static let pieceOverhead = 64
  /// IPv4 and IPv6 (without jumbograms) datagrams cannot be longer.
  static let maxDatagramLength = 65_535

  enum AddResult {
    case incomplete
    case complete(ReassembledDatagram)
    /// The fragment was not kept; the text says why.
    case rejected(String)
  }

  private struct Piece {
    var start: Int
    var bytes: [UInt8]
    var frame: Int
    var end: Int { start + bytes.count }
  }

  private final class Pending {
    var pieces: [Piece] = []
    var covered = 0
    var total: Int?
    var frame: Int
    var time: Double
    let arrival: Double
    let serial: Int
    var nextHeader: UInt8?
    var diagnostics: [Diagnostic] = []
    var cost = 0
    var fragments = 0

    init(frame: Int, time: Double, serial: Int) {
      self.frame = frame
      self.time = time
      self.arrival = time
      self.serial = serial
    }
  }

  private var pending: [FragmentKey: Pending] = [:]
  /// Datagrams in the order they started, for evicting the oldest without
  /// a scan (a flood evicts one per fragment). Entries of datagrams already
  /// gone are skipped when met, and the array compacted now and then.
  private var order: [(key: FragmentKey, serial: Int)] = []
  private var orderHead = 0
  private var serial = 0
  /// Bytes held, including the per-piece cost.
  private(set) var storedBytes = 0
  var pendingCount: Int { pending.count }

  /// Adds one fragment; `abandoned` receives datagrams given up on: evicted
  /// to make room, or this one's own (IPv6 overlap).
  mutating func add(
    _ key: FragmentKey, offset: Int, data: UnsafeRawBufferPointer, more: Bool, nextHeader: UInt8,
    frame: Int, time: Double, diagnostics: [Diagnostic], limits: CaptureLimits,
    abandoned: inout [AbandonedDatagram]
  ) -> AddResult {
    let family = key.family
    let end = offset + data.count
    guard end <= Self.maxDatagramLength else {
      return .rejected(
        "\(family) fragment at offset \(offset) with \(data.count) bytes ends past \(Self.maxDatagramLength)")
    }
    let entry: Pending
    if let existing = pending[key] {
      entry = existing
    } else {
      while pending.count >= max(1, limits.maxPendingFragmentedDatagrams) {
        guard evictOldest(except: nil, frame: frame, limits: limits, into: &abandoned) else { break }
      }
      serial += 1
      entry = Pending(frame: frame, time: time, serial: serial)
      pending[key] = entry
      order.append((key, serial))
      pruneOrder()
    }
    if let total = entry.total, end > total {
      return .rejected(
        "\(family) fragment at offset \(offset) ends at \(end), past the datagram end \(total) set by its last fragment"
      )
    }
    if !more {
      if let total = entry.total, total != end {
        return .rejected("\(family) last fragments disagree: the datagram ends at \(total) and at \(end)")
      }
      if let last = entry.pieces.last, last.end > end {
        return .rejected(
          "\(family) last fragment ends at \(end), but an earlier fragment reaches \(last.end)")
      }
    }
    let uncovered = gaps(in: entry.pieces, from: offset, to: end)
    let overlapped = uncovered.reduce(0) { $0 + $1.count } != data.count
    if overlapped {
      let conflict = firstConflict(in: entry.pieces, offset: offset, data: data)
      if key.source.isV6 {
        let exactDuplicate = uncovered.isEmpty && conflict == nil
        if exactDuplicate { return .incomplete }
        let earlier = overlappingFrame(in: entry.pieces, from: offset, to: end)
        let range = conflict?.range ?? overlapRange(in: entry.pieces, from: offset, to: end)
        discard(key, entry)
        abandoned.append(
          abandon(
            key, entry, .overlap, decidingFrame: frame,
            text:
              "dropped: frame \(frame)'s fragment overlaps frame \(earlier)'s at bytes \(range.lowerBound)..<\(range.upperBound)"
              + (conflict == nil ? "" : " with different bytes")
              + ", and RFC 5722 forbids reassembling overlapping IPv6 fragments"))
        return .incomplete
      }
      if let conflict {
        entry.diagnostics.append(
          .warning(
            "fragment-conflict",
            "IPv4 fragments overlap with different bytes at bytes \(conflict.range.lowerBound)..<\(conflict.range.upperBound) "
              + "of the datagram: frame \(conflict.frame)'s bytes (first to arrive) were kept, frame \(frame)'s dropped"
          ))
      } else if !entry.diagnostics.contains(where: { $0.code == "fragment-overlap" }) {
        entry.diagnostics.append(
          .note("fragment-overlap", "IPv4 fragments overlap with the same bytes (duplicates)"))
      }
    }
    if !more { entry.total = end }
    let cost = uncovered.reduce(0) { $0 + $1.count + Self.pieceOverhead }
    guard cost <= limits.maxFragmentBytes else {
      discard(key, entry)
      return .rejected("\(family) fragments exceed the \(limits.maxFragmentBytes)-byte reassembly limit")
    }
    while storedBytes + cost > limits.maxFragmentBytes {
      guard evictOldest(except: key, frame: frame, limits: limits, into: &abandoned) else { break }
    }
    for range in uncovered {
      let piece = Piece(
        start: range.lowerBound,
        bytes: [UInt8](
          UnsafeRawBufferPointer(rebasing: data[(range.lowerBound - offset)..<(range.upperBound - offset)])),
        frame: frame)
      let index = entry.pieces.firstIndex { $0.start > piece.start } ?? entry.pieces.endIndex
      entry.pieces.insert(piece, at: index)
      entry.covered += piece.bytes.count
    }
    entry.fragments += 1
    entry.cost += cost
    storedBytes += cost
    if frame < entry.frame {
      entry.frame = frame
      entry.time = time
    }
    if offset == 0 { entry.nextHeader = nextHeader }
    for diagnostic in diagnostics where !entry.diagnostics.contains(diagnostic) {
      entry.diagnostics.append(diagnostic)
    }
    guard let total = entry.total, entry.covered == total, let first = entry.nextHeader else {
      return .incomplete
    }
    discard(key, entry)
    var bytes = [UInt8]()
    bytes.reserveCapacity(total)
    for piece in entry.pieces { bytes.append(contentsOf: piece.bytes) }
    return .complete(
      ReassembledDatagram(
        key: key, bytes: bytes, frame: entry.frame, time: entry.time, nextHeader: first,
        diagnostics: entry.diagnostics))
  }

  /// Gives up on the datagram of `key`, if pending, because the snap length
  /// cut one of its fragments (in `frame`); without it, it cannot complete.
  mutating func abandonCut(
    _ key: FragmentKey, frame: Int, time: Double, kept: Int, original: Int
  ) -> AbandonedDatagram {
    let words =
      "dropped: the capture cut its fragment in frame \(frame) (kept \(kept) of \(original) bytes), "
      + "so it cannot be reassembled"
    guard let entry = pending[key] else {
      return AbandonedDatagram(
        key: key, reason: .cut, frame: frame, time: time, decidingFrame: frame, fragments: 1, bytes: kept,
        text: { words })
    }
    discard(key, entry)
    var dropped = abandon(key, entry, .cut, decidingFrame: frame, text: words)
    dropped.fragments += 1
    dropped.bytes += kept
    return dropped
  }

  /// Abandons datagrams whose first fragment arrived before `cutoff`.
  mutating func expire(before cutoff: Double, timeout: Double) -> [AbandonedDatagram] {
    let old = pending.filter { $0.value.arrival < cutoff }.sorted { $0.value.serial < $1.value.serial }
    return old.map { key, entry in
      discard(key, entry)
      return abandon(
        key, entry, .expired, decidingFrame: entry.frame,
        text: "expired incomplete (no fragment completed it within \(Self.seconds(timeout)) of capture time)")
    }
  }

  /// Abandons everything still pending, oldest first (end of capture).
  mutating func drain() -> [AbandonedDatagram] {
    let all = pending.sorted { $0.value.serial < $1.value.serial }
    return all.map { key, entry in
      discard(key, entry)
      return abandon(
        key, entry, .end, decidingFrame: entry.frame, text: "incomplete at the end of the capture")
    }
  }

  private func abandon(
    _ key: FragmentKey, _ entry: Pending, _ reason: AbandonedDatagram.Reason, decidingFrame: Int,
    text: @autoclosure @escaping () -> String
  ) -> AbandonedDatagram {
    AbandonedDatagram(
      key: key, reason: reason, frame: entry.frame, time: entry.time, decidingFrame: decidingFrame,
      fragments: entry.fragments, bytes: entry.covered, text: text)
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? "\(Int(value)) s" : "\(value) s"
  }

  /// The parts of `start..<end` not yet covered by `pieces` (sorted, disjoint).
  private func gaps(in pieces: [Piece], from start: Int, to end: Int) -> [Range<Int>] {
    var result: [Range<Int>] = []
    var cursor = start
    for piece in pieces where piece.end > cursor && piece.start < end {
      if piece.start > cursor { result.append(cursor..<piece.start) }
      cursor = max(cursor, piece.end)
      if cursor >= end { break }
    }
    if cursor < end { result.append(cursor..<end) }
    return result
  }

  /// Where the new fragment's bytes first differ from a stored piece's: the
  /// span from the first to the last differing byte within that piece, and
  /// the piece's frame.
  private func firstConflict(
    in pieces: [Piece], offset: Int, data: UnsafeRawBufferPointer
  ) -> (range: Range<Int>, frame: Int)? {
    let end = offset + data.count
    for piece in pieces where piece.end > offset && piece.start < end {
      let from = max(offset, piece.start)
      let to = min(end, piece.end)
      var first: Int?
      var last = from
      for position in from..<to where piece.bytes[position - piece.start] != data[position - offset] {
        if first == nil { first = position }
        last = position
      }
      if let first { return (first..<last + 1, piece.frame) }
    }
    return nil
  }

  /// The frame of the first stored piece that `start..<end` overlaps.
  private func overlappingFrame(in pieces: [Piece], from start: Int, to end: Int) -> Int {
    pieces.first { $0.end > start && $0.start < end }?.frame ?? 0
  }

  /// The span of `start..<end` that stored pieces cover.
  private func overlapRange(in pieces: [Piece], from start: Int, to end: Int) -> Range<Int> {
    let covering = pieces.filter { $0.end > start && $0.start < end }
    let low = max(start, covering.map(\.start).min() ?? start)
    let high = min(end, covering.map(\.end).max() ?? end)
    return low..<max(low, high)
  }

  private mutating func discard(_ key: FragmentKey, _ entry: Pending) {
    pending[key] = nil
    storedBytes -= entry.cost
  }

  /// Evicts the oldest pending datagram (not `keep`), found from the front
  /// of `order`; `frame` is the fragment that needed the room.
  private mutating func evictOldest(
    except keep: FragmentKey?, frame: Int, limits: CaptureLimits, into abandoned: inout [AbandonedDatagram]
  ) -> Bool {
    var skipped: (key: FragmentKey, serial: Int)?
    defer {
      // The datagram kept is still the oldest: it goes back to the front.
      if let skipped {
        orderHead -= 1
        order[orderHead] = skipped
      }
      compactOrder()
    }
    while orderHead < order.count {
      let candidate = order[orderHead]
      orderHead += 1
      guard let entry = pending[candidate.key], entry.serial == candidate.serial else { continue }
      if candidate.key == keep {
        skipped = candidate
        continue
      }
      discard(candidate.key, entry)
      abandoned.append(
        abandon(
          candidate.key, entry, .limit, decidingFrame: frame,
          text:
            "dropped to make room for frame \(frame)'s: the reassembler holds at most "
            + "\(limits.maxPendingFragmentedDatagrams) incomplete datagrams and \(limits.maxFragmentBytes) bytes"
        ))
      return true
    }
    return false
  }

  /// Keeps `order` within a few times the datagrams pending: those that
  /// completed or expired leave entries behind that eviction never reaches.
  private mutating func pruneOrder() {
    guard order.count - orderHead > 2 * max(pending.count, 512) else { return }
    order = order[orderHead...].filter { pending[$0.key]?.serial == $0.serial }
    orderHead = 0
  }

  /// Drops the consumed front of `order` once it is most of the array.
  private mutating func compactOrder() {
    guard orderHead > 1024, orderHead * 2 > order.count else { return }
    order.removeFirst(orderHead)
    orderHead = 0
  }
}
