import PacketCapture
import Testing

/// SplitMix64: a small seeded generator so shuffles are reproducible.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A segment of a test stream: `offset` counts from the first data byte.
struct TestSegment {
  var offset: Int
  var bytes: [UInt8]
  var fin = false
}

/// What a reassembler produced.
struct Reassembled {
  var bytes: [UInt8] = []
  var gaps: [Int] = []
  var dataFrames: [Int] = []
  var peakBuffered = 0
  var conflicts: [Range<Int64>] = []
  var desynchronised = false
}

/// The swift-nio ByteToMessageDecoderVerifier idea for TCP: the same stream
/// fed whole, segment by segment, byte by byte, shuffled, duplicated,
/// overlapping and mid-stream must come out identical, each byte once.
@Suite struct TCPStreamReassemblerTests {
  static let stream: [UInt8] = {
    var generator = SeededGenerator(seed: 1)
    return (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }()

  /// Cuts the stream into segments of 1…1460 bytes; the last carries FIN.
  static func segments(seed: UInt64, maxSize: Int = 1460) -> [TestSegment] {
    var generator = SeededGenerator(seed: seed)
    var result: [TestSegment] = []
    var offset = 0
    while offset < stream.count {
      let size = min(stream.count - offset, Int.random(in: 1...maxSize, using: &generator))
      result.append(TestSegment(offset: offset, bytes: Array(stream[offset..<offset + size])))
      offset += size
    }
    result[result.count - 1].fin = true
    return result
  }

  /// Feeds a SYN (unless `syn` is nil) then the segments, then flushes.
  static func run(
    _ segments: [TestSegment], syn initial: UInt32? = 1000, midStreamStart: UInt32 = 0,
    maxBuffered: Int = 1 << 20, flush: Bool = true
  ) -> Reassembled {
    var reassembler = TCPStreamReassembler(maxBufferedBytes: maxBuffered)
    var out = Reassembled()
    let output = { (item: TCPStreamReassembler.Output) in
      switch item {
      case .data(let bytes, let frame, _):
        out.bytes += bytes
        out.dataFrames.append(frame)
      case .gap(let missing, _, _):
        out.gaps.append(missing)
      case .cut(_, _, let missing, _, _):
        out.gaps.append(missing)
      case .conflict(let range, _, _, _, _):
        out.conflicts.append(range)
      case .desync, .outOfWindow:
        out.desynchronised = true
      }
    }
    let base = initial.map { $0 &+ 1 } ?? midStreamStart
    if let initial {
      reassembler.segment(
        sequence: initial, syn: true, payload: UnsafeRawBufferPointer(start: nil, count: 0), frame: 0,
        time: 0, output)
    }
    for (index, segment) in segments.enumerated() {
      segment.bytes.withUnsafeBytes { bytes in
        reassembler.segment(
          sequence: base &+ UInt32(truncatingIfNeeded: segment.offset), fin: segment.fin, payload: bytes,
          frame: index + 1, time: Double(index), output)
      }
      out.peakBuffered = max(out.peakBuffered, reassembler.bufferedBytes)
    }
    if flush { reassembler.flush(output) }
    #expect(reassembler.bufferedBytes == 0 || !flush)
    return out
  }

  @Test func whole() {
    let out = Self.run([TestSegment(offset: 0, bytes: Self.stream, fin: true)])
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func segmentBySegment(seed: UInt64) {
    let out = Self.run(Self.segments(seed: seed))
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test func byteByByte() {
    let out = Self.run(Self.segments(seed: 4, maxSize: 1))
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test(arguments: [5, 6, 7, 8] as [UInt64])
  func shuffled(seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    let out = Self.run(Self.segments(seed: seed).shuffled(using: &generator))
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test(arguments: [9, 10] as [UInt64])
  func duplicatedAndShuffled(seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    let segments = Self.segments(seed: seed)
    let out = Self.run((segments + segments).shuffled(using: &generator))
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test(arguments: [11, 12] as [UInt64])
  func overlappingAndShuffled(seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    var segments = Self.segments(seed: seed)
    // Add segments straddling the cuts, like repacketised retransmissions.
    for _ in 0..<200 {
      let start = Int.random(in: 0..<(Self.stream.count - 1), using: &generator)
      let end = min(Self.stream.count, start + Int.random(in: 1...3000, using: &generator))
      segments.append(TestSegment(offset: start, bytes: Array(Self.stream[start..<end])))
    }
    let out = Self.run(segments.shuffled(using: &generator))
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test func midStreamStartsAtTheFirstSequenceSeen() {
    let segments = Self.segments(seed: 13)
    let tail = Array(segments.dropFirst(3))
    let out = Self.run(tail, syn: nil, midStreamStart: 77_000)
    #expect(out.bytes == Array(Self.stream[(tail.first?.offset ?? 0)...]))
    #expect(out.gaps.isEmpty)
  }

  @Test func midStreamIgnoresEarlierRetransmissions() {
    let segments = Self.segments(seed: 14)
    let out = Self.run([segments[2], segments[0], segments[1]] + segments.dropFirst(3), syn: nil)
    #expect(out.bytes == Array(Self.stream[segments[2].offset...]))
  }

  @Test(arguments: [0xFFFF_F000, 0xFFFF_FFFF, 0x7FFF_FFFF] as [UInt32])
  func sequenceWraparound(initial: UInt32) {
    var generator = SeededGenerator(seed: 15)
    let out = Self.run(Self.segments(seed: 15).shuffled(using: &generator), syn: initial)
    #expect(out.bytes == Self.stream)
    #expect(out.gaps.isEmpty)
  }

  @Test func lostSegmentGivesOneGapAtFlushThenResumes() {
    var segments = Self.segments(seed: 16)
    let lost = segments.remove(at: 5)
    let out = Self.run(segments)
    #expect(out.gaps == [lost.bytes.count])
    #expect(
      out.bytes == Array(Self.stream[..<lost.offset] + Self.stream[(lost.offset + lost.bytes.count)...]))
  }

  @Test func lostSegmentGivesOneGapWhenTheBufferFills() {
    var segments = Self.segments(seed: 17)
    let lost = segments.remove(at: 2)
    let out = Self.run(segments, maxBuffered: 4096, flush: false)
    #expect(out.gaps == [lost.bytes.count])
    // Everything after the hole was delivered without waiting for the end.
    #expect(
      out.bytes == Array(Self.stream[..<lost.offset] + Self.stream[(lost.offset + lost.bytes.count)...]))
    #expect(out.peakBuffered <= 4096)
  }

  @Test func lostFinalSegmentIsAGapBeforeTheFIN() {
    var segments = Self.segments(seed: 18)
    var last = segments.removeLast()
    // The FIN comes alone after the lost data.
    last.offset += last.bytes.count
    let missing = last.bytes.count
    last.bytes = []
    segments.append(last)
    let out = Self.run(segments)
    #expect(out.gaps == [missing])
    #expect(out.bytes == Array(Self.stream[..<(Self.stream.count - missing)]))
  }

  @Test func lateRetransmissionAfterAGapIsDropped() {
    var segments = Self.segments(seed: 19)
    let lost = segments.remove(at: 1)
    segments.append(lost)  // arrives after the buffer gave up on it
    let out = Self.run(segments, maxBuffered: 2048)
    #expect(out.gaps == [lost.bytes.count])
    #expect(out.bytes.count == Self.stream.count - lost.bytes.count)
  }

  @Test func dataFramesAreTheRecordsThatCarriedThem() {
    let segments = Self.segments(seed: 20).prefix(3).map { $0 }
    let out = Self.run([segments[1], segments[2], segments[0]])
    // Record 3 carried the first bytes, then the buffered records 1 and 2 follow.
    #expect(out.dataFrames == [3, 1, 2])
  }

  @Test func floodOfOutOfOrderSegmentsStaysUnderTheLimit() {
    var generator = SeededGenerator(seed: 21)
    let limit = 64 * 1024
    var reassembler = TCPStreamReassembler(maxBufferedBytes: limit)
    var peak = 0
    var delivered = 0
    var gaps = 0
    reassembler.segment(
      sequence: 0, syn: true, payload: UnsafeRawBufferPointer(start: nil, count: 0), frame: 0, time: 0
    ) { _ in }
    let chunk = [UInt8](repeating: 0x55, count: 100)
    for frame in 1...20_000 {
      // Never byte 1: a hole that is never filled, with segments scattered far beyond it.
      let sequence = UInt32.random(in: 1000...50_000_000, using: &generator)
      chunk.withUnsafeBytes { bytes in
        reassembler.segment(sequence: sequence, payload: bytes, frame: frame, time: 0) { item in
          switch item {
          case .data(let bytes, _, _): delivered += bytes.count
          case .gap: gaps += 1
          default: break
          }
        }
      }
      peak = max(peak, reassembler.bufferedBytes)
    }
    #expect(peak <= limit)
    #expect(gaps > 0)
    #expect(delivered > 0)
  }
}

/// Segments that contradict an earlier FIN must not trap or leak past it.
@Suite struct TCPStreamReassemblerFINTests {
  @Test func dataBeyondAnEarlierFINIsIgnored() {
    var reassembler = TCPStreamReassembler()
    var delivered: [UInt8] = []
    var gaps: [Int] = []
    let output = { (item: TCPStreamReassembler.Output) in
      switch item {
      case .data(let bytes, _, _): delivered += bytes
      case .gap(let missing, _, _): gaps.append(missing)
      default: break
      }
    }
    let empty = UnsafeRawBufferPointer(start: nil, count: 0)
    reassembler.segment(sequence: 0, syn: true, payload: empty, frame: 1, time: 0, output)
    // Buffered beyond a hole, then a FIN before its end, then data after the FIN.
    Array("late bytes".utf8).withUnsafeBytes {
      reassembler.segment(sequence: 11, payload: $0, frame: 2, time: 0, output)
    }
    Array("ab".utf8).withUnsafeBytes {
      reassembler.segment(sequence: 6, fin: true, payload: $0, frame: 3, time: 0, output)
    }
    Array("after".utf8).withUnsafeBytes {
      reassembler.segment(sequence: 30, payload: $0, frame: 4, time: 0, output)
    }
    Array("hello".utf8).withUnsafeBytes {
      reassembler.segment(sequence: 1, payload: $0, frame: 5, time: 0, output)
    }
    reassembler.flush(output)
    #expect(delivered == Array("helloab".utf8))
    #expect(gaps.isEmpty)
    #expect(reassembler.isFinished)
    #expect(reassembler.bufferedBytes == 0)
  }
}
