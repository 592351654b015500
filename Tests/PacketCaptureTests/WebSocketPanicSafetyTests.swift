import PacketCapture
import PacketKit
import Testing

/// Random mixtures of good frames, junk and gaps: the decoder never traps,
/// and its events still do not depend on how the bytes were chunked.
@Suite struct WebSocketPanicSafetyTests {
  typealias Step = WebSocketReassemblyTests.Step

  /// A direction's worth of frames and junk, with an occasional gap.
  static func randomSteps(
    _ direction: WebSocketDirection, using random: inout SplitMix64
  ) throws -> [Step] {
    let masked = direction == .clientToServer
    var steps: [Step] = []
    var run: [UInt8] = []
    for _ in 0..<Int.random(in: 5...30, using: &random) {
      let mask: [UInt8]? = masked ? (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) } : nil
      switch Int.random(in: 0..<10, using: &random) {
      case 0, 1:
        let size = Int.random(in: 0...300, using: &random)
        run += WebSocketSamples.frame(opcode: 1, Array(String(repeating: "é", count: size).utf8), mask: mask)
      case 2:
        let size = Int.random(in: 0...2000, using: &random)
        run += WebSocketSamples.frame(
          opcode: 2, (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }, mask: mask)
      case 3:
        run += WebSocketSamples.frame(opcode: 1, Array("frag".utf8), fin: false, mask: mask)
        run += WebSocketSamples.frame(opcode: 9, [1, 2], mask: mask)
        run += WebSocketSamples.frame(opcode: 0, Array("ment".utf8), mask: mask)
      case 4:
        // "Hello" compressed (RFC 7692 §7.2.3.1), or a small zero stream.
        let hello = try Hex.parse("f2 48 cd c9 c9 07 00")
        let body = Bool.random(using: &random) ? hello : WebSocketSamples.zeroBomb(repeats: 40)
        run += WebSocketSamples.frame(opcode: 1, body, rsv: 4, mask: mask)
      case 5:
        run += (0..<Int.random(in: 1...200, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        }
      case 6:
        let code = UInt16.random(in: 990...1020, using: &random)
        run += WebSocketSamples.frame(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF), 0xC3], mask: mask)
      case 7:
        steps.append(.bytes(run, direction))
        steps.append(.gap(direction))
        run = []
      default:
        run += WebSocketSamples.frame(opcode: 10, [], mask: mask)
      }
    }
    steps.append(.bytes(run, direction))
    steps.append(.finish(direction))
    return steps
  }

  @Test(arguments: UInt64(1)...40)
  func randomMixturesDecodeTheSameHoweverChunked(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let (request, response) = WebSocketSamples.handshake(
      offer: "permessage-deflate", accept: "permessage-deflate")
    var steps: [Step] = [.bytes(request, .clientToServer), .bytes(response, .serverToClient)]
    steps += try Self.randomSteps(.serverToClient, using: &random)
    steps += try Self.randomSteps(.clientToServer, using: &random)
    let events = WebSocketReassemblyTests.checkChunkingDoesNotMatter(steps)
    #expect(events.count >= 2)
  }

  @Test(arguments: UInt64(1)...20)
  func pureJunkNeverTraps(seed: UInt64) {
    for missing in [nil, 0, -5, 1, 1000, Int.max] as [Int?] {
      Self.junkNeverTraps(seed: seed, missing: missing)
    }
  }

  /// Lost-byte counts as absurd as the headers: exact skipping must not trap either.
  @Test func absurdGapCountsInsideAnAbsurdFrame() {
    for upgraded in [false, true] {
      var stream = WebSocketStream()
      if upgraded { stream.assumeUpgraded() }
      var count = 0
      // A binary frame claiming 2^62 bytes, then gaps that fit in it and one that does not.
      let header: [UInt8] = [0x82, 0x7F, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2]
      for missing in [Int.max / 2, Int.max / 2, Int.max, Int.max] {
        header.withUnsafeBytes {
          stream.feed($0, direction: .serverToClient, frame: 1, time: 0) { _ in count += 1 }
        }
        stream.gap(direction: .serverToClient, frame: 2, time: 0, missingBytes: missing) { _ in count += 1 }
      }
      stream.finish(direction: .serverToClient, frame: 3, time: 0) { _ in count += 1 }
      #expect(count > 0)
    }
  }

  static func junkNeverTraps(seed: UInt64, missing: Int?) {
    var random = SplitMix64(seed: seed)
    let junk = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
    var limits = WebSocketLimits.default
    limits.maxMessageBytes = Int.random(in: 0...5000, using: &random)
    limits.maxDecompressedBytes = Int.random(in: 0...5000, using: &random)
    limits.maxHandshakeBytes = Int.random(in: 4...600, using: &random)
    for upgraded in [false, true] {
      var stream = WebSocketStream(limits: limits)
      if upgraded { stream.assumeUpgraded(deflate: true) }
      var count = 0
      for direction in [WebSocketDirection.clientToServer, .serverToClient] {
        junk.withUnsafeBytes { stream.feed($0, direction: direction, frame: 1, time: 0) { _ in count += 1 } }
        stream.gap(direction: direction, frame: 2, time: 0, missingBytes: missing) { _ in count += 1 }
        junk.withUnsafeBytes { stream.feed($0, direction: direction, frame: 3, time: 0) { _ in count += 1 } }
        stream.finish(direction: direction, frame: 4, time: 0) { _ in count += 1 }
      }
      #expect(count > 0)
    }
  }

  @Test func resynchronisesAfterAGapInsideMaskedRandomPayload() throws {
    var random = SplitMix64(seed: 99)
    var recorder = try WebSocketRecorder.upgraded()
    let mask: [UInt8] = [0x11, 0x22, 0x33, 0x44]
    let noise = (0..<30000).map { _ in UInt8.random(in: 0...255, using: &random) }
    let big = WebSocketSamples.frame(opcode: 2, noise, mask: mask)
    recorder.feed(Array(big[0..<5000]), .clientToServer)
    recorder.gap(.clientToServer)
    var after = Array(big[9000...])
    for word in ["one", "two", "three"] {
      after += WebSocketSamples.frame(opcode: 1, Array(word.utf8), mask: mask)
    }
    recorder.feed(after, .clientToServer)
    recorder.finish(.clientToServer)
    #expect(recorder.errorCodes == ["gap"])
    #expect(recorder.messages.map(\.text) == ["one", "two", "three"])
  }
}
