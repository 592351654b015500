import PacketKit

/// Analysis: the server's own replies and closes, checked against what the
/// model predicted. They also settle what only timing suggested: a reply
/// to a message sent after one in the auth race shows that one was dropped
/// (the server answers within milliseconds); a reply only a raced message
/// can explain shows it was handled; a 1008 at the auth timer shows the
/// raced authRequest was dropped.
extension AerieSocket {
  // MARK: Replies

  mutating func reply(_ message: FlowMessage) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    guard let kind = AerieReply(message) else { return events }
    handlerSeenReady = true
    let replySessionId = kind == .accepted ? message.string("sessionId") : nil
    var found = answered(by: kind, afterLimit: false)
    // A reply only a message sent after the too-large one explains: the
    // server did not close for it.
    if found == nil, let limit = limitClose, closedBy?.certain == false,
      let later = answered(by: kind, afterLimit: true)
    {
      events += limitWasRaised(limit, evidence: message)
      found = later
    }
    guard let index = found else { return events + unexplained(kind, message) }
    let entry = ledger[index]
    if entry.isRacing {
      events += handledAfterAll(entry, reply: message)
    } else {
      ledger.remove(at: index)
      // Replies of one kind come in order: older ones of the kind never came.
      ledger.removeAll { !$0.isRacing && $0.reply == kind && $0.time < entry.time }
    }
    if kind == .accepted {
      // The server handled it: the device's session (reused or new), and
      // its entry authenticated if it still has one.
      if !device.known { device.entry = key }
      device.authenticate(sessionId: replySessionId, at: entry.time, ttl: settings.sessionTTL)
    }
    // A notAuthenticated report for a frame sent well after the raced
    // authRequest: that authRequest was never handled.
    if kind == .notAuthenticated, let hinge = entry.hinge,
      let auth = ledger.first(where: { $0.id == hinge }), entry.time - auth.time >= Self.replySlack
    {
      events += droppedUpTo(
        auth,
        because: "the server answered \(entry.named) with its notAuthenticated "
          + "error (frame \(frameText(message)))", at: message)
    }
    // The server answered a message sent this much later: what raced
    // before it and is still unanswered was dropped.
    if let last = ledger.last(where: {
      $0.isRacing && $0.reply != nil && $0.time <= entry.time - Self.replySlack
    }) {
      events += droppedUpTo(
        last,
        because: "the server answered \(entry.named) (\(AerieReply(message)?.words ?? "a reply") at frame "
          + "\(frameText(message))) but never this one", shared: true, at: message)
    }
    return events
  }

  /// The expectation a reply of `kind` answers: the oldest that owes one,
  /// except that a raced message loses to a handled one sent well after it
  /// (had the raced one been handled, its reply would have come first).
  private func answered(by kind: AerieReply, afterLimit: Bool) -> Int? {
    let candidates = ledger.indices.filter { ledger[$0].reply == kind && ledger[$0].afterLimit == afterLimit }
    guard let first = candidates.first else { return nil }
    guard ledger[first].isRacing else { return first }
    let later = candidates.first {
      !ledger[$0].isRacing && ledger[$0].time - ledger[first].time >= Self.replySlack
    }
    return later ?? first
  }

  /// A reply nothing owed: a contradiction when the model was sure of the
  /// socket, else something learned.
  private mutating func unexplained(_ kind: AerieReply, _ message: FlowMessage) -> [DeviceEvent] {
    let settled =
      authHinge == nil && !ledger.contains(where: \.isRacing) && session != .unknown
      && closedBy?.certain != false
    guard settled else {
      if session == .unknown, kind == .accepted || kind == .notAuthenticated {
        // A socket seen mid-session: the server's answer tells how it stands.
        device.known = true
        device.entry = device.entry ?? key
        device.authenticated = kind == .accepted
        if kind == .accepted, let id = message.string("sessionId") { device.sessionId = id }
        if kind == .accepted { device.hasSession = true }
      }
      return []
    }
    let why: String
    switch kind {
    case .notAuthenticated where session == .authenticated:
      why = "the model had the socket authenticated, so its camera frames are accepted without a reply"
    case .accepted, .refused: why = "no authRequest was waiting for an authResponse"
    case .pong: why = "no heartbeat was waiting for a pong"
    default: why = "no message was waiting for an error report"
    }
    return [
      event(
        message, "unexpected_reply",
        text: "the server sent \(kind.words) that no message explains",
        mismatch: "the server sent \(kind.words) at frame \(frameText(message)), but \(why)")
    ]
  }

  /// A raced message the server handled after all (the reply at `reply`
  /// answers it): so were all that came after it.
  private mutating func handledAfterAll(_ entry: AerieExpectation, reply: FlowMessage) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    let since = acceptTime.map { ", \(Format.duration(entry.time - $0)) after the 101," } ?? ""
    let raced = ledger.filter { $0.isRacing && $0.time >= entry.time }
    for raced in raced {
      if let index = ledger.firstIndex(where: { $0.id == raced.id }) { ledger[index].fate = .handled }
      if raced.id == authHinge {
        authHinge = nil
        if raced.reply == .accepted, session != .closed {
          let id = AerieReply(reply) == .accepted ? reply.string("sessionId") : nil
          device.authenticate(sessionId: id ?? device.sessionId, at: raced.time, ttl: settings.sessionTTL)
        }
        // Its camera frames were accepted, not reported.
        ledger.removeAll { $0.hinge == raced.id }
      }
      guard raced.fate == .racing(predictedDropped: true) else {
        // Predicted handled, and it was: the guess stands.
        events.append(
          DeviceEvent(
            time: reply.time, frame: raced.frame, name: "confirmed", state: state,
            text: "the server's reply at frame \(frameText(reply)) shows \(raced.named) was handled",
            peer: key,
            settles: SettledGuess(
              frame: raced.frame, time: raced.time, name: handlingName(raced), outcome: .confirmed)))
        continue
      }
      let answer =
        raced.id == entry.id
        ? "the server's reply at frame \(frameText(reply)) (\(AerieReply(reply)?.words ?? "a reply")) answers it"
        : "it came after \(entry.named), which the server answered"
      events.append(
        DeviceEvent(
          time: reply.time, frame: raced.frame, name: handlingName(raced), state: state,
          text: "\(raced.named)\(raced.id == entry.id ? since : "") was handled after all: \(answer); the "
            + "text handler was registered sooner than the model said", peer: key,
          settles: SettledGuess(frame: raced.frame, time: raced.time, name: "dropped", outcome: .refuted)))
    }
    if let index = ledger.firstIndex(where: { $0.id == entry.id }) { ledger.remove(at: index) }
    return events
  }

  private func handlingName(_ entry: AerieExpectation) -> String {
    switch entry.reply {
    case .accepted: "authenticated"
    case .refused: "auth_refused"
    case .pong: "pong"
    case .notAuthenticated, .malformed: "error_report"
    case nil: entry.request == .cameraFrame ? "frame_accepted" : "ignored"
    }
  }

  /// `last` and every raced message before it were dropped.
  /// `because` says why for `last`, and for every other one that owed a
  /// reply when `shared`.
  mutating func droppedUpTo(
    _ last: AerieExpectation, because: String, shared: Bool = false, at evidence: FlowMessage
  ) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    for raced in ledger where raced.isRacing && raced.time <= last.time {
      ledger.removeAll { $0.id == raced.id }
      if raced.id == authHinge {
        authHinge = nil
        if raced.fate == .racing(predictedDropped: false), session == .authenticated {
          // The session it was said to make was never made.
          device.authenticated = false
          device.hasSession = false
          device.sessionId = nil
          device.expiryDeadline = nil
        }
        // Its camera frames are reported for sure now.
        for index in ledger.indices where ledger[index].hinge == raced.id { ledger[index].hinge = nil }
      }
      let since = acceptTime.map { ", \(Format.duration(raced.time - $0)) after the 101," } ?? ""
      let reason =
        raced.id == last.id || (shared && raced.reply != nil)
        ? because : "it came before \(last.named), which was dropped"
      events.append(
        DeviceEvent(
          time: evidence.time, frame: raced.frame, name: "drop_confirmed", state: state,
          text: "\(raced.named)\(since) was dropped by the auth race: \(reason)", peer: key,
          settles: SettledGuess(
            frame: raced.frame, time: raced.time,
            name: raced.fate == .racing(predictedDropped: true) ? "dropped" : handlingName(raced),
            outcome: raced.fate == .racing(predictedDropped: true) ? .confirmed : .refuted)))
    }
    return events
  }

  // MARK: Closes

  mutating func serverClosed(_ message: FlowMessage) -> [DeviceEvent] {
    let code = message.number("code").flatMap { Int(exactly: $0) }
    var events: [DeviceEvent] = []
    if let limit = limitClose, closedBy?.who == "server", closedBy?.certain == false {
      if code == 1009 {
        closeConfirmed()
        ledger.removeAll(where: \.afterLimit)
        return [
          event(
            message, "confirmed",
            text:
              "the server closed with 1009 at frame \(frameText(message)), as predicted: its frame limit is "
              + "Vapor's default \(Format.bytes(Self.vaporFrameLimit))",
            settles: SettledGuess(
              frame: limit.frame, time: limitTime ?? message.time, name: "closed_1009", outcome: .confirmed))
        ]
      }
      events += limitWasRaised(limit, evidence: message)
    }
    if session == .closed {
      guard closedBy?.who == "server", timerClosed else { return events }
      if code == 1008 {
        let guess = closedBy?.certain == false
        closeConfirmed()
        return events + timerConfirmedDrop(message) + timerConfirmed(message, guess: guess)
      }
      guard closedBy?.certain == true else { return events }
      return events + [
        event(
          message, "closed", text: "the server closed with \(code.map(String.init) ?? "no code")",
          mismatch:
            "the server closed with \(code.map(String.init) ?? "no code") at frame \(frameText(message)); "
            + "the model had its auth timer close the socket with 1008")
      ]
    }
    if code == 1008, let deadline = authDeadline, message.time >= deadline - Self.timerTolerance {
      events += authTimer(at: message.time, frame: message.frame, afterEnd: false)
      if timerClosed {
        closeConfirmed()
        return events + timerConfirmedDrop(message)
      }
      if let hinge = authHinge, let auth = ledger.first(where: { $0.id == hinge }) {
        events += droppedUpTo(
          auth,
          because: "the server closed the socket with 1008 at its auth timer (frame \(frameText(message)))",
          at: message)
        close(by: "server", certain: true)
        timerClosed = true
        return events + [
          event(message, "closed_1008", text: "no authentication after the auth timer: closed with 1008")
        ]
      }
    }
    close(by: "server", certain: true)
    let codeText = code.map(String.init) ?? "no code"
    var mismatch: String?
    switch code {
    case 1008 where !sessionExpired:
      mismatch =
        "the server closed with 1008 (policy violation) at frame \(frameText(message)); the model had "
        + (authDeadline == nil
          ? "the socket authenticated"
          : "its auth timer still running (it closes unauthenticated sockets "
            + "\(AerieServerSettings.words(settings.authTimeout)) after the 101)")
    case 1009:
      mismatch =
        "the server closed with 1009 (message too big) at frame \(frameText(message)), but no message was over "
        + "its \(Format.bytes(frameLimit)) limit (the largest was \(Format.bytes(largestMessage)))"
    default:
      break
    }
    return events + [
      event(message, "closed", text: "the server closed the socket with \(codeText)", mismatch: mismatch)
    ]
  }

  /// The server's 1008 at the auth timer: the raced authRequest, if any,
  /// was dropped.
  private mutating func timerConfirmedDrop(_ message: FlowMessage) -> [DeviceEvent] {
    guard let hinge = authHinge, let auth = ledger.first(where: { $0.id == hinge }) else { return [] }
    return droppedUpTo(
      auth,
      because: "the server closed the socket as unauthenticated with 1008 at its "
        + "\(AerieServerSettings.words(settings.authTimeout)) auth timer (frame \(frameText(message)))",
      at: message)
  }

  /// The server's 1008 settles the auth timer's close the model guessed.
  private func timerConfirmed(_ message: FlowMessage, guess: Bool) -> [DeviceEvent] {
    guard guess, let time = timerTime else { return [] }
    return [
      event(
        message, "confirmed",
        text: "the server closed with 1008 at frame \(frameText(message)), as its auth timer does",
        settles: SettledGuess(frame: nil, time: time, name: "closed_1008", outcome: .confirmed))
    ]
  }

  /// The server kept the socket open after a message over Vapor's limit.
  private mutating func limitWasRaised(
    _ limit: (frame: Int?, size: Int, before: Session), evidence: FlowMessage
  ) -> [DeviceEvent] {
    limitClose = nil
    limitRaised = true
    closedBy = nil
    isClosed = false
    for index in ledger.indices { ledger[index].afterLimit = false }
    return [
      event(
        evidence, "large_message_accepted",
        text: "the server kept the socket open after the \(Format.bytes(limit.size)) message at frame "
          + "\(limit.frame.map(String.init) ?? "?"): its frame limit is above Vapor's default "
          + "\(Format.bytes(Self.vaporFrameLimit)) (frame \(frameText(evidence)) shows it)",
        settles: SettledGuess(
          frame: limit.frame, time: limitTime ?? evidence.time, name: "closed_1009", outcome: .refuted))
    ]
  }

  func frameText(_ message: FlowMessage) -> String { message.frame.map(String.init) ?? "?" }
}
