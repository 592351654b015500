import PacketCapture
import PacketKit
import Testing

/// The NIO verifier idea: the same bytes fed whole, byte by byte and in random
/// chunks give the same events, and gaps resynchronise the same way however
/// the bytes around them were cut.
@Suite struct WebSocketReassemblyTests {
  /// One piece of a scripted connection: bytes in a direction, or lost bytes.
  enum Step {
    case bytes([UInt8], WebSocketDirection)
    case gap(WebSocketDirection)
    case finish(WebSocketDirection)
  }

  static let mask: [UInt8] = [0x5A, 0xC3, 0x0F, 0x99]

  /// A deflate connection that uses most of the protocol in both directions.
  static func busyConnection() throws -> [Step] {
    let (request, response) = WebSocketSamples.handshake(
      offer: "permessage-deflate; client_max_window_bits", accept: "permessage-deflate")
    let big = (0..<70000).map { UInt8(($0 * 13) & 0xFF) }
    let client: [UInt8] =
      request
      + (try Hex.parse("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
      + (try Hex.parse(PythonZlibSample.frame))
      + WebSocketSamples.frame(opcode: 1, Array("frag".utf8), fin: false, mask: mask)
      + WebSocketSamples.frame(opcode: 9, Array("ping".utf8), mask: mask)
      + WebSocketSamples.frame(opcode: 0, Array("mented".utf8), mask: mask)
      + WebSocketSamples.frame(opcode: 2, big, mask: mask)
      + WebSocketSamples.frame(opcode: 1, Array("bare".utf8))
      + WebSocketSamples.frame(opcode: 8, [0x03, 0xE8], mask: mask)
    let server: [UInt8] =
      response
      + (try Hex.parse("c1 07 f2 48 cd c9 c9 07 00 c1 05 f2 00 11 00 00"))
      + (try Hex.parse("41 03 f2 48 cd 8a 00 80 04 c9 c9 07 00"))
      + (try Hex.parse("82 7E 01 00")) + [UInt8](repeating: 0xEE, count: 256)
      + (try Hex.parse("81 04 41 42 ff 43 88 02 03 ed"))
    return [.bytes(client, .clientToServer), .bytes(server, .serverToClient)]
  }

  /// Server frames with a gap inside a text frame, and a deflate gap.
  static func gappyConnection() throws -> [Step] {
    let (request, response) = WebSocketSamples.handshake(
      offer: "permessage-deflate", accept: "permessage-deflate")
    let json = Array(#"{"type":"poseBroadcast","timestamp":1,"payload":"eyJwb3NlcyI6W119"}"#.utf8)
    let long = WebSocketSamples.frame(opcode: 1, json + json + json + json)
    let clientLong = WebSocketSamples.frame(opcode: 1, json + json, mask: mask)
    return [
      .bytes(request, .clientToServer),
      .bytes(response, .serverToClient),
      .bytes(try Hex.parse("81 05 48 65 6c 6c 6f") + Array(long[0..<40]), .serverToClient),
      .gap(.serverToClient),
      .bytes(
        Array(long[100...]) + WebSocketSamples.frame(opcode: 1, Array("ok".utf8))
          + (try Hex.parse("89 00 81 03 61 62 63")), .serverToClient),
      .bytes(
        WebSocketSamples.frame(opcode: 1, Array("hi".utf8), mask: mask) + clientLong[0..<30], .clientToServer),
      .gap(.clientToServer),
      .bytes(
        Array(clientLong[50...]) + WebSocketSamples.frame(opcode: 1, Array("back".utf8), mask: mask)
          + WebSocketSamples.frame(opcode: 10, [], mask: mask), .clientToServer),
      // The last frames after each gap wait for a following header or the end.
      .finish(.serverToClient),
      .finish(.clientToServer),
    ]
  }

  /// Runs `steps`, cutting each byte run into chunks of the sizes `cut` picks.
  static func run(_ steps: [Step], cut: (Int) -> Int) -> [WebSocketEvent] {
    var stream = WebSocketStream()
    var events: [WebSocketEvent] = []
    for step in steps {
      switch step {
      case .bytes(let bytes, let direction):
        var start = 0
        while start < bytes.count {
          let end = min(bytes.count, start + max(1, cut(bytes.count - start)))
          Array(bytes[start..<end]).withUnsafeBytes { chunk in
            stream.feed(chunk, direction: direction, frame: 1, time: 0) { events.append($0) }
          }
          start = end
        }
      case .gap(let direction):
        stream.gap(direction: direction, frame: 1, time: 0) { events.append($0) }
      case .finish(let direction):
        stream.finish(direction: direction, frame: 1, time: 0) { events.append($0) }
      }
    }
    return events
  }

  static func checkChunkingDoesNotMatter(_ steps: [Step]) -> [WebSocketEvent] {
    let whole = run(steps) { $0 }
    let byteByByte = run(steps) { _ in 1 }
    #expect(whole == byteByByte)
    for seed in UInt64(1)...6 {
      var random = SplitMix64(seed: seed)
      let chunked = run(steps) { remaining in Int.random(in: 1...min(remaining, 1500), using: &random) }
      #expect(whole == chunked, "seed \(seed)")
    }
    return whole
  }

  @Test func busyConnectionIsIndependentOfChunking() throws {
    let events = Self.checkChunkingDoesNotMatter(try Self.busyConnection())
    let messages = events.compactMap(\.message)
    #expect(
      messages.map(\.payload.count) == [5, PythonZlibSample.text.utf8.count, 10, 70000, 4, 5, 5, 5, 256, 4])
    #expect(messages.filter(\.wasCompressed).count == 4)
    #expect(messages[2].text == "fragmented")
    #expect(messages.last?.diagnostics.map(\.code) == ["bad-utf8"])
    #expect(events.compactMap(\.error).map(\.code) == ["unmasked-client-frame", "bad-close-code"])
    #expect(
      events.compactMap(\.control) == [
        .ping(Array("ping".utf8)), .close(code: 1000, reason: ""), .pong([]), .close(code: 1005, reason: ""),
      ])
  }

  @Test func pythonSessionIsIndependentOfChunking() throws {
    let steps: [Step] = [
      .bytes(try PythonWebSocketsSession.clientStream(), .clientToServer),
      .bytes(try PythonWebSocketsSession.serverStream(), .serverToClient),
    ]
    let events = Self.checkChunkingDoesNotMatter(steps)
    #expect(events.compactMap(\.message).count == 4)
    #expect(events.compactMap(\.error).isEmpty)
  }

  @Test func gapsResynchroniseIndependentlyOfChunking() throws {
    let events = Self.checkChunkingDoesNotMatter(try Self.gappyConnection())
    let server = events.compactMap(\.message).filter { $0.direction == .serverToClient }
    let client = events.compactMap(\.message).filter { $0.direction == .clientToServer }
    #expect(server.map(\.text) == ["Hello", "ok", "abc"])
    #expect(client.map(\.text) == ["hi", "back"])
    #expect(events.compactMap(\.control) == [.ping([]), .pong([])])
    #expect(
      events.compactMap(\.error).map(\.code) == [
        "gap", "deflate-history-lost", "gap", "deflate-history-lost",
      ])
    #expect(events.compactMap(\.error).first?.text.contains("message begun at frame") == true)
  }

  @Test func gapWithContextTakeoverLosesHistory() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    recorder.gap(.serverToClient)
    // The second "Hello" of RFC 7692 §7.2.3.2 refers back to the lost first one;
    // a message with no back-reference still inflates.
    try recorder.feed(hex: "c1 05 f2 00 11 00 00 c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.messages.map(\.text) == ["Hello", "Hello"])
    #expect(recorder.errorCodes == ["gap", "deflate-history-lost", "bad-deflate"])
    #expect(recorder.errors.last?.text.contains("history was lost") == true)
  }

  @Test func gapWithoutContextTakeoverKeepsDecoding() throws {
    var recorder = try WebSocketRecorder.upgraded(
      extensions: "permessage-deflate; server_no_context_takeover")
    try recorder.feed(hex: "c1 07 f2 48", .serverToClient)
    recorder.gap(.serverToClient)
    try recorder.feed(hex: "c9 07 00 c1 07 f2 48 cd c9 c9 07 00 c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.errorCodes == ["gap"])
    #expect(recorder.messages.map(\.text) == ["Hello", "Hello"])
  }

  @Test func framesBetweenTwoGapsAreKept() throws {
    var recorder = try WebSocketRecorder.upgraded()
    recorder.gap(.serverToClient)
    // Still waiting for their chain when the second gap comes.
    try recorder.feed(hex: "6c 6f 81 01 61 81 01 62 89 00", .serverToClient)
    #expect(recorder.messages.isEmpty)
    recorder.gap(.serverToClient)
    try recorder.feed(hex: "81 01 64", .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.messages.map(\.text) == ["a", "b", "d"])
    #expect(recorder.controls == [.ping([])])
    #expect(recorder.errorCodes == ["gap", "gap"])
  }

  @Test func lastFrameAfterGapComesOutAtTheEnd() throws {
    var recorder = try WebSocketRecorder.upgraded()
    recorder.gap(.serverToClient)
    try recorder.feed(hex: "6c 6f 81 02 6f 6b", .serverToClient)
    // Waiting for the header after it to confirm the boundary...
    #expect(recorder.messages.isEmpty)
    recorder.finish(.serverToClient)
    #expect(recorder.messages.map(\.text) == ["ok"])
  }

  @Test func lostHandshakeResponseAssumesUpgrade() throws {
    var recorder = WebSocketRecorder()
    let (request, response) = WebSocketSamples.handshake(
      offer: "permessage-deflate", accept: "permessage-deflate")
    recorder.feed(request, .clientToServer)
    recorder.feed(Array(response[0..<20]), .serverToClient)
    recorder.gap(.serverToClient)
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00 81 02 6f 6b", .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.stream.isUpgraded)
    #expect(recorder.errorCodes == ["gap"])
    #expect(recorder.messages.map(\.text) == ["Hello", "ok"])
  }
}

/// A masked client message compressed by Python's zlib (see
/// WebSocketDeflateTests.pythonZlibClientMessage for the Python).
enum PythonZlibSample {
  static let frame =
    "c1d012345678b8627cd13e7c03ca407e7a55db3c1c553e797b5643e60752dbf8534a00475decbe389b75b27411d1"
    + "3285645f2d0553d02e818453291e74d232e67eb439fe8fabde076d5bd61392c9d00799b8449d4078"
  static let text = #"{"type":"authRequest","timestamp":1700000000,"payload":"eyJkZXZpY2VJZCI6IkhTLTAxIn0="}"#
}
