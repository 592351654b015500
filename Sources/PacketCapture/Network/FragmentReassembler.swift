import PacketKit

/// What identifies the fragments of one datagram.
struct FragmentKey: Hashable {
  var source: IPAddress
  var destination: IPAddress
  var identification: UInt32
  /// IPv4 keys on the protocol too (RFC 791); IPv6 does not (RFC 8200) and stores 0.
  var protocolNumber: UInt8

  var family: String { source.isV6 ? "IPv6" : "IPv4" }
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

/// A datagram given up on: timed out, evicted to stay in bounds, or left at the end.
struct AbandonedDatagram {
  var frame: Int
  var time: Double
  var reason: String
}

/// Collects IPv4 and IPv6 fragments until a datagram is whole. Memory is
/// bounded by `maxFragmentBytes` (bytes held plus a fixed cost per piece, so
/// floods of tiny fragments count) and by a datagram count; datagrams older
/// than the timeout in capture time are abandoned.
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

    init(frame: Int, time: Double, serial: Int) {
      self.frame = frame
      self.time = time
      self.arrival = time
      self.serial = serial
    }
  }

  private var pending: [FragmentKey: Pending] = [:]
  private var serial = 0
  /// Bytes held, including the per-piece cost.
  private(set) var storedBytes = 0
  var pendingCount: Int { pending.count }

  /// Adds one fragment; `abandoned` receives datagrams evicted to make room.
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
        guard evictOldest(except: nil, into: &abandoned) else { break }
      }
      serial += 1
      entry = Pending(frame: frame, time: time, serial: serial)
      pending[key] = entry
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
      entry.total = end
    }
    let uncovered = gaps(in: entry.pieces, from: offset, to: end)
    let cost = uncovered.reduce(0) { $0 + $1.count + Self.pieceOverhead }
    guard cost <= limits.maxFragmentBytes else {
      discard(key, entry)
      return .rejected("\(family) fragments exceed the \(limits.maxFragmentBytes)-byte reassembly limit")
    }
    while storedBytes + cost > limits.maxFragmentBytes {
      guard evictOldest(except: key, into: &abandoned) else { break }
    }
    let overlapped = uncovered.reduce(0) { $0 + $1.count } != data.count
    for range in uncovered {
      let piece = Piece(
        start: range.lowerBound,
        bytes: [UInt8](
          UnsafeRawBufferPointer(rebasing: data[(range.lowerBound - offset)..<(range.upperBound - offset)])))
      let index = entry.pieces.firstIndex { $0.start > piece.start } ?? entry.pieces.endIndex
      entry.pieces.insert(piece, at: index)
      entry.covered += piece.bytes.count
    }
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
    if overlapped, !entry.diagnostics.contains(where: { $0.code == "fragment-overlap" }) {
      entry.diagnostics.append(
        .warning("fragment-overlap", "\(family) fragments overlap; the bytes that arrived first were kept"))
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

  /// Abandons datagrams whose first fragment arrived before `cutoff`.
  mutating func expire(before cutoff: Double) -> [AbandonedDatagram] {
    let old = pending.filter { $0.value.arrival < cutoff }.sorted { $0.value.serial < $1.value.serial }
    return old.map { key, entry in
      discard(key, entry)
      return AbandonedDatagram(
        frame: entry.frame, time: entry.time,
        reason: "\(key.family) fragments of datagram \(key.identification) expired incomplete")
    }
  }

  /// Abandons everything still pending, oldest first (end of capture).
  mutating func drain() -> [AbandonedDatagram] {
    expire(before: .infinity)
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

  private mutating func discard(_ key: FragmentKey, _ entry: Pending) {
    pending[key] = nil
    storedBytes -= entry.cost
  }

  private mutating func evictOldest(
    except keep: FragmentKey?, into abandoned: inout [AbandonedDatagram]
  ) -> Bool {
    guard let (key, entry) = pending.filter({ $0.key != keep }).min(by: { $0.value.serial < $1.value.serial })
    else { return false }
    discard(key, entry)
    abandoned.append(
      AbandonedDatagram(
        frame: entry.frame, time: entry.time,
        reason:
          "\(key.family) fragments of datagram \(key.identification) dropped to stay within reassembly limits"
      ))
    return true
  }
}
