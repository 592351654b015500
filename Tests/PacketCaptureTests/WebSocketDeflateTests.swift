import PacketCapture
import PacketKit
import Testing

/// permessage-deflate (RFC 7692): the examples of §7.2.3, context takeover,
/// and a message compressed by Python's zlib.
@Suite struct WebSocketDeflateTests {
  @Test func compressedHello() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(message.text == "Hello")
    #expect(message.wasCompressed)
    #expect(message.wireBytes == 9)
  }

  @Test func contextTakeoverRefersToThePreviousMessage() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    try recorder.feed(hex: "c1 05 f2 00 11 00 00", .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.text) == ["Hello", "Hello"])
  }

  /// A message longer than the 32 KiB window, then one that refers to its
  /// last bytes (history is the end of the first, not its start: there it
  /// would read as B's). Compressed by Python's zlib:
  ///
  ///     comp = zlib.compressobj(6, zlib.DEFLATED, -15)
  ///     first = b'A' * 20000 + b'B' * 25000 + b'the end of the first message: pose 0.25 1.5 -3.75'
  ///     second = b'the end of the first message: pose 0.25 1.5 -3.75'
  ///     d1 = (comp.compress(first) + comp.flush(zlib.Z_SYNC_FLUSH))[:-4]
  ///     d2 = (comp.compress(second) + comp.flush(zlib.Z_SYNC_FLUSH))[:-4]
  @Test func contextTakeoverAfterAMessageLongerThanTheWindow() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(
      hex: "c172ecc6510a82401400c0abbc0bb868b108fed94d829ed64729adf727ba45d0ccd7cc33000000000000000000"
        + "00000000000000000000bfe0020000000000000000000000000000000000000000000000f0278e7b46be6eb12d"
        + "f1edf278b7239ed9da75cd29f6ad65f4e554632835ba7319eb07",
      .serverToClient)
    try recorder.feed(hex: "c10422590300", .serverToClient)
    #expect(recorder.errors.isEmpty)
    let end = "the end of the first message: pose 0.25 1.5 -3.75"
    let first = String(repeating: "A", count: 20000) + String(repeating: "B", count: 25000) + end
    #expect(recorder.messages.map(\.text) == [first, end])
  }

  @Test func noContextTakeoverResetsEachMessage() throws {
    var recorder = try WebSocketRecorder.upgraded(
      extensions: "permessage-deflate; server_no_context_takeover")
    #expect(recorder.stream.deflate?.serverNoContextTakeover == true)
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.text) == ["Hello", "Hello"])
  }

  @Test func noContextTakeoverMeansNoHistoryToReferTo() throws {
    // The context-takeover second message needs the first as history; a
    // receiver that resets per message must refuse it rather than guess.
    var recorder = try WebSocketRecorder.upgraded(
      extensions: "permessage-deflate; server_no_context_takeover")
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    try recorder.feed(hex: "c1 05 f2 00 11 00 00", .serverToClient)
    #expect(recorder.messages.map(\.text) == ["Hello"])
    #expect(recorder.errorCodes == ["bad-deflate"])
  }

  @Test func contextTakeoverIsPerDirection() throws {
    var recorder = try WebSocketRecorder.upgraded(
      extensions: "permessage-deflate; client_no_context_takeover")
    #expect(recorder.stream.deflate?.clientNoContextTakeover == true)
    #expect(recorder.stream.deflate?.serverNoContextTakeover == false)
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    try recorder.feed(hex: "c1 05 f2 00 11 00 00", .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.count == 2)
  }

  @Test func otherRFC7692Layouts() throws {
    var recorder = try WebSocketRecorder.upgraded(
      extensions: "permessage-deflate; server_no_context_takeover")
    // §7.2.3.3 a stored (uncompressed) block; §7.2.3.4 BFINAL set; §7.2.3.5 two blocks.
    try recorder.feed(hex: "c1 0b 00 05 00 fa ff 48 65 6c 6c 6f 00", .serverToClient)
    try recorder.feed(hex: "c1 08 f3 48 cd c9 c9 07 00 00", .serverToClient)
    try recorder.feed(hex: "c1 0d f2 48 05 00 00 00 ff ff ca c9 c9 07 00", .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.text) == ["Hello", "Hello", "Hello"])
  }

  @Test func fragmentedCompressedMessage() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(hex: "41 03 f2 48 cd", .serverToClient, frame: 8)
    try recorder.feed(hex: "80 04 c9 c9 07 00", .serverToClient, frame: 9)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(message.text == "Hello")
    #expect(message.wasCompressed)
    #expect(message.fragments == 2)
    #expect(message.firstFrame == 8 && message.lastFrame == 9)
  }

  @Test func uncompressedMessageOnDeflateConnection() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(hex: "81 05 48 65 6c 6c 6f", .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.first?.wasCompressed == false)
    #expect(recorder.messages.first?.text == "Hello")
  }

  /// A masked client message compressed by Python's zlib, framed by hand:
  ///
  ///     import zlib, struct
  ///     comp = zlib.compressobj(6, zlib.DEFLATED, -15)
  ///     text = b'{"type":"authRequest","timestamp":1700000000,"payload":"eyJkZXZpY2VJZCI6IkhTLTAxIn0="}'
  ///     data = (comp.compress(text) + comp.flush(zlib.Z_SYNC_FLUSH))[:-4]
  ///     mask = bytes([0x12, 0x34, 0x56, 0x78])
  ///     frame = bytes([0xC1, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
  ///     print(frame.hex())
  @Test func pythonZlibClientMessage() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    try recorder.feed(
      hex: "c1d012345678b8627cd13e7c03ca407e7a55db3c1c553e797b5643e60752dbf8534a00475decbe389b75b27411d1"
        + "3285645f2d0553d02e818453291e74d232e67eb439fe8fabde076d5bd61392c9d00799b8449d4078",
      .clientToServer)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(message.direction == .clientToServer)
    #expect(message.wasCompressed)
    #expect(
      message.text
        == #"{"type":"authRequest","timestamp":1700000000,"payload":"eyJkZXZpY2VJZCI6IkhTLTAxIn0="}"#)
  }

  @Test func handWrittenZeroStreamInflatesExactly() throws {
    // Checks the test's own bomb generator against zlib before relying on it.
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    recorder.feed(
      WebSocketSamples.frame(opcode: 2, WebSocketSamples.zeroBomb(repeats: 3), rsv: 4), .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.first?.payload == [UInt8](repeating: 0, count: 1 + 3 * 258))
  }
}

/// Resource limits: nothing a peer claims makes the decoder allocate past them.
@Suite struct WebSocketResourceExhaustionTests {
  /// 64 KiB of zeros in 79 bytes:
  ///
  ///     import zlib
  ///     c = zlib.compressobj(9, zlib.DEFLATED, -15)
  ///     print((c.compress(bytes(65536)) + c.flush(zlib.Z_SYNC_FLUSH))[:-4].hex())
  static let zeros64KiB =
    "ecc101010000008090feafee080a000000000000000000000000000000000000000000000000000000000000000000"
    + "0000000000000000000000000000000000000000000000000000000000006a00"

  @Test func deflateBombStopsAtTheLimit() throws {
    var limits = WebSocketLimits.default
    limits.maxDecompressedBytes = 1000
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate", limits: limits)
    recorder.feed(WebSocketSamples.frame(opcode: 2, try Hex.parse(Self.zeros64KiB), rsv: 4), .serverToClient)
    #expect(recorder.messages.isEmpty)
    #expect(recorder.errorCodes == ["decompressed-too-large"])
  }

  @Test func bombPastTheDefaultLimitStops() throws {
    // 1 + 258 * 66000 bytes ≈ 16.2 MiB > 16 MiB, from about 105 KB on the wire.
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    let bomb = WebSocketSamples.zeroBomb(repeats: 66000)
    #expect(bomb.count < 120_000)
    recorder.feed(WebSocketSamples.frame(opcode: 2, bomb, rsv: 4), .serverToClient)
    #expect(recorder.messages.isEmpty)
    #expect(recorder.errorCodes == ["decompressed-too-large"])
    // The stream goes on: the next message decodes (from fresh history).
    try recorder.feed(hex: "c1 07 f2 48 cd c9 c9 07 00", .serverToClient)
    #expect(recorder.messages.map(\.text) == ["Hello"])
  }

  @Test func oversizeLengthIsAnErrorNotAnAllocation() throws {
    var recorder = try WebSocketRecorder.upgraded()
    // A 1 TiB binary frame: only the header arrives, and the error is at once.
    try recorder.feed(hex: "82 7F 00 00 01 00 00 00 00 00", .serverToClient)
    #expect(recorder.errorCodes == ["message-too-large"])
    let offset = WebSocketSamples.handshake(offer: nil, accept: nil).response.count
    #expect(recorder.errors.first?.text.hasSuffix("stream offset \(offset))") == true)
  }

  /// A frame longer than any message accepted is damage: decoding
  /// resynchronises after its header rather than trust its length.
  @Test func oversizeFrameIsDamageAndDecodingGoesOn() throws {
    var limits = WebSocketLimits.default
    limits.maxMessageBytes = 100
    var recorder = try WebSocketRecorder.upgraded(limits: limits)
    recorder.feed(WebSocketSamples.frame(opcode: 2, [UInt8](repeating: 7, count: 101)), .serverToClient)
    try recorder.feed(hex: "81 02 6f 6b", .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.errorCodes == ["message-too-large"])
    #expect(recorder.messages.map(\.text) == ["ok"])
  }

  @Test func fragmentsAddingUpPastTheLimit() throws {
    var limits = WebSocketLimits.default
    limits.maxMessageBytes = 100
    var recorder = try WebSocketRecorder.upgraded(limits: limits)
    let sixty = [UInt8](repeating: 0x61, count: 60)
    recorder.feed(WebSocketSamples.frame(opcode: 1, sixty, fin: false), .serverToClient)
    recorder.feed(WebSocketSamples.frame(opcode: 0, sixty, fin: false), .serverToClient)
    recorder.feed(WebSocketSamples.frame(opcode: 0, sixty), .serverToClient)
    try recorder.feed(hex: "81 02 6f 6b", .serverToClient)
    // One error for the message; its later continuation is skipped quietly.
    #expect(recorder.errorCodes == ["message-too-large"])
    #expect(recorder.messages.map(\.text) == ["ok"])
  }

  @Test func handshakeHeadIsBounded() throws {
    var limits = WebSocketLimits.default
    limits.maxHandshakeBytes = 64
    var recorder = WebSocketRecorder(limits: limits)
    recorder.feed(
      Array(("GET /ws HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: 100)).utf8), .clientToServer)
    #expect(recorder.errorCodes == ["handshake-too-large"])
    #expect(recorder.stream.handshake == nil)
  }
}
