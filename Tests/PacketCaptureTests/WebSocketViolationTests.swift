import PacketCapture
import PacketKit
import Testing

/// Every protocol violation is an event or a diagnostic that names where it
/// was found, and decoding goes on.
@Suite struct WebSocketViolationTests {
  let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

  func codes(
    _ bytes: [UInt8], _ direction: WebSocketDirection, extensions: String? = nil
  ) throws -> WebSocketRecorder {
    var recorder = try WebSocketRecorder.upgraded(extensions: extensions)
    recorder.feed(bytes, direction)
    return recorder
  }

  @Test func unmaskedClientFrame() throws {
    let recorder = try codes(try Hex.parse("81 05 48 65 6c 6c 6f"), .clientToServer)
    #expect(recorder.errorCodes == ["unmasked-client-frame"])
    #expect(recorder.errors.first?.text.contains("client→server stream offset") == true)
    #expect(recorder.messages.map(\.text) == ["Hello"])
  }

  @Test func maskedServerFrame() throws {
    let recorder = try codes(try Hex.parse("81 85 37 fa 21 3d 7f 9f 4d 51 58"), .serverToClient)
    #expect(recorder.errorCodes == ["masked-server-frame"])
    #expect(recorder.messages.map(\.text) == ["Hello"])
  }

  @Test func errorNamesTheStreamOffset() throws {
    var recorder = try WebSocketRecorder.upgraded()
    // The handshake response is 129 bytes; two good frames of 7 bytes follow.
    let responseLength = WebSocketSamples.handshake(offer: nil, accept: nil).response.count
    try recorder.feed(
      hex: "81 05 48 65 6c 6c 6f 81 05 48 65 6c 6c 6f 81 85 37 fa 21 3d 7f 9f 4d 51 58", .serverToClient)
    #expect(
      recorder.errors.first?.text.hasSuffix("(server→client stream offset \(responseLength + 14))") == true)
  }

  @Test func reservedBitsWithoutExtension() throws {
    let rsv1 = try codes(WebSocketSamples.frame(opcode: 1, Array("Hi".utf8), rsv: 4), .serverToClient)
    #expect(rsv1.errorCodes == ["bad-rsv"])
    #expect(rsv1.messages.map(\.text) == ["Hi"])
    let rsv2 = try codes(WebSocketSamples.frame(opcode: 1, Array("Hi".utf8), rsv: 2), .serverToClient)
    #expect(rsv2.errorCodes == ["bad-rsv"])
    let rsv3 = try codes(WebSocketSamples.frame(opcode: 1, Array("Hi".utf8), rsv: 1), .serverToClient)
    #expect(rsv3.errorCodes == ["bad-rsv"])
  }

  @Test func rsv1OnContinuationAndControl() throws {
    let deflate = "permessage-deflate"
    let continuation = try codes(
      try Hex.parse("41 03 f2 48 cd") + (try Hex.parse("c0 04 c9 c9 07 00")), .serverToClient,
      extensions: deflate)
    #expect(continuation.errorCodes == ["rsv1-on-continuation"])
    #expect(continuation.messages.map(\.text) == ["Hello"])
    let control = try codes(
      WebSocketSamples.frame(opcode: 9, [], rsv: 4), .serverToClient, extensions: deflate)
    #expect(control.errorCodes == ["rsv1-on-control"])
  }

  @Test func controlFrameRules() throws {
    let long = try codes(
      WebSocketSamples.frame(opcode: 9, [UInt8](repeating: 1, count: 126)), .serverToClient)
    #expect(long.errorCodes == ["control-too-long"])
    #expect(long.controls.isEmpty)
    let fragmented = try codes(WebSocketSamples.frame(opcode: 9, [1], fin: false), .serverToClient)
    #expect(fragmented.errorCodes == ["fragmented-control"])
    #expect(fragmented.controls == [.ping([1])])
  }

  @Test func continuationWithoutStart() throws {
    var recorder = try codes(try Hex.parse("80 02 6c 6f"), .serverToClient)
    #expect(recorder.errorCodes == ["orphan-continuation"])
    try recorder.feed(hex: "81 02 6f 6b", .serverToClient)
    #expect(recorder.messages.map(\.text) == ["ok"])
  }

  @Test func newMessageWhileFragmentedMessageOpen() throws {
    let recorder = try codes(try Hex.parse("01 03 48 65 6c 81 02 6f 6b"), .serverToClient)
    #expect(recorder.errorCodes == ["unfinished-message"])
    #expect(recorder.messages.map(\.text) == ["ok"])
  }

  @Test func topBitOf64BitLength() throws {
    var recorder = try codes(try Hex.parse("82 7F 80 00 00 00 00 00 00 05 01 02 03 04 05"), .serverToClient)
    #expect(recorder.errorCodes == ["bad-length"])
    // Decoding picks up again at the next plausible header.
    try recorder.feed(hex: "81 02 6f 6b 81 02 6f 6b", .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.messages.map(\.text) == ["ok", "ok"])
  }

  @Test func reservedOpcode() throws {
    var recorder = try codes(try Hex.parse("83 00 81 02 6f 6b 82 00"), .serverToClient)
    // The frames after the bad header are believed once the stream ends.
    recorder.finish(.serverToClient)
    #expect(recorder.errorCodes == ["reserved-opcode"])
    #expect(recorder.messages.map(\.text) == ["ok", ""])
  }

  @Test func nonMinimalLength() throws {
    let recorder = try codes(
      WebSocketSamples.frame(opcode: 1, Array("Hi".utf8), lengthForm: 16), .serverToClient)
    #expect(recorder.errorCodes == ["non-minimal-length"])
    #expect(recorder.messages.map(\.text) == ["Hi"])
    let wide = try codes(WebSocketSamples.frame(opcode: 2, [1, 2, 3], lengthForm: 64), .serverToClient)
    #expect(wide.errorCodes == ["non-minimal-length"])
  }

  @Test(arguments: [
    ("41 42 ff 43", 2),  // 0xFF never appears in UTF-8
    ("41 c0 80", 1),  // overlong NUL
    ("e0 80 80", 0),  // overlong three-byte form
    ("41 41 ed a0 80", 2),  // a UTF-16 surrogate
    ("f4 90 80 80", 0),  // past U+10FFFF
    ("48 65 e2 82", 2),  // cut short at the end
    ("80", 0),  // a lone continuation byte
  ])
  func badUTF8IsADiagnosticWithItsOffset(hex: String, offset: Int) throws {
    let payload = try Hex.parse(hex)
    let recorder = try codes(WebSocketSamples.frame(opcode: 1, payload, mask: mask), .clientToServer)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(message.payload == payload)
    #expect(message.diagnostics.map(\.code) == ["bad-utf8"])
    #expect(message.diagnostics.first?.range == offset..<(offset + 1))
    #expect(message.diagnostics.first?.text.contains("byte \(offset)") == true)
  }

  @Test func utf8SplitAcrossFragmentsIsValid() throws {
    // "✓" is E2 9C 93; the fragment boundary falls inside it.
    let recorder = try codes(try Hex.parse("01 02 41 e2 80 02 9c 93"), .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.first?.text == "A✓")
    #expect(recorder.messages.first?.diagnostics.isEmpty == true)
  }

  @Test func binaryMessagesAreNotCheckedForUTF8() throws {
    let recorder = try codes(try Hex.parse("82 02 ff fe"), .serverToClient)
    #expect(recorder.messages.first?.diagnostics.isEmpty == true)
  }

  @Test(arguments: [UInt16(999), 1004, 1005, 1006, 1015, 1016, 2999, 5000, 0])
  func invalidCloseCodes(code: UInt16) throws {
    let recorder = try codes(
      WebSocketSamples.frame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)]), .serverToClient)
    #expect(recorder.errorCodes == ["bad-close-code"])
    #expect(recorder.controls == [.close(code: code, reason: "")])
  }

  @Test func closeBodyOfOneByte() throws {
    let recorder = try codes(try Hex.parse("88 01 03"), .serverToClient)
    #expect(recorder.errorCodes == ["bad-close-payload"])
    #expect(recorder.controls == [.close(code: nil, reason: "")])
  }

  @Test func closeReasonMustBeUTF8() throws {
    let recorder = try codes(try Hex.parse("88 04 03 e8 41 ff"), .serverToClient)
    #expect(recorder.errorCodes == ["bad-close-reason"])
    #expect(recorder.errors.first?.text.contains("byte 1 of the reason") == true)
  }

  @Test func framesAfterClose() throws {
    let recorder = try codes(try Hex.parse("88 02 03 e8 81 02 6f 6b"), .serverToClient)
    #expect(recorder.errorCodes == ["frame-after-close"])
    #expect(recorder.messages.map(\.text) == ["ok"])
  }

  @Test func corruptDeflateData() throws {
    let recorder = try codes(
      try Hex.parse("c1 03 ff ff ff"), .serverToClient, extensions: "permessage-deflate")
    #expect(recorder.errorCodes == ["bad-deflate"])
    #expect(recorder.messages.isEmpty)
  }

  @Test func deflateCutShort() throws {
    // The first three bytes of "Hello" compressed: a block that never ends.
    let recorder = try codes(
      try Hex.parse("c1 03 f2 48 cd"), .serverToClient, extensions: "permessage-deflate")
    #expect(recorder.errorCodes == ["bad-deflate"])
  }

  @Test func streamEndingMidMessage() throws {
    var recorder = try codes(try Hex.parse("01 03 48 65 6c 80 05 6c"), .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.errorCodes == ["truncated-message"])
    var frame = try codes(try Hex.parse("89 05 48"), .serverToClient)
    frame.finish(.serverToClient)
    #expect(frame.errorCodes == ["truncated-frame"])
  }

  @Test func handshakeViolations() throws {
    var notHTTP = WebSocketRecorder()
    notHTTP.feed(Array("hello there\r\n\r\n".utf8), .clientToServer)
    #expect(notHTTP.errorCodes == ["bad-handshake"])

    var plainGet = WebSocketRecorder()
    plainGet.feed(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8), .clientToServer)
    #expect(plainGet.errorCodes == ["not-upgrade"])
    #expect(plainGet.stream.handshake == nil)

    var noKey = WebSocketRecorder()
    noKey.feed(
      Array(
        "GET /ws/connect/d HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n\r\n"
          .utf8),
      .clientToServer)
    #expect(noKey.errorCodes == ["bad-handshake", "bad-handshake"])
    #expect(WebSocketTarget.segment(after: "/ws/connect/", in: noKey.stream.handshake?.path ?? "") == "d")

    var badStatus = WebSocketRecorder()
    badStatus.feed(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8), .serverToClient)
    #expect(badStatus.errorCodes == ["bad-handshake"])

    var unoffered = WebSocketRecorder()
    let (request, response) = WebSocketSamples.handshake(
      offer: nil, accept: "permessage-deflate; server_max_window_bits=20")
    unoffered.feed(request, .clientToServer)
    unoffered.feed(response, .serverToClient)
    #expect(unoffered.errorCodes == ["bad-extension", "bad-extension"])

    var cut = WebSocketRecorder()
    cut.feed(Array("GET /ws/connect/d HTTP/1.1\r\nHost".utf8), .clientToServer)
    cut.finish(.clientToServer)
    #expect(cut.errorCodes == ["truncated-handshake"])
  }

  @Test(arguments: [1, 7, 1000])
  func earlyClientDataIsBounded(chunk: Int) throws {
    var limits = WebSocketLimits.default
    limits.maxMessageBytes = 50
    var recorder = WebSocketRecorder(limits: limits)
    let (request, response) = WebSocketSamples.handshake(offer: nil, accept: nil)
    recorder.feed(request, .clientToServer)
    // Sent before the 101: a small frame that is kept, then one that passes the bound.
    let early =
      WebSocketSamples.frame(opcode: 1, Array("first".utf8), mask: mask)
      + WebSocketSamples.frame(opcode: 2, [UInt8](repeating: 9, count: 45), mask: mask)
    for start in stride(from: 0, to: early.count, by: chunk) {
      recorder.feed(Array(early[start..<min(start + chunk, early.count)]), .clientToServer)
    }
    #expect(recorder.errorCodes == ["early-data-too-large"])
    #expect(recorder.errors.first?.text.hasSuffix("stream offset \(request.count + 50))") == true)
    recorder.feed(response, .serverToClient)
    // The bytes past the bound are a gap: decoding resynchronises on what follows.
    for _ in 0..<2 {
      recorder.feed(WebSocketSamples.frame(opcode: 1, Array("ok".utf8), mask: mask), .clientToServer)
    }
    recorder.finish(.clientToServer)
    #expect(recorder.errorCodes == ["early-data-too-large", "gap"])
    #expect(recorder.messages.map(\.text) == ["first", "ok", "ok"])
  }
}
