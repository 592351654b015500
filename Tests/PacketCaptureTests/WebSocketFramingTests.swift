import PacketCapture
import PacketKit
import Testing

/// The examples of RFC 6455 §5.7, and what a decoder does with lengths,
/// fragments and control frames.
@Suite struct WebSocketFramingTests {
  @Test func singleFrameUnmaskedText() throws {
    var recorder = try WebSocketRecorder.upgraded()
    try recorder.feed(hex: "81 05 48 65 6c 6c 6f", .serverToClient, frame: 7)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(recorder.messages.count == 1)
    #expect(message.text == "Hello")
    #expect(message.isText)
    #expect(message.direction == .serverToClient)
    #expect(message.fragments == 1)
    #expect(message.wireBytes == 7)
    #expect(!message.wasCompressed)
    #expect(message.firstFrame == 7 && message.lastFrame == 7)
    #expect(message.diagnostics.isEmpty)
  }

  @Test func singleFrameMaskedText() throws {
    var recorder = try WebSocketRecorder.upgraded()
    try recorder.feed(hex: "81 85 37 fa 21 3d 7f 9f 4d 51 58", .clientToServer)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.text) == ["Hello"])
    #expect(recorder.messages.first?.direction == .clientToServer)
    #expect(recorder.messages.first?.wireBytes == 11)
  }

  @Test func fragmentedUnmaskedText() throws {
    var recorder = try WebSocketRecorder.upgraded()
    try recorder.feed(hex: "01 03 48 65 6c", .serverToClient, frame: 3)
    #expect(recorder.messages.isEmpty)
    try recorder.feed(hex: "80 02 6c 6f", .serverToClient, frame: 4)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(message.text == "Hello")
    #expect(message.fragments == 2)
    #expect(message.wireBytes == 9)
    #expect(message.firstFrame == 3)
    #expect(message.lastFrame == 4)
  }

  @Test func unmaskedPingAndMaskedPong() throws {
    var recorder = try WebSocketRecorder.upgraded()
    try recorder.feed(hex: "89 05 48 65 6c 6c 6f", .serverToClient, frame: 5)
    try recorder.feed(hex: "8a 85 37 fa 21 3d 7f 9f 4d 51 58", .clientToServer, frame: 6)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.controls == [.ping(Array("Hello".utf8)), .pong(Array("Hello".utf8))])
    #expect(
      recorder.events.first
        == .control(.ping(Array("Hello".utf8)), direction: .serverToClient, frame: 5, time: 0))
  }

  @Test func binary256BytesUses16BitLength() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let payload = (0..<256).map { UInt8($0 & 0xFF) }
    recorder.feed(try Hex.parse("82 7E 01 00") + payload, .serverToClient)
    #expect(recorder.errors.isEmpty)
    let message = try #require(recorder.messages.first)
    #expect(!message.isText)
    #expect(message.payload == payload)
    #expect(message.wireBytes == 4 + 256)
  }

  @Test func binary64KiBUses64BitLength() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let payload = (0..<65536).map { UInt8(($0 * 7) & 0xFF) }
    recorder.feed(try Hex.parse("82 7F 00 00 00 00 00 01 00 00") + payload, .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.first?.payload == payload)
    #expect(recorder.messages.first?.wireBytes == 10 + 65536)
  }

  @Test func maskedLengthFormsAllDecode() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let mask: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
    let sizes = [0, 1, 125, 126, 127, 65535, 65536, 70001]
    func payload(_ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 * 31 + size) } }
    for size in sizes {
      recorder.feed(WebSocketSamples.frame(opcode: 2, payload(size), mask: mask), .clientToServer)
    }
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.payload) == sizes.map(payload))
  }

  @Test func pingInsideFragmentedMessage() throws {
    var recorder = try WebSocketRecorder.upgraded()
    try recorder.feed(hex: "01 03 48 65 6c", .serverToClient, frame: 1)
    try recorder.feed(hex: "89 02 68 69", .serverToClient, frame: 2)
    try recorder.feed(hex: "00 01 6c", .serverToClient, frame: 3)
    try recorder.feed(hex: "8a 00", .serverToClient, frame: 4)
    try recorder.feed(hex: "80 01 6f", .serverToClient, frame: 5)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.controls == [.ping([0x68, 0x69]), .pong([])])
    let message = try #require(recorder.messages.first)
    #expect(message.text == "Hello")
    #expect(message.fragments == 3)
    #expect(message.firstFrame == 1)
    #expect(message.lastFrame == 5)
    // Controls come out when they end, before the message they interrupt.
    #expect(recorder.events.firstIndex { $0.message != nil } == 2)
  }

  @Test func messageSpanningManyChunksStartsWhereItsFirstByteWas() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let mask: [UInt8] = [1, 2, 3, 4]
    let first = WebSocketSamples.frame(opcode: 1, Array("A".utf8), mask: mask)
    let body = Array(String(repeating: "0123456789", count: 300).utf8)
    let second =
      WebSocketSamples.frame(opcode: 1, Array(body[0..<1000]), fin: false, mask: mask)
      + WebSocketSamples.frame(opcode: 0, Array(body[1000...]), mask: mask)
    // Frame 10 carries message A and the first byte of message B.
    recorder.feed(first + [second[0]], .clientToServer, frame: 10, time: 10.5)
    var cursor = 1
    var frame = 11
    while cursor < second.count {
      let end = min(cursor + 700, second.count)
      recorder.feed(Array(second[cursor..<end]), .clientToServer, frame: frame, time: Double(frame))
      cursor = end
      frame += 1
    }
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.count == 2)
    let message = try #require(recorder.messages.last)
    #expect(message.payload == body)
    #expect(message.firstFrame == 10)
    #expect(message.time == 10.5)
    #expect(message.lastFrame == frame - 1)
    #expect(message.fragments == 2)
    #expect(message.wireBytes == second.count)
  }

  @Test func closeWithCodeAndReason() throws {
    var recorder = try WebSocketRecorder.upgraded()
    // struct.pack("!H", 1000) + b"bye"
    try recorder.feed(hex: "88 05 03 e8 62 79 65", .serverToClient)
    try recorder.feed(hex: "88 80 00 00 00 00", .clientToServer)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.controls == [.close(code: 1000, reason: "bye"), .close(code: nil, reason: "")])
  }

  @Test func validCloseCodesPass() throws {
    for code: UInt16 in [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999] {
      var recorder = try WebSocketRecorder.upgraded()
      recorder.feed(
        WebSocketSamples.frame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)]), .serverToClient)
      #expect(recorder.errors.isEmpty, "code \(code)")
      #expect(recorder.controls == [.close(code: code, reason: "")])
    }
  }
}
