import PacketCapture
import PacketKit

/// TCP reassembly of one direction: the input is a script of segments
/// (shuffled, duplicated, overlapping, with different bytes, cut by a snap
/// length, across the 2³² wrap and across jumps of more than 2³¹), ACKs and
/// FINs, fed to `TCPStreamReassembler`.
///
/// Every byte a segment carries is a function of its sequence number
/// (`TCPFuzzTarget.byte`), or that function's complement where the script
/// says to send different bytes, so the checker knows what may arrive where
/// without keeping the segments. Invariants:
/// - no trap, no hang (the runner's clock);
/// - bounded memory: buffered bytes never pass the per-direction limit,
///   plus one segment held aside as a possible jump;
/// - every delivered byte was carried by some segment at its sequence
///   number; delivery runs on from where it was, moved only by data, gaps,
///   cuts and a confirmed jump (whose old position must be the one the
///   checker followed);
/// - overlaps reported as differing do differ;
/// - after the flush nothing stays buffered; and a clean script (no
///   different bytes, ACKs, cuts, jumps or FINs, a buffer large enough)
///   whose segments cover the stream comes out whole, with no gap.
public final class TCPFuzzTarget: FuzzTarget {
  public init() {}
  public var name: String { "tcp" }
  public var isJSON: Bool { false }

  /// Bytes of a script step.
  static let stepLength = 4
  /// Offsets in a sequence space reach this far (16-bit offset + length).
  static let spaceLength = 65_536 + 256
  /// Jumps followed, at most.
  static let maxJumps = 3
  static let smallBuffer = 512

  /// What a segment carries at `sequence`: a hash, so a misplaced byte shows.
  static func byte(at sequence: UInt32) -> UInt8 {
    UInt8(truncatingIfNeeded: (sequence &* 0x9E37_79B1) >> 24)
  }

  /// Made of a header (flags: small buffer, SYN; the initial sequence
  /// number, just short of the wrap) and the segments of the first few
  /// kilobytes, shuffled, with duplicates and overlaps.
  public func seed(rng: inout SplitMix64) -> [UInt8]? {
    let flags: UInt8 = rng.chance(1, in: 4) ? 0b01 : 0b10
    var input: [UInt8] = [flags]
    let initial = UInt32.max - UInt32(rng.below(3000))
    input += (0..<4).map { UInt8(truncatingIfNeeded: initial >> (8 * $0)) }
    var steps: [[UInt8]] = []
    var offset = 0
    while offset < 4000 {
      let length = 1 + rng.below(256)
      steps.append([0, UInt8(offset >> 8), UInt8(offset & 0xFF), UInt8(length - 1)])
      if rng.chance(1, in: 5) {
        let back = min(offset, rng.below(200))
        steps.append([1, UInt8((offset - back) >> 8), UInt8((offset - back) & 0xFF), UInt8(length - 1)])
      }
      offset += length
    }
    for index in steps.indices.reversed() where index > 0 {
      steps.swapAt(index, rng.below(index + 1))
    }
    return input + steps.flatMap { $0 }
  }

  public func roundTrip(rng: inout SplitMix64, stats: inout FuzzStats) -> FuzzFailure? { nil }

  public func check(_ input: [UInt8], stats: inout FuzzStats) -> FuzzFailure? {
    stats.executions += 1
    guard input.count >= 5 else { return nil }
    let start = monotonicNanoseconds()
    let run = Run(input: input)
    run.play()
    stats.decoded += 1
    for kind in run.kinds.keys { stats.messageKinds.add(kind) }
    if let problem = run.problem {
      return FuzzFailure(target: name, kind: problem.kind, detail: problem.detail, input: input)
    }
    return .bounds(target: name, input: input, buffered: 0, limit: 0, startedAt: start)
  }

  /// One script played and checked (a class: the reassembler's output
  /// callback updates the checker while the reassembler runs).
  private final class Run {
    let input: [UInt8]
    let limit: Int
    let syn: Bool
    let initial: UInt32
    var reassembler: TCPStreamReassembler
    /// The sequence spaces segments were sent in (one more per jump), and
    /// per byte offset what was sent there: 1 the stream's byte, 2 its
    /// complement.
    var spaces: [(base: UInt32, sent: [UInt8])] = []
    /// The sequence number of the next byte delivery should produce; nil
    /// before the stream starts.
    var cursor: UInt32?
    var delivered: [UInt8] = []
    var gaps = 0
    var clean = true
    var problem: (kind: String, detail: String)?
    var kinds: [String: Int] = [:]
    var frame = 0

    init(input: [UInt8]) {
      self.input = input
      limit = input[0] & 1 != 0 ? TCPFuzzTarget.smallBuffer : 1 << 20
      syn = input[0] & 2 != 0
      initial = (1...4).reduce(UInt32(0)) { $0 | UInt32(input[$1]) << (8 * ($1 - 1)) }
      reassembler = TCPStreamReassembler(maxBufferedBytes: limit)
      if limit < 1 << 20 { clean = false }
      spaces = [(initial &+ 1, [])]
    }

    func play() {
      if syn {
        cursor = initial &+ 1
        feed(sequence: initial, syn: true, fin: false, payload: [], original: 0)
      }
      var index = 5
      while index + TCPFuzzTarget.stepLength <= input.count, problem == nil {
        step(Array(input[index..<index + TCPFuzzTarget.stepLength]))
        index += TCPFuzzTarget.stepLength
      }
      guard problem == nil else { return }
      reassembler.flush { note($0) }
      if reassembler.hasBufferedData {
        fail("left-buffered", "bytes remain buffered after the flush")
      }
      checkComplete()
    }

    private func step(_ bytes: [UInt8]) {
      let offset = Int(bytes[1]) << 8 | Int(bytes[2])
      let space = spaces.count - 1
      let sequence = spaces[space].base &+ UInt32(offset)
      let length = Int(bytes[3]) + 1
      switch bytes[0] % 8 {
      case 3:
        clean = false
        send(space: space, offset: offset, length: length, flipped: true, kept: length)
      case 4:
        clean = false
        frame += 1
        reassembler.acknowledge(sequence, frame: frame, time: Double(frame)) { note($0) }
      case 5:
        clean = false
        guard spaces.count <= TCPFuzzTarget.maxJumps else { return }
        let distance = UInt32(1 << 31) &+ UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        spaces.append((spaces[space].base &+ distance, []))
      case 6:
        clean = false
        // A FIN starts a stream that has not started, as data does.
        if cursor == nil { cursor = sequence }
        feed(sequence: sequence, syn: false, fin: true, payload: [], original: 0)
      case 7:
        clean = false
        send(space: space, offset: offset, length: length, flipped: false, kept: length / 2)
      default:
        send(space: space, offset: offset, length: length, flipped: false, kept: length)
      }
    }

    /// Sends `length` bytes at `offset` of a space, of which the capture
    /// kept `kept`.
    private func send(space: Int, offset: Int, length: Int, flipped: Bool, kept: Int) {
      let base = spaces[space].base
      if spaces[space].sent.isEmpty {
        spaces[space].sent = [UInt8](repeating: 0, count: TCPFuzzTarget.spaceLength)
      }
      var payload = [UInt8](repeating: 0, count: kept)
      for index in 0..<kept {
        let sequence = base &+ UInt32(offset + index)
        payload[index] = TCPFuzzTarget.byte(at: sequence) ^ (flipped ? 0xFF : 0)
        spaces[space].sent[offset + index] |= flipped ? 2 : 1
      }
      // The stream starts at the first segment that carries bytes.
      if cursor == nil, kept > 0 { cursor = base &+ UInt32(offset) }
      feed(sequence: base &+ UInt32(offset), syn: false, fin: false, payload: payload, original: length)
    }

    private func feed(sequence: UInt32, syn: Bool, fin: Bool, payload: [UInt8], original: Int) {
      frame += 1
      let frame = frame
      payload.withUnsafeBytes { bytes in
        reassembler.segment(
          sequence: sequence, syn: syn, fin: fin, payload: bytes, original: original, frame: frame,
          time: Double(frame)
        ) { note($0) }
      }
      let bound = 2 * limit + TCPStreamReassembler.segmentOverhead * 2
      if reassembler.bufferedBytes > bound {
        fail("unbounded-buffer", "\(reassembler.bufferedBytes) bytes buffered; the bound is \(bound)")
      }
    }

    /// What was sent at `sequence`, in any space (spaces a few jumps
    /// apart may overlap; a byte depends only on its sequence number).
    private func sent(at sequence: UInt32) -> UInt8 {
      var kinds: UInt8 = 0
      for space in spaces {
        let offset = Int(sequence &- space.base)
        if offset < space.sent.count { kinds |= space.sent[offset] }
      }
      return kinds
    }

    private func note(_ item: TCPStreamReassembler.Output) {
      guard problem == nil else { return }
      switch item {
      case .data(let bytes, _, _):
        kinds["data", default: 0] += 1
        guard var at = cursor else {
          fail("foreign-byte", "data before the stream started")
          return
        }
        for value in bytes {
          let expected = TCPFuzzTarget.byte(at: at)
          let sentThere = sent(at: at)
          let fits = (value == expected && sentThere & 1 != 0) || (value == ~expected && sentThere & 2 != 0)
          if !fits {
            fail(
              "foreign-byte",
              "byte \(value) delivered at sequence \(at), where segments carried "
                + (sentThere == 0 ? "nothing" : "other bytes"))
            return
          }
          if delivered.count < TCPFuzzTarget.spaceLength { delivered.append(value) }
          at &+= 1
        }
        cursor = at
      case .gap(let missing, _, _):
        kinds["gap", default: 0] += 1
        gaps += 1
        cursor = cursor.map { $0 &+ UInt32(truncatingIfNeeded: missing) }
      case .cut(_, _, let missing, _, _):
        kinds["cut", default: 0] += 1
        gaps += 1
        cursor = cursor.map { $0 &+ UInt32(truncatingIfNeeded: missing) }
      case .conflict(_, let sequence, _, _, _):
        kinds["conflict", default: 0] += 1
        if sent(at: sequence) != 3 {
          fail(
            "false-conflict",
            "an overlap reported as differing at sequence \(sequence), where one kind of byte was sent")
        }
      case .desync(let sequence, let expected, _, _):
        kinds["desync", default: 0] += 1
        if let cursor, cursor != expected {
          fail("desync-mismatch", "a jump reported from \(expected), but delivery had reached \(cursor)")
        }
        cursor = sequence
      case .outOfWindow:
        kinds["out-of-window", default: 0] += 1
      }
    }

    /// A clean script whose segments cover the stream from its start to
    /// their end must come out whole, without a gap.
    private func checkComplete() {
      guard clean, let first = spaces.first, !first.sent.isEmpty else { return }
      let start = syn ? 0 : (first.sent.firstIndex { $0 != 0 } ?? 0)
      guard let end = first.sent.lastIndex(where: { $0 != 0 }).map({ $0 + 1 }),
        first.sent[start..<end].allSatisfy({ $0 != 0 })
      else { return }
      // Without a SYN the stream starts at the first segment sent, which
      // may not be the lowest offset: bytes before it are old data.
      guard syn else { return }
      let expected = (start..<end).map { TCPFuzzTarget.byte(at: first.base &+ UInt32($0)) }
      if gaps > 0 || delivered != expected {
        fail(
          "incomplete",
          "every byte of 0..<\(end) was sent, but \(gaps) gaps were reported and "
            + "\(delivered.count) bytes delivered")
      }
    }

    private func fail(_ kind: String, _ detail: String) {
      if problem == nil { problem = (kind, detail) }
    }
  }
}
