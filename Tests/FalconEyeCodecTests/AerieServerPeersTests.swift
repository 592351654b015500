import FalconEyeCodec
import Foundation
import PacketKit
import Testing

/// The Aerie server model fed by several WebSockets at once, no sockets:
/// its state is kept by the path's deviceId (docs/protocols.md §5, recording
/// `overlap-close-old`), each socket's own story (timer, replies) by the
/// socket. The events name the socket they concern.
@Suite struct AerieServerPeersTests {
  static let server = "127.0.0.1:8000"
  static let a = "127.0.0.1:37992"
  static let b = "127.0.0.1:37994"
  static let other = "127.0.0.1:40000"
  static let device = "3C9E7A51-2B44-4D0E-9F6A-0A1B2C3D4E5F"
  static let start = 1_795_829_500.0

  struct Server {
    var model: any DeviceModel
    var events: [DeviceEvent] = []
    var frame = 0

    init(_ mode: ModelMode, _ settings: ModelSettings = [:]) throws {
      model = try FalconEyeCodec().makeModel(mode: mode, settings: settings)
    }

    @discardableResult
    mutating func feed(_ message: FlowMessage, _ heading: Heading) -> [DeviceEvent] {
      var made: [DeviceEvent] = []
      if let deadline = model.nextDeadline, deadline <= message.time {
        made += model.advance(to: message.time)
      }
      made += model.take(message, heading: heading)
      events += made
      return made
    }

    mutating func next() -> Int {
      frame += 1
      return frame
    }

    /// A socket's handshake (its path names the device) and the 101.
    mutating func connect(_ client: String, device: String, at offset: Double) {
      let time = AerieServerPeersTests.start + offset
      feed(
        FlowMessage(
          frame: next(), time: time, source: client, destination: AerieServerPeersTests.server,
          transport: "websocket",
          event: (
            "ws.handshake",
            [.init("path", .string("/ws/connect/\(device)")), .init("deviceId", .string(device))]
          )),
        .toDevice)
      feed(
        FlowMessage(
          frame: next(), time: time + 0.001, source: AerieServerPeersTests.server, destination: client,
          transport: "websocket", event: ("ws.accept", [.init("status", .integer(101))])), .fromDevice)
    }

    @discardableResult
    mutating func send(_ bytes: [UInt8], from client: String, at offset: Double) -> DeviceEvent? {
      feed(
        FlowMessage(
          frame: next(), time: AerieServerPeersTests.start + offset, source: client,
          destination: AerieServerPeersTests.server, transport: "websocket", codec: "falconeye",
          result: FalconEyeCodec().decodeFrame(bytes), payload: bytes), .toDevice
      ).last
    }

    mutating func close(_ client: String, at offset: Double) {
      feed(
        FlowMessage(
          frame: next(), time: AerieServerPeersTests.start + offset, source: client,
          destination: AerieServerPeersTests.server, transport: "websocket",
          event: ("ws.close", [.init("by", .string("client")), .init("code", .integer(1000))])), .toDevice)
    }
  }

  static func sentSessionId(_ event: DeviceEvent?) -> String? {
    guard case .send(let bytes)? = event?.replies.first else { return nil }
    return AerieVectors.inner(bytes)?["sessionId"] as? String
  }

  static func outcome(_ event: DeviceEvent?) -> String { event?.name ?? "none" }

  /// The recording's story, played on the emulated server: what each
  /// socket's messages get, and which socket each answer goes to.
  @Test func oneDeviceIdOverTwoSocketsSharesOneEntryAndOneSession() throws {
    var server = try Server(.emulation, ["seed": "5"])
    let frame = AerieHarness.cameraFrame()
    server.connect(Self.a, device: Self.device, at: 0)
    let first = server.send(AerieHarness.auth(), from: Self.a, at: 0.5)
    let session = try #require(Self.sentSessionId(first))
    #expect(Self.outcome(server.send(frame, from: Self.a, at: 0.6)) == "frame_accepted")
    // b's 101 replaces the device's entry, unauthenticated: a is refused too.
    server.connect(Self.b, device: Self.device, at: 1.0)
    let refused = server.send(frame, from: Self.a, at: 1.1)
    #expect(Self.outcome(refused) == "error_report")
    #expect(refused?.peer == Self.a, "the answer goes to the socket that asked")
    // b's authRequest reuses the device's session and authenticates both.
    let reused = server.send(AerieHarness.auth(), from: Self.b, at: 1.2)
    #expect(Self.sentSessionId(reused) == session)
    #expect(reused?.peer == Self.b)
    #expect(Self.outcome(server.send(frame, from: Self.a, at: 1.3)) == "frame_accepted")
    #expect(Self.outcome(server.send(frame, from: Self.b, at: 1.4)) == "frame_accepted")
    // a closes: the device's entry goes, its session is revoked; b is refused, its heartbeat answered.
    server.close(Self.a, at: 1.5)
    #expect(Self.outcome(server.send(frame, from: Self.b, at: 1.6)) == "error_report")
    #expect(Self.outcome(server.send(AerieHarness.heartbeat(), from: Self.b, at: 1.7)) == "pong")
    // A new session for b's next authRequest, yet no entry to mark: still refused.
    let renewed = server.send(AerieHarness.auth(), from: Self.b, at: 1.8)
    let second = try #require(Self.sentSessionId(renewed))
    #expect(second != session)
    #expect(Self.outcome(server.send(frame, from: Self.b, at: 1.9)) == "error_report")
    #expect(server.events.allSatisfy { $0.peer == Self.a || $0.peer == Self.b })
  }

  /// Another device's socket shares nothing with them.
  @Test func anotherDeviceIdIsAnotherEntry() throws {
    var server = try Server(.emulation)
    let frame = AerieHarness.cameraFrame()
    server.connect(Self.a, device: Self.device, at: 0)
    server.send(AerieHarness.auth(), from: Self.a, at: 0.5)
    server.connect(Self.other, device: "OTHER-DEVICE", at: 1.0)
    #expect(Self.outcome(server.send(frame, from: Self.a, at: 1.1)) == "frame_accepted")
    #expect(Self.outcome(server.send(frame, from: Self.other, at: 1.2)) == "error_report")
    server.close(Self.other, at: 1.3)
    #expect(Self.outcome(server.send(frame, from: Self.a, at: 1.4)) == "frame_accepted")
  }

  /// Each socket's 10 s timer checks its device's entry: the older,
  /// authenticated socket is closed with 1008 when a newer one has not
  /// authenticated by then; the newer one's own timer fires after that.
  @Test func anAuthenticatedSocketIsClosedWhenANewerOneHasNotAuthenticated() throws {
    var server = try Server(.emulation)
    server.connect(Self.a, device: Self.device, at: 0)
    server.send(AerieHarness.auth(), from: Self.a, at: 0.5)
    server.connect(Self.b, device: Self.device, at: 5)
    server.feed(
      FlowMessage(
        frame: nil, time: Self.start + 10.5, source: Self.b, destination: Self.server, transport: "websocket",
        event: ("ws.ping", [])), .toDevice)
    let closes = server.events.filter { $0.name == "closed_1008" }
    #expect(closes.map(\.peer) == [Self.a])
    #expect(closes.first?.replies == [.close(code: 1008, reason: "")])
  }

  /// Analysis: the server's own replies on two sockets agree with the one
  /// model; a frame on the older socket right after the newer one's 101 is
  /// predicted refused, with no mismatch when the server refuses it.
  @Test func analysisPredictsTheRefusalAfterAnotherSocketsHandshake() throws {
    var server = try Server(.analysis)
    server.connect(Self.a, device: Self.device, at: 0)
    server.send(AerieHarness.auth(), from: Self.a, at: 0.5)
    server.feed(
      FlowMessage(
        frame: server.next(), time: Self.start + 0.51, source: Self.server, destination: Self.a,
        transport: "websocket", codec: "falconeye",
        result: FalconEyeCodec().decodeFrame(Array(Vectors.realAuthResponse.utf8)),
        payload: Array(Vectors.realAuthResponse.utf8)), .fromDevice)
    server.connect(Self.b, device: Self.device, at: 1.0)
    let predicted = server.send(AerieHarness.cameraFrame(), from: Self.a, at: 1.5)
    #expect(predicted?.name == "error_report")
    #expect(predicted?.certain == true)
    let reply = Array(AerieVectors.notAuthenticated.utf8)
    server.feed(
      FlowMessage(
        frame: server.next(), time: Self.start + 1.501, source: Self.server, destination: Self.a,
        transport: "websocket", codec: "falconeye", result: FalconEyeCodec().decodeFrame(reply),
        payload: reply),
      .fromDevice)
    #expect(server.events.allSatisfy { $0.mismatch == nil }, "\(server.events.compactMap(\.mismatch))")
  }
}
