import FalconEyeCodec
import Foundation
import PacketKit
import Testing

/// The Aerie server model being the server (`emulate falconeye`): its
/// replies are the envelopes the real server writes, its closes the real
/// server's codes, its session ids drawn from the seed.
@Suite struct AerieServerEmulationTests {
  func sent(_ event: DeviceEvent?) -> [UInt8]? {
    guard case .send(let bytes) = event?.replies.first else { return nil }
    return bytes
  }

  @Test func withoutTheBugsEveryMessageIsAnsweredAtOnce() throws {
    var aerie = try AerieHarness(.emulation, ["seed": "7"])
    let opened = try #require(aerie.opened().first)
    #expect(opened.state("handler") == .string("ready"))
    let auth = try #require(aerie.client(AerieHarness.auth(), at: 0.0005).first)
    #expect(auth.name == "authenticated")
    #expect(auth.certain)
    let inner = try #require(sent(auth).flatMap(AerieVectors.inner))
    #expect(inner["success"] as? Bool == true)
    let id = try #require(inner["sessionId"] as? String)
    #expect(auth.state("session_id") == .string(id))
    // As Swift's UUID().uuidString: upper-case, version 4, variant 10.
    #expect(UUID(uuidString: id) != nil)
    #expect(id == id.uppercased())
    #expect(Array(id)[14] == "4")
    #expect("89AB".contains(Array(id)[19]))
  }

  @Test func sessionIdsFollowTheSeed() throws {
    func firstId(seed: String) throws -> String? {
      var aerie = try AerieHarness(.emulation, ["seed": seed])
      aerie.opened()
      return aerie.client(AerieHarness.auth(), at: 0.5).first?.state("session_id")?.stringValue
    }
    #expect(try firstId(seed: "42") == firstId(seed: "42"))
    #expect(try firstId(seed: "42") != firstId(seed: "43"))
  }

  /// The pong is the server's own bytes: `{"pong": true}` with its space
  /// (aerie-real-session.pcap frame 27).
  @Test func thePongIsWrittenAsTheServerWritesIt() throws {
    var aerie = try AerieHarness(.emulation)
    aerie.opened()
    let pong = try #require(aerie.client(AerieHarness.heartbeat(), at: 0.5).first)
    #expect(pong.name == "pong")
    let bytes = try #require(sent(pong))
    #expect(AerieVectors.payload(bytes) == AerieVectors.pongPayload)
    let envelope = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    #expect(envelope["type"] as? String == "heartbeat")
    #expect(envelope["timestamp"] as? Double == AerieHarness.accept + 0.5)
  }

  @Test func errorReportsCarryTheServersTexts() throws {
    var aerie = try AerieHarness(.emulation)
    aerie.opened()
    let notAuthenticated = try #require(aerie.client(AerieHarness.cameraFrame(), at: 0.5).first)
    #expect(notAuthenticated.name == "error_report")
    let inner = try #require(sent(notAuthenticated).flatMap(AerieVectors.inner))
    #expect(inner["success"] as? Bool == false)
    #expect(inner["error"] as? String == AerieVectors.notAuthenticatedText)
    #expect(inner["sessionId"] == nil)
    let malformed = try #require(aerie.client(Vectors.realNotBase64, at: 0.6).first)
    #expect(sent(malformed).flatMap(AerieVectors.inner)?["error"] as? String == AerieVectors.malformedText)
    // The real server's could-not-decode report, byte for byte in its inner JSON.
    let real = try #require(AerieVectors.payload(Array(Vectors.realAuthFailure.utf8)))
    #expect(sent(malformed).flatMap(AerieVectors.payload) == real)
  }

  @Test func theAuthRaceDropsMessagesWithin30msWhenAsked() throws {
    var aerie = try AerieHarness(.emulation, ["aerie-bugs": ""])
    let opened = try #require(aerie.opened().first)
    #expect(opened.state("handler") == .string("registering"))
    let dropped = try #require(aerie.client(AerieHarness.auth(), at: 0.0034).first)
    #expect(dropped.name == "dropped")
    #expect(dropped.certain)
    #expect(dropped.replies.isEmpty)
    let handled = try #require(aerie.client(AerieHarness.auth(), at: 0.031).first)
    #expect(handled.name == "authenticated")
    #expect(handled.state("handler") == .string("ready"))
  }

  @Test(arguments: [
    (true, 16_429, "closed_1009"), (true, 11_098, "error_report"), (false, 16_429, "error_report"),
  ])
  func theFrameLimitIsVaporsOnlyWithTheBugs(bugs: Bool, size: Int, event name: String) throws {
    var aerie = try AerieHarness(.emulation, bugs ? ["aerie-bugs": "true"] : [:])
    aerie.opened()
    let event = try #require(aerie.client(AerieHarness.cameraFrame(bytes: size), at: 0.5).first)
    #expect(event.name == name)
    if name == "closed_1009" {
      #expect(event.certain)
      #expect(event.replies == [.close(code: 1009, reason: "")])
      // Nothing after the close is read.
      #expect(aerie.client(AerieHarness.heartbeat(), at: 0.6).first?.replies.isEmpty == true)
    }
  }

  @Test func anUnauthenticatedSocketIsClosedAtTheAuthTimeout() throws {
    var aerie = try AerieHarness(.emulation, ["auth-timeout": "2s"])
    aerie.opened()
    #expect(aerie.model.nextDeadline == AerieHarness.accept + 2)
    let closed = aerie.advance(to: AerieHarness.accept + 2)
    #expect(closed.map(\.name) == ["closed_1008"])
    #expect(closed.first?.certain == true)
    #expect(closed.first?.replies == [.close(code: 1008, reason: "")])
    // The driver reports the close it made: nothing new.
    #expect(aerie.close(1008, by: "server", at: 2.001).isEmpty)
  }

  @Test func authenticationStopsTheAuthTimeoutsClose() throws {
    var aerie = try AerieHarness(.emulation, ["auth-timeout": "2s"])
    aerie.opened()
    aerie.client(AerieHarness.auth(), at: 0.5)
    #expect(aerie.advance(to: AerieHarness.accept + 3).isEmpty)
  }

  /// Without a 101 from the driver, the first message opens the session.
  @Test func theFirstMessageOpensTheSessionWhenNoAcceptCame() throws {
    var aerie = try AerieHarness(.emulation)
    let pong = try #require(aerie.client(AerieHarness.heartbeat(), at: 1).first)
    #expect(pong.name == "pong")
    #expect(pong.state("session") == .string("unauthenticated"))
    #expect(aerie.model.nextDeadline == AerieHarness.accept + 11)
  }

  @Test func anExpiredSessionStaysOpenAndAReauthMakesANewOne() throws {
    var aerie = try AerieHarness(.emulation, ["session-ttl": "1m", "seed": "1"])
    aerie.opened()
    let first = try #require(
      aerie.client(AerieHarness.auth(), at: 0.5).first?.state("session_id")?.stringValue)
    // Before expiry the device's session is reused.
    let again = aerie.client(AerieHarness.auth(), at: 30).first
    #expect(again?.state("session_id") == .string(first))
    let expired = aerie.advance(to: AerieHarness.accept + 61)
    #expect(expired.map(\.name) == ["expired"])
    #expect(expired.first?.replies.isEmpty == true)
    #expect(aerie.client(AerieHarness.cameraFrame(), at: 62).first?.name == "frame_accepted")
    let renewed = try #require(aerie.client(AerieHarness.auth(), at: 63).first)
    #expect(renewed.name == "authenticated")
    #expect(renewed.state("session_id")?.stringValue != first)
    #expect(renewed.state("session") == .string("authenticated"))
  }

  @Test func theSecretIsNotedNotEnforced() throws {
    let timestamp = 1_700_000_000.5
    let token = FalconEyeAuthToken.client(deviceId: Vectors.deviceId, timestamp: timestamp, secret: "s3cret")
    var aerie = try AerieHarness(.emulation, ["secret": "s3cret"])
    aerie.opened()
    let signed = try #require(
      aerie.client(AerieHarness.auth(token: token, timestamp: timestamp), at: 0.5).first)
    #expect(signed.name == "authenticated")
    #expect(signed.text.contains("\"\(Vectors.deviceId):\(timestamp)\""))
    var other = try AerieHarness(.emulation, ["secret": "another"])
    other.opened()
    let unsigned = try #require(
      other.client(AerieHarness.auth(token: token, timestamp: timestamp), at: 0.5).first)
    #expect(unsigned.name == "authenticated")
    #expect(unsigned.text.contains("not --secret's HMAC"))
  }

  @Test func theClientsCloseEndsTheSession() throws {
    var aerie = try AerieHarness(.emulation)
    aerie.opened()
    let closed = try #require(aerie.close(1000, by: "client", at: 1).first)
    #expect(closed.name == "closed")
    #expect(closed.replies.isEmpty)
    #expect(aerie.client(AerieHarness.heartbeat(), at: 1.1).isEmpty)
    #expect(aerie.advance(to: AerieHarness.accept + 10).map(\.name) == ["auth_timeout"])
  }
}

/// The behaviour's description and its settings.
@Suite struct AerieServerSettingsTests {
  @Test func theDeviceIsTheAerieServer() {
    let device = FalconEyeCodec().device
    #expect(device.name == "Aerie server")
    #expect(device.messagesToDevice == ["authRequest", "cameraFrame"])
    #expect(device.messagesFromDevice == ["authResponse", "poseBroadcast"])
    #expect(device.listens == ["ws"])
    #expect(device.example == "falconeye --listen ws:127.0.0.1:8000")
    let flags = device.settings.map(\.flag)
    for flag in ["aerie-bugs", "auth-timeout", "session-ttl", "secret", "seed"] {
      #expect(flags.contains(flag))
    }
    #expect(device.settings.first { $0.flag == "auth-timeout" }?.defaultValue == "10s")
    #expect(device.settings.first { $0.flag == "session-ttl" }?.defaultValue == "3600s")
  }

  @Test(arguments: [
    ["auth-timeout": "0s"], ["auth-timeout": "-1"], ["auth-timeout": "soon"], ["session-ttl": "nan"],
    ["aerie-bugs": "maybe"], ["seed": "-3"], ["seed": "x"], ["secret": ""], ["checksum": "xor"],
  ])
  func wrongSettingsAreRefusedWithASentence(settings: [String: String]) {
    do {
      _ = try FalconEyeCodec().makeModel(mode: .emulation, settings: settings)
      Issue.record("\(settings) was accepted")
    } catch {
      #expect(error.text.hasPrefix("--") || error.text.hasPrefix("the Aerie server"))
      #expect(!error.text.isEmpty)
    }
  }

  @Test(arguments: [("500ms", 0.5), ("2m", 120.0), ("1h", 3600.0), ("7", 7.0), ("10s", 10.0)])
  func durationsTakeTheUsualUnits(text: String, seconds: Double) throws {
    var aerie = try AerieHarness(.emulation, ["auth-timeout": text])
    aerie.opened()
    #expect(aerie.model.nextDeadline == AerieHarness.accept + seconds)
  }

  @Test func analysisNeedsNoSettings() throws {
    _ = try FalconEyeCodec().makeModel(mode: .analysis, settings: [:])
  }
}
