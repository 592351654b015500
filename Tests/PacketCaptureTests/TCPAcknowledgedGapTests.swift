import PacketCapture
import Testing

/// A hole the peer has acknowledged will never be filled (the peer got those
/// bytes; the capture did not): it becomes a gap as soon as later bytes are
/// seen, not when the buffer fills or the stream ends. The gap is reported by
/// the record that completes the proof: the ACK when the bytes after the hole
/// were already buffered, otherwise the next data after the ACK.
@Suite struct TCPAcknowledgedGapTests {
  static let stream = TCPStreamReassemblerTests.stream
  static let initial: UInt32 = 1000

  /// Drives one direction's reassembler and records what it gives, with frames.
  struct Driver {
    var reassembler = TCPStreamReassembler(maxBufferedBytes: 1 << 20)
    var bytes: [UInt8] = []
    var gaps: [(missing: Int, frame: Int)] = []
    var base: UInt32

    init(initial: UInt32 = TCPAcknowledgedGapTests.initial) {
      base = initial &+ 1
      let empty = UnsafeRawBufferPointer(start: nil, count: 0)
      reassembler.segment(sequence: initial, syn: true, payload: empty, frame: 0, time: 0) { _ in }
    }

    mutating func send(_ segment: TestSegment, frame: Int) {
      var collected: [TCPStreamReassembler.Output] = []
      var data: [UInt8] = []
      segment.bytes.withUnsafeBytes { payload in
        reassembler.segment(
          sequence: base &+ UInt32(truncatingIfNeeded: segment.offset), fin: segment.fin, payload: payload,
          frame: frame, time: Double(frame)
        ) { item in
          if case .data(let chunk, _, _) = item { data += chunk }
          collected.append(item)
        }
      }
      record(collected, data)
    }

    /// The peer's cumulative ACK: it has every byte before `offset`.
    mutating func ack(_ offset: Int, frame: Int) {
      var collected: [TCPStreamReassembler.Output] = []
      var data: [UInt8] = []
      reassembler.acknowledge(base &+ UInt32(truncatingIfNeeded: offset), frame: frame, time: Double(frame)) {
        item in
        if case .data(let chunk, _, _) = item { data += chunk }
        collected.append(item)
      }
      record(collected, data)
    }

    private mutating func record(_ items: [TCPStreamReassembler.Output], _ data: [UInt8]) {
      bytes += data
      for case .gap(let missing, let frame, _) in items { gaps.append((missing, frame)) }
    }
  }

  static func without(_ lost: TestSegment) -> [UInt8] {
    Array(stream[..<lost.offset] + stream[(lost.offset + lost.bytes.count)...])
  }

  @Test func ackAfterBufferedDataGivesOneGapAtTheACK() {
    var segments = TCPStreamReassemblerTests.segments(seed: 30)
    let lost = segments.remove(at: 4)
    var driver = Driver()
    for (index, segment) in segments.enumerated() where index < 8 {
      driver.send(segment, frame: index + 1)
    }
    #expect(driver.gaps.isEmpty, "no ACK yet: the hole may still be filled")
    let resumeAt = lost.offset + lost.bytes.count
    driver.ack(resumeAt, frame: 100)
    #expect(driver.gaps.map(\.missing) == [lost.bytes.count])
    #expect(driver.gaps.map(\.frame) == [100])
    // Everything buffered behind the hole came out at once, without a flush.
    let endOfSent = segments[7].offset + segments[7].bytes.count
    #expect(driver.bytes == Array(Self.without(lost)[..<(endOfSent - lost.bytes.count)]))
    #expect(driver.reassembler.bufferedBytes == 0)
  }

  @Test func ackBeforeTheNextDataGivesTheGapAtThatData() {
    var segments = TCPStreamReassemblerTests.segments(seed: 31)
    let lost = segments.remove(at: 3)
    var driver = Driver()
    for (index, segment) in segments.enumerated() where index < 3 {
      driver.send(segment, frame: index + 1)
    }
    // A pure ACK for the lost bytes, before anything after them is seen.
    driver.ack(lost.offset + lost.bytes.count, frame: 10)
    #expect(driver.gaps.isEmpty, "only seen bytes bound a gap")
    for (index, segment) in segments.enumerated() where index >= 3 {
      driver.send(segment, frame: 20 + index)
    }
    #expect(driver.gaps.map(\.missing) == [lost.bytes.count])
    #expect(driver.gaps.map(\.frame) == [23])
    #expect(driver.bytes == Self.without(lost))
  }

  @Test func ackCapturedBeforeTheDataItCoversLosesNothing() {
    let segments = TCPStreamReassemblerTests.segments(seed: 32)
    var driver = Driver()
    driver.send(segments[0], frame: 1)
    // The capture shows the peer's ACK for segment 1 before segment 1 itself.
    driver.ack(segments[1].offset + segments[1].bytes.count, frame: 2)
    for (index, segment) in segments.enumerated().dropFirst() { driver.send(segment, frame: index + 2) }
    #expect(driver.gaps.isEmpty)
    #expect(driver.bytes == Self.stream)
  }

  /// A receiver ACKs only what it has in order; segments it reorders and later
  /// fills are never reported, however the capture interleaves them.
  @Test(arguments: [33, 34, 35] as [UInt64])
  func outOfOrderSegmentsBehindTheACKAreNotGaps(seed: UInt64) {
    var generator = SeededGenerator(seed: seed)
    var driver = Driver()
    for (index, segment) in TCPStreamReassemblerTests.segments(seed: seed).shuffled(using: &generator)
      .enumerated()
    {
      driver.send(segment, frame: 2 * index + 1)
      // The peer's cumulative ACK, repeated (duplicate ACKs) while a hole is open.
      driver.ack(driver.bytes.count, frame: 2 * index + 2)
    }
    #expect(driver.gaps.isEmpty)
    #expect(driver.bytes == Self.stream)
  }

  @Test func ackInsideTheHoleReportsOnlyTheAcknowledgedPart() {
    var segments = TCPStreamReassemblerTests.segments(seed: 36)
    // Two adjacent segments lost; the peer acknowledges the first only.
    let first = segments.remove(at: 2)
    let second = segments.remove(at: 2)
    var driver = Driver()
    for (index, segment) in segments.enumerated() where index < 5 { driver.send(segment, frame: index + 1) }
    driver.ack(first.offset + first.bytes.count, frame: 50)
    #expect(driver.gaps.map(\.missing) == [first.bytes.count])
    #expect(driver.bytes.count == first.offset, "the second part is still awaited")
    driver.send(second, frame: 51)  // late, but not yet acknowledged: still welcome
    #expect(driver.gaps.count == 1)
    #expect(driver.bytes == Self.without(first).prefix(driver.bytes.count).map { $0 })
    #expect(driver.bytes.count == segments[4].offset + segments[4].bytes.count - first.bytes.count)
  }

  @Test(arguments: [0xFFFF_F000, 0xFFFF_FFFF, 0x7FFF_FFFF] as [UInt32])
  func acknowledgementAcrossSequenceWraparound(initial: UInt32) {
    var segments = TCPStreamReassemblerTests.segments(seed: 37)
    let lost = segments.remove(at: 3)
    var driver = Driver(initial: initial)
    for (index, segment) in segments.enumerated() { driver.send(segment, frame: index + 1) }
    // An old ACK from before the wrap changes nothing; the real one closes the hole.
    driver.ack(-5000, frame: 90)
    #expect(driver.gaps.isEmpty)
    driver.ack(lost.offset + lost.bytes.count, frame: 91)
    #expect(driver.gaps.map(\.missing) == [lost.bytes.count])
    #expect(driver.bytes == Self.without(lost))
  }

  @Test func ackedHoleBeforeAFINEndsTheStreamAtOnce() {
    var segments = TCPStreamReassemblerTests.segments(seed: 38)
    var last = segments.removeLast()
    let missing = last.bytes.count
    last.offset += missing
    last.bytes = []  // a bare FIN after the lost final data
    segments.append(last)
    var driver = Driver()
    for (index, segment) in segments.enumerated() { driver.send(segment, frame: index + 1) }
    #expect(driver.gaps.isEmpty)
    #expect(!driver.reassembler.isFinished)
    driver.ack(last.offset + 1, frame: 99)  // the peer ACKs the FIN
    #expect(driver.gaps.map(\.missing) == [missing])
    #expect(driver.gaps.map(\.frame) == [99])
    #expect(driver.reassembler.isFinished)
  }

  @Test func ackBeforeTheStreamStartedIsIgnored() {
    var reassembler = TCPStreamReassembler()
    var outputs = 0
    reassembler.acknowledge(5000, frame: 1, time: 0) { _ in outputs += 1 }
    Array("abc".utf8).withUnsafeBytes { bytes in
      reassembler.segment(sequence: 7000, payload: bytes, frame: 2, time: 0) { _ in outputs += 1 }
    }
    #expect(outputs == 1)
    #expect(reassembler.position == 3)
  }
}

/// The same through the whole decoder, with ACK numbers on the wire.
@Suite struct TCPAcknowledgedGapDecoderTests {
  /// 10.0.0.1:40000 ↔ 10.0.0.2:8000 with an ACK number (ACK flag set unless `flags` says otherwise).
  static func packet(
    fromClient: Bool = true, sequence: UInt32, acknowledgement: UInt32, flags: UInt8 = Packets.ack,
    payload: [UInt8] = []
  ) -> [UInt8] {
    var segment = Packets.tcp(
      sourcePort: fromClient ? 40_000 : 8000, destinationPort: fromClient ? 8000 : 40_000, sequence: sequence,
      flags: flags, payload: payload)
    // Bytes 8…11 of the TCP header (RFC 9293 §3.1).
    segment.replaceSubrange(8..<12, with: be32(acknowledgement))
    return Packets.ipv4(
      source: fromClient ? Packets.hostA : Packets.hostB,
      destination: fromClient ? Packets.hostB : Packets.hostA, protocol: 6, payload: segment)
  }

  static let opening: [[UInt8]] = [
    packet(sequence: 100, acknowledgement: 0, flags: Packets.syn),
    packet(fromClient: false, sequence: 500, acknowledgement: 101, flags: Packets.syn | Packets.ack),
    packet(sequence: 101, acknowledgement: 501, payload: "aaaa".bytes),
  ]

  @Test func pureACKPastALostSegmentReportsItThere() {
    let events = decodeAll(
      Self.opening + [
        // 105..<109 "bbbb" lost; "cccc" is buffered behind the hole.
        Self.packet(sequence: 109, acknowledgement: 501, payload: "cccc".bytes),
        Self.packet(fromClient: false, sequence: 501, acknowledgement: 113),
        Self.packet(sequence: 113, acknowledgement: 501, payload: "dddd".bytes),
      ], linkType: 228, finish: false)
    #expect(
      events.suffix(4) == [
        .data(.clientToServer, frame: 3, bytes: "aaaa".bytes),
        .gap(.clientToServer, frame: 5, missing: 4),
        .data(.clientToServer, frame: 4, bytes: "cccc".bytes),
        .data(.clientToServer, frame: 6, bytes: "dddd".bytes),
      ])
  }

  @Test func ackRidingOnDataOfTheOtherDirection() {
    let events = decodeAll(
      Self.opening + [
        Self.packet(fromClient: false, sequence: 501, acknowledgement: 109, payload: "ok".bytes),
        Self.packet(sequence: 109, acknowledgement: 503, payload: "cccc".bytes),
      ], linkType: 228, finish: false)
    #expect(events.gaps == [4])
    #expect(events.contains(.gap(.clientToServer, frame: 5, missing: 4)))
    #expect(events.stream(.clientToServer) == "aaaacccc".bytes)
    #expect(events.stream(.serverToClient) == "ok".bytes)
  }

  @Test func segmentWithoutTheACKFlagSaysNothing() {
    let events = decodeAll(
      Self.opening + [
        Self.packet(sequence: 109, acknowledgement: 501, payload: "cccc".bytes),
        // An ACK number without the ACK flag is not an acknowledgement.
        Self.packet(fromClient: false, sequence: 501, acknowledgement: 113, flags: 0x08, payload: "x".bytes),
      ], linkType: 228, finish: false)
    #expect(events.gaps.isEmpty)
    #expect(events.stream(.clientToServer) == "aaaa".bytes)
  }

  @Test func lostSegmentThenFINAndACKClosesWithoutWaitingForTheEnd() {
    let events = decodeAll(
      Self.opening + [
        Self.packet(sequence: 109, acknowledgement: 501, flags: Packets.fin | Packets.ack),
        Self.packet(fromClient: false, sequence: 501, acknowledgement: 110, flags: Packets.fin | Packets.ack),
        Self.packet(sequence: 110, acknowledgement: 502),
      ], linkType: 228, finish: false)
    #expect(events.contains(.gap(.clientToServer, frame: 5, missing: 4)))
    #expect(events.last == .closed(frame: 5, reason: "fin"))
  }
}
