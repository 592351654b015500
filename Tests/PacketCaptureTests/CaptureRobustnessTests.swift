import Foundation
import PacketCapture
import PacketKit
import Testing

/// Issue 26, the capture layer: captures cut by a snap length or holding
/// more than it, fragment floods, a full connection table, sequence jumps,
/// overlapping copies that disagree, absurd WebSocket lengths and where
/// damage is said to be. Every capture is a file written here byte by byte
/// (pcap-savefile(5), the pcapng draft), read back through `PcapFileReader`
/// and `PacketDecoder` as `decode` reads it; the expected values come from
/// how the file was made.
@Suite struct CaptureRobustnessTests {
  struct Decoded {
    var events: [Event] = []
    var end: ReadEnd = .endOfFile
    var records: [(frame: Int, captured: Int, original: Int, data: [UInt8])] = []
  }

  static func decodeFile(_ path: String, limits: CaptureLimits = .default) throws -> Decoded {
    let reader = try PcapFileReader(path: path)
    let decoder = PacketDecoder(limits: limits)
    var out = Decoded()
    reader.onNotice = { out.events.append(Event(.notice($0))) }
    out.end = reader.read { record in
      out.records.append((record.frame, record.capturedLength, record.originalLength, Array(record.data)))
      decoder.decode(record) { out.events.append(Event($0)) }
    }
    decoder.finish { out.events.append(Event($0)) }
    return out
  }

  static func tcp(
    from client: Bool = true, sequence: UInt32, flags: UInt8 = 0x18, payload: [UInt8] = [],
    port: UInt16 = 40_000
  ) -> [UInt8] {
    let segment =
      client
      ? Packets.tcp(
        sourcePort: port, destinationPort: 8000, sequence: sequence, flags: flags, payload: payload)
      : Packets.tcp(
        sourcePort: 8000, destinationPort: port, sequence: sequence, flags: flags, payload: payload)
    return Packets.ethernet(
      type: 0x0800,
      Packets.ipv4(
        source: client ? Packets.hostA : Packets.hostB, destination: client ? Packets.hostB : Packets.hostA,
        protocol: 6, payload: segment))
  }

  // MARK: 1. Snap length

  /// `editcap -s 60` on TCP: each record keeps 60 bytes, so a segment's
  /// payload keeps 60 − 14 − 20 − 20 = 6 bytes; the rest is said missing
  /// at once, and the next segment decodes in step.
  @Test func tcpSegmentsCutBySnapLengthKeepTheirHeadersAndSayTheCut() throws {
    var file = PcapBuilder(linkType: 1)
    file.snapLength = 60
    let first = [UInt8]("hello, this is the first segment".utf8)
    let second = [UInt8]("and a second one".utf8)
    for frame in [
      Self.tcp(sequence: 99, flags: Packets.syn), Self.tcp(sequence: 100, payload: first),
      Self.tcp(sequence: 100 + UInt32(first.count), payload: second),
    ] {
      file.add(Array(frame.prefix(60)), originalLength: frame.count)
    }
    let decoded = try Self.decodeFile(file.write())
    #expect(decoded.events.stream(.clientToServer) == Array(first.prefix(6)) + Array(second.prefix(6)))
    #expect(decoded.events.contains(.cut(.clientToServer, frame: 2, kept: 6, original: first.count)))
    #expect(decoded.events.contains(.cut(.clientToServer, frame: 3, kept: 6, original: second.count)))
    #expect(decoded.events.gaps.isEmpty)
    #expect(!decoded.events.contains { if case .damaged = $0 { true } else { false } })
  }

  /// A pcap record longer than the file's snap length: libpcap hands over
  /// only the snap length; the file holds all of it, and tshark reads all.
  @Test func pcapRecordLongerThanTheSnapLengthIsReadInFull() throws {
    let long = Packets.ethernet(
      type: 0x0800,
      Packets.ipv4(protocol: 17, payload: Packets.udp(payload: [UInt8]((0..<60).map { UInt8($0) }))))
    let short = Packets.ethernet(
      type: 0x0800, Packets.ipv4(protocol: 17, payload: Packets.udp(payload: "ok".bytes)))
    var file = PcapBuilder(linkType: 1)
    file.snapLength = 60
    file.add(long)
    file.add(short)
    file.add(long)
    let path = try file.write()
    let decoded = try Self.decodeFile(path)
    #expect(decoded.end == .endOfFile)
    #expect(decoded.records.map(\.captured) == [long.count, short.count, long.count])
    #expect(decoded.records.map(\.data) == [long, short, long])
    #expect(decoded.events.notices(.beyondSnapLength).map(\.frame) == [1, 3])
    #expect(decoded.events.datagrams.count == 3)
    if TCPAgainstTsharkTests.tsharkPresent {
      let lengths = try TCPAgainstTsharkTests.run(["-r", path, "-T", "fields", "-e", "frame.cap_len"])
      #expect(lengths.split(separator: "\n") == ["\(long.count)", "\(short.count)", "\(long.count)"])
    }
  }

  /// In pcapng, libpcap refuses the record outright; the fallback reader
  /// reads it, as tshark does.
  @Test func pcapngRecordLongerThanItsInterfaceSnapLengthIsReadInFull() throws {
    let frame = Packets.ethernet(
      type: 0x0800,
      Packets.ipv4(protocol: 17, payload: Packets.udp(payload: [UInt8](repeating: 9, count: 60))))
    var file = PcapngBuilder()
    file.interface(linkType: 1, snapLength: 60)
    file.packet(interface: 0, frame)
    file.packet(interface: 0, frame)
    let decoded = try Self.decodeFile(TemporaryFile.write(file.bytes, suffix: ".pcapng"))
    #expect(decoded.end == .endOfFile)
    #expect(decoded.records.map(\.captured) == [frame.count, frame.count])
    #expect(decoded.events.notices(.beyondSnapLength).map(\.frame) == [1, 2])
    #expect(
      decoded.events.datagrams.map(\.payload) == [
        [UInt8](repeating: 9, count: 60), [UInt8](repeating: 9, count: 60),
      ])
  }

  // MARK: 2. Fragment floods

  /// 5,000 first fragments of datagrams that never complete: memory stays
  /// within the limits, and each datagram given up on is said, once.
  @Test func fragmentFloodIsBoundedAndEveryDropIsSaid() throws {
    var file = PcapBuilder(linkType: 1)
    let count = 5000
    for id in 0..<count {
      let fragment =
        Packets.fragmentHeader(nextHeader: 17, offset: 0, more: true, identification: UInt32(id))
        + Packets.udp(
          source: Packets.hostA6, destination: Packets.hostB6, payload: [UInt8](repeating: 1, count: 64))
      file.add(Packets.ethernet(type: 0x86DD, Packets.ipv6(nextHeader: 44, payload: fragment)))
    }
    let reader = try PcapFileReader(path: try file.write())
    let decoder = PacketDecoder()
    var drops: [String: Int] = [:]
    var peakPending = 0
    var peakBytes = 0
    _ = reader.read { record in
      decoder.decode(record) { event in
        if case .notice(let notice) = event, notice.kind == .fragmentsDropped {
          drops[notice.reason ?? "", default: 0] += 1
        }
      }
      peakPending = max(peakPending, decoder.pendingFragmentedDatagrams)
      peakBytes = max(peakBytes, decoder.bufferedBytes)
    }
    decoder.finish { event in
      if case .notice(let notice) = event { drops[notice.reason ?? "", default: 0] += 1 }
    }
    let limits = CaptureLimits.default
    #expect(drops.values.reduce(0, +) == count)
    #expect(drops["end"] == limits.maxPendingFragmentedDatagrams)
    #expect(drops["limit"] == count - limits.maxPendingFragmentedDatagrams)
    #expect(peakPending <= limits.maxPendingFragmentedDatagrams)
    #expect(peakBytes <= limits.maxFragmentBytes)
  }

  // MARK: 3. Connection table

  /// A table of 8 and a flood of SYNs: the connection that carried data is
  /// never the one evicted, and its later data follows on.
  @Test func synFloodEvictsConnectionsWithoutDataFirst() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.tcp(sequence: 99, flags: Packets.syn))
    file.add(Self.tcp(sequence: 100, payload: "before".bytes))
    for index in 0..<100 {
      file.add(Self.tcp(sequence: 1, flags: Packets.syn, port: UInt16(41_000 + index)))
    }
    file.add(Self.tcp(sequence: 106, payload: "after".bytes))
    let decoded = try Self.decodeFile(file.write(), limits: CaptureLimits(maxConnections: 8))
    #expect(decoded.events.stream(.clientToServer) == "beforeafter".bytes)
    #expect(decoded.events.notices(.evicted).isEmpty)
    #expect(decoded.events.filter { if case .closed(_, "evicted") = $0 { true } else { false } }.count >= 90)
  }

  /// When connections with data fill the table, the idle one goes, is said
  /// gone, and is picked up again when it sends: same ends, in step (no gap).
  @Test func evictedConnectionWithDataResumesInStep() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.tcp(sequence: 99, flags: Packets.syn))
    file.add(Self.tcp(from: false, sequence: 499, flags: Packets.syn | Packets.ack))
    file.add(Self.tcp(sequence: 100, payload: "before".bytes))
    // Ten more: the table (8) evicts, and remembers up to 8 evicted ones.
    for index in 0..<10 {
      file.add(Self.tcp(sequence: 1, payload: "x".bytes, port: UInt16(41_000 + index)))
    }
    let resumeFrame = 14
    file.add(Self.tcp(sequence: 106, payload: "after".bytes))
    let decoded = try Self.decodeFile(file.write(), limits: CaptureLimits(maxConnections: 8))
    #expect(decoded.events.notices(.evicted).count >= 1)
    #expect(decoded.events.notices(.resumed).map(\.frame) == [resumeFrame])
    let opened = decoded.events.filter {
      if case .opened(let client, _, _) = $0 { client == "10.0.0.1:40000" } else { false }
    }
    #expect(opened.count == 2)  // the SYN, and the resumption: the same client and server
    let ours = decoded.events.compactMap { event -> [UInt8]? in
      if case .data(.clientToServer, let frame, let bytes) = event, frame == 3 || frame == resumeFrame {
        return bytes
      }
      return nil
    }
    #expect(ours == ["before".bytes, "after".bytes])
    #expect(!decoded.events.contains(.gap(.clientToServer, frame: resumeFrame, missing: 0)))
    #expect(decoded.events.gaps.isEmpty)
  }

  // MARK: 4. Sequence jumps

  /// The sequence numbers jump by 2³¹ + 1000 (further than any window,
  /// and read as "old" by serial-number arithmetic): the jump is said, and
  /// delivery resumes at the new numbers.
  @Test func sequenceJumpPastHalfTheSpaceIsADesyncAndRecovers() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.tcp(sequence: 99, flags: Packets.syn))
    file.add(Self.tcp(sequence: 100, payload: "one".bytes))
    let jumped: UInt32 = 103 &+ (1 << 31) &+ 1000
    file.add(Self.tcp(sequence: jumped, payload: "two".bytes))
    file.add(Self.tcp(sequence: jumped &+ 3, payload: "three".bytes))
    file.add(Self.tcp(sequence: jumped &+ 8, payload: "four".bytes))
    let decoded = try Self.decodeFile(file.write())
    #expect(decoded.events.contains(.desync(.clientToServer, frame: 3, sequence: jumped, expected: 103)))
    #expect(decoded.events.stream(.clientToServer) == "onetwothreefour".bytes)
  }

  /// One stray segment far outside the window, then the stream goes on:
  /// the stray is said and dropped; nothing is desynchronised.
  @Test func aLoneSegmentOutsideTheWindowIsDroppedAndSaid() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.tcp(sequence: 99, flags: Packets.syn))
    file.add(Self.tcp(sequence: 100, payload: "one".bytes))
    file.add(Self.tcp(sequence: 100 &+ (3 << 30), payload: "junk".bytes))
    file.add(Self.tcp(sequence: 103, payload: "two".bytes))
    let decoded = try Self.decodeFile(file.write())
    #expect(decoded.events.stream(.clientToServer) == "onetwo".bytes)
    #expect(decoded.events.notices(.outOfWindow).map(\.frame) == [3])
    #expect(!decoded.events.contains { if case .desync = $0 { true } else { false } })
  }

  // MARK: 5. Overlaps that disagree

  /// Stream bytes 20..<30 arrive first (frame 3, ahead of a hole), then a
  /// segment over 10..<30 whose bytes 20, 21 and 27 differ (frame 4): the
  /// first copy is kept, and bytes 20..<28 are named with both frames. A
  /// resend of 0..<10 with byte 5 changed (frame 5) is compared with what
  /// was delivered.
  @Test func overlappingSegmentsWithDifferentBytesAreSaid() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.tcp(sequence: 99, flags: Packets.syn))
    file.add(Self.tcp(sequence: 100, payload: "AAAAAAAAAA".bytes))
    file.add(Self.tcp(sequence: 120, payload: "CCCCCCCCCC".bytes))
    file.add(Self.tcp(sequence: 110, payload: "BBBBBBBBBBXXCCCCCXCC".bytes))
    file.add(Self.tcp(sequence: 100, payload: "AAAAAZAAAA".bytes))
    let decoded = try Self.decodeFile(file.write())
    #expect(decoded.events.stream(.clientToServer) == "AAAAAAAAAABBBBBBBBBBCCCCCCCCCC".bytes)
    let overlaps = decoded.events.notices(.segmentOverlap)
    #expect(overlaps.map(\.frame) == [4, 5])
    #expect(overlaps.first?.text.contains("stream bytes 20..<28 (sequence 120..<128)") == true)
    #expect(
      overlaps.first?.text.contains("frame 3's bytes (the first to arrive) were kept, frame 4's dropped")
        == true)
    #expect(overlaps.last?.text.contains("stream bytes 5..<6 (sequence 105..<106)") == true)
    #expect(overlaps.last?.text.contains("frame 2's bytes") == true)
  }

  /// Identical retransmissions and overlaps say nothing, nor does a
  /// keep-alive's one garbage byte before the next (RFC 9293 §3.8.4).
  @Test func identicalOverlapsAreQuiet() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(Self.tcp(sequence: 99, flags: Packets.syn))
    file.add(Self.tcp(sequence: 100, payload: "abcdef".bytes))
    file.add(Self.tcp(sequence: 108, payload: "ijkl".bytes))
    file.add(Self.tcp(sequence: 103, payload: "defghijk".bytes))
    file.add(Self.tcp(sequence: 100, payload: "abcdef".bytes))
    file.add(Self.tcp(sequence: 111, payload: [0]))
    let decoded = try Self.decodeFile(file.write())
    #expect(decoded.events.stream(.clientToServer) == "abcdefghijkl".bytes)
    #expect(decoded.events.notices(.segmentOverlap).isEmpty)
  }

  static let datagram = Packets.udp(payload: [UInt8]((0..<96).map { UInt8($0) }))  // 104 bytes

  /// IPv4 (RFC 791 lets overlaps through): bytes 40..<80 again in frame 3
  /// with 48..<56 changed; the first copy is kept and the conflict named.
  @Test func ipv4FragmentsThatDisagreeAreNamed() throws {
    var changed = Array(Self.datagram[40..<80])
    for index in 8..<16 { changed[index] ^= 0xFF }
    var file = PcapBuilder(linkType: 1)
    for (offset, data, more) in [
      (0, Array(Self.datagram[0..<40]), true), (40, Array(Self.datagram[40..<80]), true), (40, changed, true),
      (80, Array(Self.datagram[80...]), false),
    ] {
      file.add(
        Packets.ethernet(
          type: 0x0800,
          Packets.ipv4(
            protocol: 17, payload: data, identification: 7, moreFragments: more, fragmentOffset: offset)))
    }
    let decoded = try Self.decodeFile(file.write())
    #expect(decoded.events.datagrams.map(\.payload) == [Array(Self.datagram[8...])])
    #expect(decoded.events.datagrams.first?.codes == ["fragment-conflict"])
  }

  /// IPv6: overlapping fragments drop the datagram (RFC 5722); an exact
  /// duplicate does not (RFC 8200 §4.5).
  @Test func ipv6OverlapDropsTheDatagramButDuplicatesDoNot() throws {
    let datagram = Packets.udp(
      source: Packets.hostA6, destination: Packets.hostB6, payload: [UInt8](repeating: 0x55, count: 56))
    func fragment(_ offset: Int, _ data: ArraySlice<UInt8>, more: Bool, id: UInt32) -> [UInt8] {
      Packets.ethernet(
        type: 0x86DD,
        Packets.ipv6(
          nextHeader: 44,
          payload: Packets.fragmentHeader(nextHeader: 17, offset: offset, more: more, identification: id)
            + Array(data)))
    }
    var file = PcapBuilder(linkType: 1)
    file.add(fragment(0, datagram[0..<32], more: true, id: 1))
    file.add(fragment(24, datagram[24..<64], more: false, id: 1))
    file.add(fragment(0, datagram[0..<32], more: true, id: 2))
    file.add(fragment(0, datagram[0..<32], more: true, id: 2))
    file.add(fragment(32, datagram[32..<64], more: false, id: 2))
    let decoded = try Self.decodeFile(file.write())
    let drops = decoded.events.notices(.fragmentsDropped)
    #expect(drops.map(\.frame) == [1])
    #expect(drops.map(\.reason) == ["overlap"])
    #expect(drops.first?.text.contains("frame 2's fragment overlaps frame 1's at bytes 24..<32") == true)
    #expect(decoded.events.datagrams.map(\.payload) == [[UInt8](repeating: 0x55, count: 56)])
  }

  // MARK: 6. WebSocket lengths

  /// A server frame claiming 2⁶³ − 1 bytes: reported, and the frames after
  /// it decode (it used to swallow the rest of the direction).
  @Test func absurdWebSocketLengthResynchronises() throws {
    var recorder = try WebSocketRecorder.upgraded()
    try recorder.feed(hex: "82 7F 7F FF FF FF FF FF FF FF", .serverToClient)
    for _ in 0..<2 { try recorder.feed(hex: "81 02 6f 6b", .serverToClient) }
    recorder.finish(.serverToClient)
    #expect(recorder.errorCodes == ["message-too-large"])
    #expect(recorder.messages.map(\.text) == ["ok", "ok"])
  }

  // MARK: 7. Where damage is

  /// A record header claiming 4 GB after two good records: the offset is
  /// that header's, 24 + 2 × (16 + the frame's length), not past it.
  @Test func pcapDamageOffsetIsTheBadRecordHeader() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(PcapFileReaderTests.udpFrame)
    file.add(PcapFileReaderTests.udpFrame)
    let bad = 24 + 2 * (16 + PcapFileReaderTests.udpFrame.count)
    let bytes =
      file.bytes + le32(1) + le32(0) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF)
      + [UInt8](repeating: 0, count: 32)
    let decoded = try Self.decodeFile(TemporaryFile.write(bytes, suffix: ".pcap"))
    guard case .damaged(2, let offset, _) = decoded.end else {
      Issue.record("expected damage after record 2, got \(decoded.end)")
      return
    }
    #expect(offset == bad)
  }

  @Test func pcapTruncatedRecordHeaderOffsetIsItsStart() throws {
    var file = PcapBuilder(linkType: 1)
    file.add(PcapFileReaderTests.udpFrame)
    let bytes = file.bytes + [1, 2, 3, 4, 5]
    let decoded = try Self.decodeFile(TemporaryFile.write(bytes, suffix: ".pcap"))
    guard case .damaged(1, let offset, _) = decoded.end else {
      Issue.record("expected damage after record 1, got \(decoded.end)")
      return
    }
    #expect(offset == 24 + 16 + PcapFileReaderTests.udpFrame.count)
  }

  /// A pcapng block whose length is not a multiple of 4: the offset is the
  /// block's, where the SHB, IDB and EPB before it end.
  @Test func pcapngDamageOffsetIsTheBadBlock() throws {
    var file = PcapngBuilder()
    file.interface(linkType: 1)
    file.packet(interface: 0, PcapFileReaderTests.udpFrame)
    let bad = file.bytes.count
    let bytes = file.bytes + le32(6) + le32(4099) + [UInt8](repeating: 0, count: 64)
    let decoded = try Self.decodeFile(TemporaryFile.write(bytes, suffix: ".pcapng"))
    guard case .damaged(1, let offset, let reason) = decoded.end else {
      Issue.record("expected damage after record 1, got \(decoded.end)")
      return
    }
    #expect(offset == bad)
    #expect(reason.contains("multiple of 4"))
  }
}
