import FalconEyeCodec
import PacketKit
import Testing

/// The Aerie server model reading a capture (docs/protocols.md §5 "Aerie
/// server"): the timings are the recordings' (send-vs-aerie.pcap and
/// aerie-real-session.pcap), the replies the real server's own messages.
@Suite struct AerieServerAnalysisTests {
  @Test func theSessionOpensAtThe101WithItsHandlerStillRegistering() throws {
    var aerie = try AerieHarness()
    let opened = try #require(aerie.opened().first)
    #expect(opened.name == "opened")
    #expect(opened.certain)
    #expect(opened.state("session") == .string("unauthenticated"))
    #expect(opened.state("handler") == .string("registering"))
    #expect(opened.state("session_id") == .null)
    // The auth timer is set: 10 s after the 101.
    #expect(aerie.model.nextDeadline == AerieHarness.accept + 10)
  }

  /// send-vs-aerie.pcap: authRequest 0.6 ms and heartbeat 1.1 ms after the
  /// 101 dropped; a heartbeat 500 ms later answered; its pong confirms both.
  @Test func anAuthRequestRightAfterThe101IsDroppedUncertainThenConfirmed() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let auth = try #require(aerie.client(AerieHarness.auth(), at: 0.0006).first)
    #expect(auth.name == "dropped")
    #expect(!auth.certain)
    #expect(auth.replies.isEmpty)
    let early = try #require(aerie.client(AerieHarness.heartbeat(), at: 0.0011).first)
    #expect(early.name == "dropped")
    #expect(!early.certain)
    let late = try #require(aerie.client(AerieHarness.heartbeat(), at: 0.5005).first)
    #expect(late.name == "pong")
    #expect(late.certain)
    // The server answers only the later heartbeat.
    let confirmed = aerie.server(Vectors.realPong, at: 0.5021)
    #expect(confirmed.map(\.name) == ["drop_confirmed", "drop_confirmed"])
    #expect(confirmed.map(\.frame) == [auth.frame, early.frame])
    #expect(confirmed.allSatisfy { $0.certain && $0.mismatch == nil })
    #expect(confirmed.last?.state("session") == .string("unauthenticated"))
    #expect(confirmed.last?.state("handler") == .string("ready"))
  }

  /// A heartbeat is answered on a socket that is not authenticated (the
  /// recording's pongs at frames 12 and 15 came before any authentication).
  @Test func heartbeatsAreAnsweredBeforeAuthentication() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let pong = try #require(aerie.client(AerieHarness.heartbeat(), at: 0.5).first)
    #expect(pong.name == "pong")
    #expect(pong.certain)
    #expect(pong.state("session") == .string("unauthenticated"))
    #expect(aerie.server(Vectors.realPong, at: 0.502).isEmpty)
  }

  /// The cameraFrames after the dropped authRequest get the server's
  /// notAuthenticated error report, one each (the log's three "Failed to
  /// handle message").
  @Test func cameraFramesOnAnUnauthenticatedSocketGetErrorReports() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(AerieHarness.auth(), at: 0.0006)
    aerie.client(AerieHarness.heartbeat(), at: 0.5005)
    aerie.server(Vectors.realPong, at: 0.5021)
    for index in 0..<3 {
      let sent = 1.5 + Double(index) * 0.2
      let report = try #require(aerie.client(AerieHarness.cameraFrame(), at: sent).first)
      #expect(report.name == "error_report")
      #expect(report.certain)
      #expect(report.text.contains(AerieVectors.notAuthenticatedText))
      #expect(aerie.server(AerieVectors.notAuthenticated, at: sent + 0.0017).isEmpty)
    }
    #expect(aerie.named("error_report").count == 3)
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  /// The 1008 at the auth timer confirms the drop (aerie-real-session.pcap
  /// "early": authRequest 3.4 ms after the 101, 1008 10.0046 s after it).
  @Test func theAuthTimersCloseConfirmsTheDrop() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let auth = try #require(aerie.client(AerieHarness.auth(), at: 0.0034).first)
    #expect(auth.name == "dropped")
    let closed = aerie.close(1008, by: "server", at: 10.0046)
    #expect(closed.map(\.name) == ["closed_1008", "drop_confirmed", "confirmed"])
    let timer = try #require(closed.first)
    #expect(timer.frame == nil)
    #expect(timer.time == AerieHarness.accept + 10)
    #expect(!timer.certain)
    #expect(timer.replies == [.close(code: 1008, reason: "")])
    // The server's 1008 settles both guesses: the drop and the timer's close.
    #expect(
      closed.last?.settles
        == SettledGuess(frame: nil, time: AerieHarness.accept + 10, name: "closed_1008", outcome: .confirmed))
    let confirmed = try #require(closed.first { $0.name == "drop_confirmed" })
    #expect(confirmed.settles?.name == "dropped")
    #expect(confirmed.settles?.outcome == .confirmed)
    #expect(confirmed.frame == auth.frame)
    #expect(confirmed.certain)
    #expect(confirmed.state("session") == .string("closed"))
    // The client's echo is nothing new.
    #expect(aerie.close(1008, by: "client", at: 10.0053).isEmpty)
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  /// A raced authRequest the server answers was handled after all.
  @Test func anAnsweredRacedAuthRequestWasHandled() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let dropped = try #require(aerie.client(AerieHarness.auth(), at: 0.001).first)
    #expect(dropped.name == "dropped")
    let handled = try #require(aerie.server(Vectors.realAuthResponse, at: 0.002).first)
    #expect(handled.name == "authenticated")
    #expect(handled.frame == dropped.frame)
    #expect(handled.certain)
    #expect(handled.state("session") == .string("authenticated"))
    #expect(handled.state("session_id") == .string("0227E8CC-CEA0-4640-8CBD-C63D69079895"))
    // Then camera frames are taken, with no reply owed.
    let frame = try #require(aerie.client(AerieHarness.cameraFrame(), at: 0.05).first)
    #expect(frame.name == "frame_accepted")
    #expect(frame.certain)
    #expect(frame.replies.isEmpty)
  }

  /// Between the race window and the 300 ms from which every message was
  /// handled, a message is predicted handled, but not certainly.
  @Test func aMessageBetween30And300msIsHandledUncertainly() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let auth = try #require(aerie.client(AerieHarness.auth(), at: 0.1).first)
    #expect(auth.name == "authenticated")
    #expect(!auth.certain)
    let frame = try #require(aerie.client(AerieHarness.cameraFrame(), at: 0.2).first)
    #expect(frame.name == "frame_accepted")
    #expect(!frame.certain)
  }

  /// aerie-real-session.pcap "big-frame": authRequest 301 ms after the 101,
  /// answered with a session.
  @Test func aWellShapedTokenGetsASession() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let auth = try #require(aerie.client(Vectors.realAuthRequest, at: 0.3014).first)
    #expect(auth.name == "authenticated")
    #expect(auth.certain)
    let inner = try #require(
      auth.replies.first.flatMap { reply -> [String: Any]? in
        if case .send(let bytes) = reply { return AerieVectors.inner(bytes) }
        return nil
      })
    #expect(inner["success"] as? Bool == true)
    #expect(aerie.server(Vectors.realAuthResponse, at: 0.3173).isEmpty)
    let pong = try #require(aerie.client(Vectors.realHeartbeat, at: 0.3183).first)
    #expect(pong.state("session_id") == .string("0227E8CC-CEA0-4640-8CBD-C63D69079895"))
  }

  /// The server's only check: 16…256 characters of base64.
  @Test(arguments: [
    (String(repeating: "A", count: 16), true), (String(repeating: "A", count: 15), false),
    (String(repeating: "A", count: 256), true), (String(repeating: "A", count: 260), false),
    ("not base64 at all, but long enough", false), (Vectors.clientToken, true),
  ])
  func tokensAreJudgedByShapeOnly(token: String, accepted: Bool) throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let event = try #require(aerie.client(AerieHarness.auth(token: token), at: 0.5).first)
    #expect(event.name == (accepted ? "authenticated" : "auth_refused"))
    #expect(event.state("session") == .string(accepted ? "authenticated" : "unauthenticated"))
    guard case .send(let bytes) = event.replies.first else {
      Issue.record("no reply")
      return
    }
    let inner = try #require(AerieVectors.inner(bytes))
    #expect(inner["success"] as? Bool == accepted)
    if !accepted { #expect(inner["error"] as? String == "Invalid authentication token") }
  }

  /// aerie-real-session.pcap "small-frames": an envelope whose payload is
  /// not base64, on an authenticated socket, gets the could-not-decode
  /// error report; the session stays authenticated.
  @Test func anUndecodableEnvelopeGetsTheFormatErrorReport() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.3015)
    aerie.server(Vectors.realAuthResponse, at: 0.3027)
    let report = try #require(aerie.client(Vectors.realNotBase64, at: 0.3763).first)
    #expect(report.name == "error_report")
    #expect(report.certain)
    #expect(report.state("session") == .string("authenticated"))
    #expect(report.text.contains(AerieVectors.malformedText))
    #expect(aerie.server(Vectors.realAuthFailure, at: 0.3782).isEmpty)
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  /// What the server's decoder makes of other damage: it routes by the
  /// envelope's type and decodes only an authRequest's payload.
  @Test(arguments: [
    // A bare inner object: no envelope.
    (#"{"success":true}"#, "error_report"),
    // Unknown type.
    (#"{"type":"hello","timestamp":1,"payload":"e30="}"#, "error_report"),
    // A heartbeat's payload is never read: answered even when broken.
    (#"{"type":"heartbeat","timestamp":1,"payload":"bm90IGpzb24="}"#, "pong"),
    // An authRequest whose payload is not an AuthRequest.
    (#"{"type":"authRequest","timestamp":1,"payload":"e30="}"#, "error_report"),
    // Outbound kinds from the client: logged, not answered.
    (Vectors.poseBroadcast, "ignored"),
    (Vectors.authResponse, "ignored"),
  ])
  func theServersOwnDecodeDecides(text: String, event name: String) throws {
    var aerie = try AerieHarness()
    aerie.opened()
    let event = try #require(aerie.client(text, at: 0.5).first)
    #expect(event.name == name)
  }

  /// A camera frame whose inner JSON is broken is still a camera frame to
  /// the server, which does not read it: taken on an authenticated socket.
  @Test func aBrokenCameraFrameIsTakenWhenAuthenticated() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    let event = try #require(
      aerie.client(#"{"type":"cameraFrame","timestamp":1,"payload":"e30="}"#, at: 0.6).first)
    #expect(event.name == "frame_accepted")
  }

  /// aerie-real-session.pcap "big-frame": 11,098 bytes pass, 16,429 get 1009.
  @Test func aMessageOverSixteenKiBIsClosedWith1009() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.3014)
    aerie.server(Vectors.realAuthResponse, at: 0.3173)
    let passed = try #require(aerie.client(AerieHarness.cameraFrame(bytes: 11_098), at: 0.3221).first)
    #expect(passed.name == "frame_accepted")
    let limit = try #require(aerie.client(AerieHarness.cameraFrame(bytes: 16_385), at: 0.3767).first)
    #expect(limit.name == "closed_1009")
    #expect(limit.replies == [.close(code: 1009, reason: "")])
    #expect(limit.state("session") == .string("closed"))
    // Vapor's limit is a deployment setting: expected, not certain, until the server shows it.
    #expect(!limit.certain)
    // The server's 1009 settles the guess: one event confirming it, nothing new.
    let settled = aerie.close(1009, by: "server", at: 0.3773)
    #expect(settled.map(\.name) == ["confirmed"])
    #expect(
      settled.first?.settles
        == SettledGuess(frame: limit.frame, time: limit.time, name: "closed_1009", outcome: .confirmed))
    #expect(aerie.close(1009, by: "client", at: 0.3776).isEmpty)
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  @Test func exactlySixteenKiBPasses() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    let event = try #require(aerie.client(AerieHarness.cameraFrame(bytes: 16_384), at: 0.6).first)
    #expect(event.name == "frame_accepted")
  }

  /// A server that takes a large message (its limit raised) is learned,
  /// not a mismatch.
  @Test func aServerThatKeepsGoingAfterALargeMessageHasARaisedLimit() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    #expect(aerie.client(AerieHarness.cameraFrame(bytes: 200_000), at: 0.6).first?.name == "closed_1009")
    aerie.client(AerieHarness.heartbeat(), at: 0.62)
    let learned = aerie.server(Vectors.realPong, at: 0.63)
    #expect(learned.first?.name == "large_message_accepted")
    // It takes the place of the guessed close.
    #expect(learned.first?.settles?.name == "closed_1009")
    #expect(learned.first?.settles?.outcome == .refuted)
    #expect(learned.first?.state("session") == .string("authenticated"))
    #expect(aerie.client(AerieHarness.cameraFrame(bytes: 200_000), at: 0.7).first?.name == "frame_accepted")
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  /// A pong for a heartbeat sent before the too-large message says nothing
  /// about the limit: the 1009 that follows is still the expected one.
  @Test func aReplyToAnEarlierMessageDoesNotRaiseTheLimit() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    aerie.client(AerieHarness.heartbeat(), at: 0.6)
    aerie.client(AerieHarness.cameraFrame(bytes: 16_429), at: 0.6005)
    #expect(aerie.server(Vectors.realPong, at: 0.601).isEmpty)
    #expect(aerie.close(1009, by: "server", at: 0.6012).map(\.name) == ["confirmed"])
    #expect(aerie.named("large_message_accepted").isEmpty)
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  /// send-vs-aerie.server.log: the 10 s timer fires after the client closed
  /// ("Connection timeout" after "connection closed"), sending nothing.
  @Test func theAuthTimerFiresOnAClosedSocketToo() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(AerieHarness.auth(), at: 0.0006)
    let closed = try #require(aerie.close(1000, by: "client", at: 2.1056).first)
    #expect(closed.name == "closed")
    #expect(closed.state("session") == .string("closed"))
    let timer = try #require(aerie.finish().first)
    #expect(timer.name == "auth_timeout")
    #expect(timer.time == AerieHarness.accept + 10)
    #expect(timer.frame == nil)
    #expect(timer.certain)
    #expect(timer.replies.isEmpty)
  }

  @Test func anUnauthenticatedSocketIsClosedWith1008AfterTheTimeout() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(AerieHarness.heartbeat(), at: 0.5)
    let timer = aerie.advance(to: AerieHarness.accept + 10)
    #expect(timer.map(\.name) == ["closed_1008"])
    // No authRequest at all: certain.
    #expect(timer.first?.certain == true)
    #expect(aerie.close(1008, by: "server", at: 10.004).isEmpty)
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  @Test func anAuthenticatedSocketOutlivesTheAuthTimer() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    #expect(aerie.advance(to: AerieHarness.accept + 11).isEmpty)
    #expect(aerie.client(AerieHarness.cameraFrame(), at: 11).first?.name == "frame_accepted")
  }

  /// SessionManager: a session expires 3600 s after it was made; the
  /// socket stays open and its frames are still taken.
  @Test func aSessionExpiresAfterItsLifetime() throws {
    var aerie = try AerieHarness(.analysis, ["session-ttl": "60s"])
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    let expired = aerie.advance(to: AerieHarness.accept + 61)
    #expect(expired.map(\.name) == ["expired"])
    #expect(expired.first?.time == AerieHarness.accept + 60.5)
    #expect(expired.first?.replies.isEmpty == true)
    #expect(expired.first?.state("session") == .string("expired"))
    #expect(aerie.client(AerieHarness.cameraFrame(), at: 62).first?.name == "frame_accepted")
  }

  // MARK: Mismatches: only a certain prediction contradicted

  @Test func aNotAuthenticatedReportOnAnAuthenticatedSocketIsAMismatch() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    aerie.client(AerieHarness.cameraFrame(), at: 0.6)
    let event = try #require(aerie.server(AerieVectors.notAuthenticated, at: 0.61).first)
    #expect(event.name == "unexpected_reply")
    #expect(event.mismatch?.contains("authenticated") == true)
  }

  @Test func a1008OnAnAuthenticatedSocketIsAMismatch() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.server(Vectors.realAuthResponse, at: 0.51)
    let event = try #require(aerie.close(1008, by: "server", at: 10.004).first)
    #expect(event.name == "closed")
    #expect(event.mismatch != nil)
  }

  @Test func a1009WithoutALargeMessageIsAMismatch() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(Vectors.realAuthRequest, at: 0.5)
    aerie.client(AerieHarness.cameraFrame(bytes: 11_098), at: 0.6)
    let event = try #require(aerie.close(1009, by: "server", at: 0.61).first)
    #expect(event.mismatch?.contains("11,098 bytes") == true)
  }

  /// While the race leaves the authentication open, a surprising reply
  /// settles it instead of contradicting anything.
  @Test func anUncertainPredictionIsNeverAMismatch() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    aerie.client(AerieHarness.auth(), at: 0.001)
    // Predicted: a notAuthenticated report, uncertain (the auth may have been handled).
    let frame = try #require(aerie.client(AerieHarness.cameraFrame(), at: 0.5).first)
    #expect(frame.name == "error_report")
    #expect(!frame.certain)
    // The report comes: the authRequest was dropped.
    let confirmed = aerie.server(AerieVectors.notAuthenticated, at: 0.501)
    #expect(confirmed.map(\.name) == ["drop_confirmed"])
    #expect(aerie.events.allSatisfy { $0.mismatch == nil })
  }

  /// A capture that starts after the 101 does not know the session: camera
  /// frames are taken uncertainly, and nothing contradicts.
  @Test func aCaptureStartingMidSessionKnowsNoSession() throws {
    var aerie = try AerieHarness()
    let frame = try #require(aerie.client(AerieHarness.cameraFrame(), at: 5).first)
    #expect(frame.name == "frame_accepted")
    #expect(!frame.certain)
    #expect(frame.state("session") == .string("unknown"))
    #expect(aerie.model.nextDeadline == nil)
    aerie.client(AerieHarness.heartbeat(), at: 5.1)
    #expect(aerie.server(Vectors.realPong, at: 5.101).isEmpty)
  }

  /// Hostile payloads: nothing crashes, and each is something the server
  /// would report or never see.
  @Test func randomBytesAreReportedOrIgnored() throws {
    var aerie = try AerieHarness()
    aerie.opened()
    var generator = SystemRandomNumberGenerator()
    for index in 0..<200 {
      let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
        UInt8.random(in: 0...255, using: &generator)
      }
      for event in aerie.client(bytes, at: 0.5 + Double(index) * 0.001) {
        #expect(
          ["error_report", "pong", "ignored", "frame_accepted", "auth_refused", "authenticated"].contains(
            event.name))
      }
    }
  }
}
