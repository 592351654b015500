import PacketCapture
import PacketKit
import Testing

/// TCP gaps of known size. Inside a frame whose header gave its length, the
/// lost bytes are skipped exactly: the message that lost them comes out
/// marked incomplete and the frames after it decode in step, with no
/// resynchronisation. Anywhere else the decoder resynchronises as before.
@Suite struct WebSocketGapTests {
  static let mask: [UInt8] = [0x5A, 0xC3, 0x0F, 0x99]
  /// 3,750 bytes of ASCII, so any cut of it is still text.
  static let big = Array(String(repeating: #"{"k":"0123456789abcdef"},"#, count: 150).utf8)

  static func text(_ payload: [UInt8], _ direction: WebSocketDirection, fin: Bool = true, opcode: UInt8 = 1)
    -> [UInt8]
  {
    WebSocketSamples.frame(
      opcode: opcode, payload, fin: fin, mask: direction == .clientToServer ? mask : nil)
  }

  /// Feeds `lead` at frame 3, then `wire` as TCP delivers it with `lost`
  /// missing: the bytes before the hole at frame 4, the gap at frame 5, the
  /// bytes after it at frame 6 in chunks of `chunk`.
  static func feed(
    _ recorder: inout WebSocketRecorder, lead: [UInt8], _ wire: [UInt8], losing lost: Range<Int>,
    _ direction: WebSocketDirection, chunk: Int = .max
  ) {
    recorder.feed(lead, direction, frame: 3)
    recorder.feed(Array(wire[..<lost.lowerBound]), direction, frame: 4)
    recorder.gap(direction, frame: 5, missing: lost.count)
    var index = lost.upperBound
    while index < wire.count {
      let end = index + min(chunk, wire.count - index)
      recorder.feed(Array(wire[index..<end]), direction, frame: 6)
      index = end
    }
  }

  static let directions: [WebSocketDirection] = [.clientToServer, .serverToClient]

  @Test(arguments: directions, [1, 7, 1000, Int.max])
  func holeInsideALargeFrame(direction: WebSocketDirection, chunk: Int) throws {
    var recorder = try WebSocketRecorder.upgraded()
    let large = Self.text(Self.big, direction)
    let header = large.count - Self.big.count  // 4, or 8 with the mask key
    let wire = large + Self.text(Array("after".utf8), direction)
    // 701: not a multiple of 4, so a mask index that did not run on would show.
    let lost = (header + 1001)..<(header + 1702)
    Self.feed(
      &recorder, lead: Self.text(Array("first".utf8), direction), wire, losing: lost, direction, chunk: chunk)
    #expect(recorder.errors.isEmpty, "\(recorder.errors)")
    #expect(recorder.messages.map(\.missingBytes) == [0, 701, 0])
    let damaged = try #require(recorder.messages.dropFirst().first)
    // The bytes after the hole unmask with the key index they had on the wire.
    #expect(damaged.payload == Array(Self.big[..<1001] + Self.big[1702...]))
    #expect(damaged.holes == [WebSocketMessage.Hole(offset: 1001, count: 701, frame: 5)])
    #expect(damaged.firstFrame == 4 && damaged.lastFrame == 6)
    #expect(damaged.isText && !damaged.wasCompressed && !damaged.isComplete)
    #expect(damaged.wireBytes == large.count)
    #expect(recorder.messages.map(\.text).last == "after")
    #expect(recorder.messages.first?.firstFrame == 3)
  }

  @Test(arguments: directions)
  func holeEndingWithTheFrame(direction: WebSocketDirection) throws {
    var recorder = try WebSocketRecorder.upgraded()
    let large = Self.text(Self.big, direction)
    let wire = large + Self.text(Array("after".utf8), direction)
    Self.feed(&recorder, lead: [], wire, losing: (large.count - 300)..<large.count, direction)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.missingBytes) == [300, 0])
    // Its last byte was lost: the gap's record is where it ended.
    #expect(recorder.messages.first?.lastFrame == 5)
    #expect(recorder.messages.first?.payload == Array(Self.big.dropLast(300)))
    #expect(recorder.messages.last?.text == "after")
  }

  @Test(arguments: directions)
  func holeInALaterFragment(direction: WebSocketDirection) throws {
    var recorder = try WebSocketRecorder.upgraded()
    let head = Array("fragment one;".utf8)
    let first = Self.text(head, direction, fin: false)
    let second = Self.text(Self.big, direction, opcode: 0)
    let secondHeader = second.count - Self.big.count
    let wire = first + second + Self.text(Array("after".utf8), direction)
    let start = first.count + secondHeader + 10
    Self.feed(&recorder, lead: [], wire, losing: start..<(start + 21), direction)
    #expect(recorder.errors.isEmpty)
    let damaged = try #require(recorder.messages.first)
    #expect(damaged.fragments == 2)
    #expect(damaged.holes.map(\.offset) == [head.count + 10])
    #expect(damaged.payload == head + Self.big[..<10] + Self.big[31...])
    #expect(recorder.messages.map(\.text).last == "after")
  }

  @Test func twoHolesInOneMessage() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let large = Self.text(Self.big, .serverToClient)
    recorder.feed(Array(large[..<100]), .serverToClient, frame: 2)
    recorder.gap(.serverToClient, frame: 3, missing: 50)
    recorder.feed(Array(large[150..<400]), .serverToClient, frame: 4)
    recorder.gap(.serverToClient, frame: 5, missing: 100)
    recorder.feed(Array(large[500...]), .serverToClient, frame: 6)
    #expect(recorder.errors.isEmpty)
    let damaged = try #require(recorder.messages.first)
    #expect(damaged.missingBytes == 150)
    #expect(
      damaged.holes == [
        WebSocketMessage.Hole(offset: 96, count: 50, frame: 3),
        WebSocketMessage.Hole(offset: 346, count: 100, frame: 5),
      ])
  }

  // MARK: permessage-deflate

  /// 300 bytes standing for deflate data: a message that lost bytes is not inflated.
  static let compressedStandIn = (0..<300).map { UInt8(($0 * 7 + 3) & 0xFF) }

  @Test func compressedServerMessageWithContextTakeover() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    let compressed = WebSocketSamples.frame(opcode: 1, Self.compressedStandIn, rsv: 4)
    // RFC 7692 §7.2.3.2: "Hello", then "Hello" again as a back-reference to it.
    let hello = try Hex.parse("c1 07 f2 48 cd c9 c9 07 00")
    let helloAgain = try Hex.parse("c1 05 f2 00 11 00 00")
    let wire = compressed + helloAgain + hello
    Self.feed(&recorder, lead: hello, wire, losing: 104..<154, .serverToClient)
    let damaged = try #require(recorder.messages.dropFirst().first)
    #expect(damaged.wasCompressed && damaged.missingBytes == 50)
    #expect(damaged.payload == Array(Self.compressedStandIn[..<100] + Self.compressedStandIn[150...]))
    // The back-reference cannot be resolved; the framing holds, and a
    // message with no back-reference still inflates.
    #expect(recorder.messages.map(\.text).last == "Hello")
    #expect(recorder.messages.count == 3)
    #expect(recorder.errorCodes == ["deflate-history-lost", "bad-deflate"])
  }

  @Test func compressedServerMessageWithoutContextTakeover() throws {
    var recorder = try WebSocketRecorder.upgraded(
      extensions: "permessage-deflate; server_no_context_takeover")
    let compressed = WebSocketSamples.frame(opcode: 1, Self.compressedStandIn, rsv: 4)
    let hello = try Hex.parse("c1 07 f2 48 cd c9 c9 07 00")
    Self.feed(&recorder, lead: hello, compressed + hello, losing: 104..<154, .serverToClient)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.missingBytes) == [0, 50, 0])
    #expect(recorder.messages.map(\.text).last == "Hello")
  }

  @Test func compressedClientMessagesLoseHistoryOnce() throws {
    var recorder = try WebSocketRecorder.upgraded(extensions: "permessage-deflate")
    let compressed = WebSocketSamples.frame(opcode: 1, Self.compressedStandIn, rsv: 4, mask: Self.mask)
    let python = try Hex.parse(PythonZlibSample.frame)
    // Two damaged compressed messages, with a self-contained one between them.
    Self.feed(&recorder, lead: [], compressed + python, losing: 108..<158, .clientToServer)
    Self.feed(&recorder, lead: [], compressed, losing: 8..<10, .clientToServer)
    #expect(recorder.messages.map(\.missingBytes) == [50, 0, 2])
    #expect(recorder.messages.map(\.wasCompressed) == [true, true, true])
    #expect(
      recorder.messages.first?.payload
        == Array(Self.compressedStandIn[..<100] + Self.compressedStandIn[150...]))
    #expect(recorder.messages.dropFirst().first?.text == PythonZlibSample.text)
    #expect(recorder.errorCodes == ["deflate-history-lost"])
  }

  // MARK: Where exact skipping does not apply

  @Test func controlFrameWithAHoleIsDroppedButTheFramingHolds() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let ping = WebSocketSamples.frame(opcode: 9, [UInt8](repeating: 0x70, count: 100))
    Self.feed(
      &recorder, lead: [], ping + Self.text(Array("after".utf8), .serverToClient), losing: 20..<30,
      .serverToClient)
    #expect(recorder.controls.isEmpty)
    #expect(recorder.errorCodes == ["gap"])
    #expect(recorder.errors.first?.text.contains("framing kept") == true)
    #expect(recorder.messages.map(\.text) == ["after"])
  }

  /// Small frames after the damage, so the resynchronisation has a chain to find.
  static func tail(_ direction: WebSocketDirection) -> [UInt8] {
    ["c", "d", "e", "f", "g"].flatMap { Self.text(Array($0.utf8), direction) }
  }

  /// Where the count gives no frame boundary, a gap of known size decodes
  /// exactly as one of unknown size (the same codes and messages).
  @Test(arguments: directions, ["spanning", "between", "header"])
  func outsideAKnownFrameResynchronisesAsBefore(direction: WebSocketDirection, place: String) throws {
    let first = Self.text(Array("message a".utf8), direction)
    let second = Self.text(Array("message b".utf8), direction)
    let wire = first + second + Self.tail(direction)
    let lost: Range<Int> =
      switch place {
      case "spanning": (first.count - 3)..<(first.count + 4)  // the end of a and b's header
      case "between": first.count..<(first.count + second.count)  // all of b
      default: (first.count + 1)..<(first.count + 2)  // inside b's header
      }
    var counted = try WebSocketRecorder.upgraded()
    Self.feed(&counted, lead: [], wire, losing: lost, direction)
    counted.finish(direction)
    var uncounted = try WebSocketRecorder.upgraded()
    uncounted.feed(Array(wire[..<lost.lowerBound]), direction, frame: 4)
    uncounted.gap(direction, frame: 5)
    uncounted.feed(Array(wire[lost.upperBound...]), direction, frame: 6)
    uncounted.finish(direction)
    #expect(counted.errorCodes.first == "gap")
    #expect(counted.errorCodes == uncounted.errorCodes)
    #expect(counted.messages == uncounted.messages)
    #expect(counted.messages.allSatisfy { $0.isComplete })
    #expect(counted.messages.map(\.text).suffix(5) == ["c", "d", "e", "f", "g"])
    #expect(counted.errors.first?.text.hasPrefix("\(lost.count) bytes were lost") == true)
  }

  @Test func holeLongerThanTheRestOfTheFrameResynchronises() throws {
    var recorder = try WebSocketRecorder.upgraded()
    let large = Self.text(Self.big, .serverToClient)
    let wire = large + Self.tail(.serverToClient)
    Self.feed(&recorder, lead: [], wire, losing: 100..<(large.count + 3), .serverToClient)
    recorder.finish(.serverToClient)
    #expect(recorder.errorCodes == ["gap"])
    #expect(recorder.errors.first?.text.contains("is dropped") == true)
    #expect(recorder.messages.map(\.text) == ["d", "e", "f", "g"])
  }

  @Test func clientHoleBeforeTheServerAnswersIsSkippedOnReplay() throws {
    var recorder = WebSocketRecorder()
    let (request, response) = WebSocketSamples.handshake(offer: nil, accept: nil)
    let large = Self.text(Self.big, .clientToServer)
    let wire = request + large + Self.text(Array("after".utf8), .clientToServer)
    let lost = (request.count + 500)..<(request.count + 600)
    Self.feed(&recorder, lead: [], wire, losing: lost, .clientToServer)
    #expect(recorder.messages.isEmpty, "held until the server answers")
    recorder.feed(response, .serverToClient, frame: 7)
    #expect(recorder.errors.isEmpty)
    #expect(recorder.messages.map(\.missingBytes) == [100, 0])
    #expect(recorder.messages.last?.text == "after")
  }
}
