import PacketCapture
import Testing

/// TCP through the whole decoder: connection table, directions, closes, bounds.
@Suite struct TCPConnectionTests {
  /// An IPv4 packet 10.0.0.1:40000 ↔ 10.0.0.2:8000 (`fromClient` picks the direction).
  static func packet(
    fromClient: Bool = true, sequence: UInt32, flags: UInt8 = Packets.ack, payload: [UInt8] = [],
    clientPort: UInt16 = 40_000
  ) -> [UInt8] {
    let segment = Packets.tcp(
      sourcePort: fromClient ? clientPort : 8000, destinationPort: fromClient ? 8000 : clientPort,
      sequence: sequence, flags: flags, payload: payload)
    return Packets.ipv4(
      source: fromClient ? Packets.hostA : Packets.hostB,
      destination: fromClient ? Packets.hostB : Packets.hostA,
      protocol: 6, payload: segment)
  }

  static let handshakeAndClose: [[UInt8]] = [
    packet(sequence: 100, flags: Packets.syn),
    packet(fromClient: false, sequence: 500, flags: Packets.syn | Packets.ack),
    packet(sequence: 101, payload: "GET /".bytes),
    packet(fromClient: false, sequence: 501, payload: "200 OK".bytes),
    packet(sequence: 106, flags: Packets.fin | Packets.ack),
    packet(fromClient: false, sequence: 507, flags: Packets.fin | Packets.ack),
    packet(sequence: 107, flags: Packets.ack),
  ]

  @Test func handshakeDataAndFIN() {
    let events = decodeAll(Self.handshakeAndClose, linkType: 228)
    #expect(
      events == [
        .opened(client: "10.0.0.1:40000", server: "10.0.0.2:8000", frame: 1),
        .data(.clientToServer, frame: 3, bytes: "GET /".bytes),
        .data(.serverToClient, frame: 4, bytes: "200 OK".bytes),
        .closed(frame: 6, reason: "fin"),
      ])
  }

  @Test func resetCloses() {
    let events = decodeAll(
      [
        Self.packet(sequence: 100, flags: Packets.syn),
        Self.packet(sequence: 101, payload: "abc".bytes),
        Self.packet(fromClient: false, sequence: 9, flags: Packets.rst),
      ], linkType: 228)
    #expect(events.last == .closed(frame: 3, reason: "rst"))
    #expect(events.stream(.clientToServer) == "abc".bytes)
  }

  @Test func midStreamClientIsTheFirstSender() {
    let events = decodeAll(
      [
        Self.packet(fromClient: false, sequence: 7000, payload: "late".bytes),
        Self.packet(sequence: 3000, payload: "reply".bytes),
      ], linkType: 228)
    #expect(events.first == .opened(client: "10.0.0.2:8000", server: "10.0.0.1:40000", frame: 1))
    #expect(events.stream(.clientToServer) == "late".bytes)
    #expect(events.stream(.serverToClient) == "reply".bytes)
    #expect(events.last == .closed(frame: 2, reason: "end of capture"))
  }

  @Test func synAckSenderIsTheServer() {
    let events = decodeAll(Array(Self.handshakeAndClose.dropFirst()), linkType: 228)
    #expect(events.first == .opened(client: "10.0.0.1:40000", server: "10.0.0.2:8000", frame: 1))
    #expect(events.stream(.clientToServer) == "GET /".bytes)
  }

  @Test func pureAcksDoNotOpenConnections() {
    #expect(
      decodeAll([Self.packet(sequence: 1), Self.packet(fromClient: false, sequence: 2)], linkType: 228)
        .isEmpty)
  }

  @Test func segmentsAfterCloseDoNotReopen() {
    let retransmission = Self.packet(sequence: 101, payload: "GET /".bytes)
    let events = decodeAll(Self.handshakeAndClose + [retransmission], linkType: 228)
    #expect(events.filter { if case .opened = $0 { true } else { false } }.count == 1)
    #expect(events.stream(.clientToServer) == "GET /".bytes)
  }

  @Test func newSYNAfterCloseOpensAgain() {
    let again = [
      Self.packet(sequence: 9000, flags: Packets.syn), Self.packet(sequence: 9001, payload: "x".bytes),
    ]
    let events = decodeAll(Self.handshakeAndClose + again, linkType: 228)
    #expect(events.filter { if case .opened = $0 { true } else { false } }.count == 2)
    #expect(events.stream(.clientToServer) == "GET /x".bytes)
  }

  @Test func lostSegmentIsOneGapAtTheEnd() {
    let events = decodeAll(
      [
        Self.packet(sequence: 100, flags: Packets.syn),
        Self.packet(sequence: 101, payload: "aaaa".bytes),
        // 105..<109 lost
        Self.packet(sequence: 109, payload: "cccc".bytes),
      ], linkType: 228)
    #expect(events.gaps == [4])
    #expect(events.stream(.clientToServer) == "aaaacccc".bytes)
    #expect(events.contains(.gap(.clientToServer, frame: 3, missing: 4)))
  }

  @Test func idleConnectionsCloseInCaptureTime() {
    let limits = CaptureLimits(idleTimeout: 10)
    let events = decodeAll(
      [
        Self.packet(sequence: 100, payload: "a".bytes),
        Self.packet(sequence: 100, payload: "b".bytes, clientPort: 40_001),
      ], linkType: 228, times: [0, 100], limits: limits, finish: false)
    #expect(events.contains(.closed(frame: 1, reason: "idle")))
  }

  @Test func connectionTableIsBounded() {
    let limits = CaptureLimits(maxConnections: 4)
    let decoder = PacketDecoder(limits: limits)
    var closed = 0
    var peak = 0
    for index in 0..<20 {
      Self.packet(sequence: 1, payload: "x".bytes, clientPort: UInt16(41_000 + index)).withUnsafeBytes {
        bytes in
        decoder.decode(CaptureRecord(frame: index + 1, time: Double(index), linkType: 228, data: bytes)) {
          event in
          if case .streamClosed(_, _, _, "evicted") = event { closed += 1 }
        }
      }
      peak = max(peak, decoder.openConnections)
    }
    #expect(peak <= 4)
    #expect(closed >= 16)
  }

  @Test func totalBufferIsBoundedAcrossConnections() {
    let limits = CaptureLimits(maxBufferedBytesPerDirection: 1 << 20, maxBufferedBytesTotal: 32 * 1024)
    let decoder = PacketDecoder(limits: limits)
    var peak = 0
    var frame = 0
    let chunk = [UInt8](repeating: 1, count: 1000)
    for connection in 0..<10 {
      let port = UInt16(42_000 + connection)
      for index in 0..<20 {
        frame += 1
        // The first segment of each connection opens it; the rest leave a hole at 2000.
        let sequence: UInt32 = index == 0 ? 1000 : UInt32(3000 + index * 1000)
        Self.packet(sequence: sequence, payload: chunk, clientPort: port).withUnsafeBytes { bytes in
          decoder.decode(CaptureRecord(frame: frame, time: 0, linkType: 228, data: bytes)) { _ in }
        }
        peak = max(peak, decoder.bufferedBytes)
      }
    }
    #expect(peak <= 32 * 1024)
  }

  @Test func portReuseWithANewSYNStartsANewConnection() {
    let events = decodeAll(
      [
        Self.packet(sequence: 100, flags: Packets.syn),
        Self.packet(sequence: 101, payload: "old".bytes),
        Self.packet(sequence: 90_000, flags: Packets.syn),
        Self.packet(sequence: 90_001, payload: "new".bytes),
      ], linkType: 228)
    #expect(events.contains(.closed(frame: 3, reason: "port reuse")))
    #expect(events.stream(.clientToServer) == "oldnew".bytes)
  }

  @Test func portReuseAfterAMidStreamConnection() {
    let events = decodeAll(
      [
        Self.packet(fromClient: false, sequence: 5000, payload: "mid".bytes),
        Self.packet(sequence: 100, flags: Packets.syn),
        Self.packet(sequence: 101, payload: "new".bytes),
      ], linkType: 228)
    #expect(
      events == [
        .opened(client: "10.0.0.2:8000", server: "10.0.0.1:40000", frame: 1),
        .data(.clientToServer, frame: 1, bytes: "mid".bytes),
        .closed(frame: 2, reason: "port reuse"),
        .opened(client: "10.0.0.1:40000", server: "10.0.0.2:8000", frame: 2),
        .data(.clientToServer, frame: 3, bytes: "new".bytes),
        .closed(frame: 3, reason: "end of capture"),
      ])
  }

  @Test func retransmittedSYNIsTheSameConnection() {
    let events = decodeAll(
      [
        Self.packet(sequence: 100, flags: Packets.syn),
        Self.packet(sequence: 100, flags: Packets.syn),
        Self.packet(sequence: 101, payload: "abc".bytes),
      ], linkType: 228)
    #expect(events.filter { if case .opened = $0 { true } else { false } }.count == 1)
    #expect(events.stream(.clientToServer) == "abc".bytes)
  }

  @Test func damagedTCPHeader() {
    var segment = Packets.tcp(sequence: 1, payload: "x".bytes)
    segment[12] = 0x20  // data offset 8 bytes
    let events = decodeAll([Packets.ipv4(protocol: 6, payload: segment)], linkType: 228)
    #expect(
      events == [
        .damaged(frame: 1, layer: "tcp", offset: 32, text: "TCP data offset 8 at offset 32; expected ≥ 20")
      ])
  }
}
