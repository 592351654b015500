import PacketKit

/// The socket's timers (its 10 s auth timer, its device's session expiry)
/// and how its events show its state.
extension AerieSocket {
  // MARK: Timers

  /// The auth timer: one check, 10 s after the 101.
  mutating func authTimer(at time: Double, frame: Int?, afterEnd: Bool) -> [DeviceEvent] {
    authDeadline = nil
    switch session {
    case .closed:
      // The timer's task runs whatever the client did; after the close its
      // check finds the device's entry missing (or a newer socket's, not yet
      // authenticated, which it removes).
      if device.entry != nil, !device.authenticated {
        device.entry = nil
      }
      return [
        DeviceEvent(
          time: time, frame: frame, name: "auth_timeout", certain: closedBy?.certain ?? true, state: state,
          text:
            "the \(AerieServerSettings.words(settings.authTimeout)) auth timer fired after the socket closed: the "
            + "server logs \"Connection timeout - no authentication received\" and removes the connection "
            + "again; nothing is sent", peer: key)
      ]
    case .authenticated, .unknown:
      return []
    case .unauthenticated:
      let certain = !afterEnd && authHinge == nil && !unseenTraffic
      timerClosed = true
      timerTime = time
      close(by: "server", certain: certain)
      let hinge = authHinge.flatMap { id in ledger.first { $0.id == id } }
      var text =
        "no authentication \(AerieServerSettings.words(settings.authTimeout)) after the 101: closed with 1008 "
        + "(policy violation)"
      if let hinge {
        text += " — if \(hinge.named), sent in the auth race, was dropped"
      } else if afterEnd {
        text += " — unless the client authenticated after the capture ended"
      } else if unseenTraffic {
        text += " — unless an authRequest came while the capture missed traffic"
      }
      return [
        DeviceEvent(
          time: time, frame: frame, name: "closed_1008", certain: certain, state: state, text: text,
          replies: [.close(code: 1008, reason: "")], peer: key)
      ]
    }
  }

  /// The device's session expires (its socket stays open).
  mutating func expiry(at time: Double, afterEnd: Bool) -> [DeviceEvent] {
    device.expiryDeadline = nil
    guard device.hasSession, session == .authenticated else { return [] }
    device.sessionExpired = true
    return [
      DeviceEvent(
        time: time, frame: nil, name: "expired", certain: !afterEnd && authHinge == nil, state: state,
        text:
          "the session expired \(AerieServerSettings.words(settings.sessionTTL)) after authentication: the server "
          + "keeps the socket open and its frames accepted; a new authRequest gets a new session")
    ]
  }

  // MARK: Events

  /// The timeline's state: `{"session", "handler", "session_id",
  /// "device_id"}` (`session` as the socket has it: its device's entry).
  var state: [FieldValue.Member] {
    let sessionText: String
    switch session {
    case .unknown: sessionText = "unknown"
    case .unauthenticated: sessionText = "unauthenticated"
    case .authenticated: sessionText = sessionExpired ? "expired" : "authenticated"
    case .closed: sessionText = "closed"
    }
    return [
      .init("session", .string(sessionText)),
      .init("handler", .string(handlerSeenReady || !settings.aerieBugs ? "ready" : "registering")),
      .init("session_id", sessionId.map { .string($0) } ?? .null),
      .init("device_id", deviceId.map { .string($0) } ?? .null),
    ]
  }

  func event(
    _ message: FlowMessage, _ name: String, certain: Bool = true, text: String, replies: [DeviceReply] = [],
    mismatch: String? = nil, settles: SettledGuess? = nil
  ) -> DeviceEvent {
    DeviceEvent(
      time: message.time, frame: message.frame, name: name, certain: certain, state: state, text: text,
      replies: replies, mismatch: mismatch, peer: key, settles: settles)
  }
}
