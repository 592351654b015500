import PacketKit

/// One FalconEye WebSocket as the Aerie server handles it, as recordings
/// of the real server show it:
///
/// - the socket opens at the 101 and becomes its device's entry,
///   unauthenticated; the text handler is registered after an `await`, so
///   a message that arrives right after the 101 is dropped (the auth race);
/// - an authRequest whose token has the server's shape (16…256 characters
///   of base64) gets an authResponse with the device's session id (reused
///   while the device has one), any other a refusal;
/// - a heartbeat gets `{"pong": true}`, authenticated or not;
/// - a camera frame while the device's entry is not authenticated, and a
///   message that does not decode, get an error report: an authResponse
///   with success false and the error's text;
/// - 10 s after the 101 the socket is closed with 1008 unless its device's
///   entry is authenticated (the timer also fires on a socket already
///   closed); a session expires 3600 s after it was made (the socket stays
///   open);
/// - a message over Vapor's default 16 KiB frame limit is closed with 1009.
///
/// What the server keeps per device (`AerieDevice`) is lent to the socket
/// for each call by `AerieServerModel`, which keeps it for all the
/// device's sockets. In analysis the client's messages come `.toDevice`
/// and the server's replies and closes `.fromDevice`, checked against the
/// prediction; in emulation the model is the server and its events carry
/// the replies.
struct AerieSocket {
  /// Messages this soon after the 101 are predicted dropped. The recordings
  /// dropped messages 0.6, 1.1 and 3.4 ms after it and handled every one
  /// 300 ms or more after it; 30 ms is the geometric middle of 3.4 and 300.
  static let raceWindow = 0.030
  /// From this long after the 101 the handler is surely registered (every
  /// message this late was handled in the recordings).
  static let handledSurely = 0.300
  /// The server answers within milliseconds (0.5–17 ms in the recordings);
  /// a reply to a message sent this much later than another shows the
  /// other was never handled, whatever the order of the server's tasks.
  static let replySlack = 0.100
  /// A server 1008 this soon before the auth timer is the timer's (the two
  /// clocks are the same machine's, but the timer starts after an await).
  static let timerTolerance = 0.5
  /// Vapor's default `maxFrameSize`, which the recorded server keeps.
  static let vaporFrameLimit = 1 << 14
  /// Without the server's bugs the emulator takes what `listen ws` takes.
  static let emulatorFrameLimit = 16 << 20
  /// Expectations kept at most (a server that never answers must not grow
  /// the model).
  static let ledgerLimit = 256

  enum Session: Equatable {
    /// Before the 101, or a capture that starts mid-session.
    case unknown
    case unauthenticated
    case authenticated
    case closed
  }

  let mode: ModelMode
  let settings: AerieServerSettings
  /// The client's endpoint: the socket.
  let key: String
  /// What the server keeps by the socket's `deviceId`, lent for the call.
  var device = AerieDevice()
  /// The server's session ids, lent for the call.
  var ids = AerieSessionIds(seed: 0)
  /// The socket's `deviceId`, when its handshake was seen.
  let deviceId: String?
  /// Closed (certainly or as predicted): nothing more is read.
  var isClosed = false
  /// The capture missed a stretch while the auth timer ran: an authRequest
  /// may have come unseen.
  var unseenTraffic = false
  /// The 101's time.
  var acceptTime: Double?
  /// Whether the server has shown its handler registered (it answered).
  var handlerSeenReady = false
  var authDeadline: Double?
  /// How the socket closed, and whether that is certain.
  var closedBy: (who: String, certain: Bool)?
  /// The 1009 the model predicted: the message's frame and size, and the
  /// session as it was before.
  var limitClose: (frame: Int?, size: Int, before: Session)?
  /// This server took a message over Vapor's limit (analysis).
  var limitRaised = false
  /// The largest client message so far.
  var largestMessage = 0
  /// Whether the auth timer predicted the 1008, and when it fell.
  var timerClosed = false
  var timerTime: Double?
  /// When the too-large message came (the guessed 1009's time).
  var limitTime: Double?
  /// The racing authRequest with a well-shaped token whose fate decides
  /// whether the socket is authenticated (analysis).
  var authHinge: Int?
  var ledger: [AerieExpectation] = []
  var nextId = 0

  init(mode: ModelMode, settings: AerieServerSettings, key: String, deviceId: String?) {
    self.mode = mode
    self.settings = settings
    self.key = key
    self.deviceId = deviceId
  }

  /// The socket as the server has it: closed, or its device's entry
  /// authenticated or not (`unknown` for a socket seen mid-session).
  var session: Session {
    if isClosed { return .closed }
    if !device.known { return .unknown }
    return device.entry != nil && device.authenticated ? .authenticated : .unauthenticated
  }

  var sessionId: String? { device.sessionId }
  var sessionExpired: Bool { device.sessionExpired }

  var frameLimit: Int {
    settings.aerieBugs && !limitRaised ? Self.vaporFrameLimit : Self.emulatorFrameLimit
  }

  // MARK: Messages and time

  mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    switch (message.eventName, heading) {
    case ("ws.accept", .fromDevice):
      return opened(message)
    case ("ws.close", .toDevice):
      return clientClosed(message)
    case ("ws.close", .fromDevice):
      return mode == .analysis ? serverClosed(message) : serverClosedItself(message)
    case ("tcp.end", _):
      return connectionEnded(message)
    case (nil, .toDevice) where message.codec == "falconeye":
      return request(message)
    case (nil, .fromDevice) where message.codec == "falconeye" && mode == .analysis:
      return reply(message)
    default:
      return []
    }
  }

  var nextDeadline: Double? { authDeadline }

  /// The auth timer fires if due by `time`.
  mutating func advance(to time: Double) -> [DeviceEvent] {
    guard let deadline = authDeadline, deadline <= time else { return [] }
    return authTimer(at: deadline, frame: nil, afterEnd: false)
  }

  /// After the observation: the auth timer's check, unseen.
  mutating func finish() -> [DeviceEvent] {
    guard let deadline = authDeadline else { return [] }
    return authTimer(at: deadline, frame: nil, afterEnd: true)
  }

  // MARK: The socket

  private mutating func opened(_ message: FlowMessage) -> [DeviceEvent] {
    guard acceptTime == nil else { return [] }
    let replaced = device.entry.map { $0 != key } ?? false
    open(at: message.time)
    let registering =
      settings.aerieBugs
      ? "; its text handler is registered after an await, so messages in the next moments are dropped" : ""
    let entry =
      deviceId.map { id in
        replaced
          ? "; it replaces device \(id)'s entry, unauthenticated: the device's other sockets' camera frames "
            + "are refused until an authRequest"
          : "; device \(id)'s entry, unauthenticated"
      } ?? ""
    return [
      event(
        message, "opened",
        text: "the server accepted the WebSocket (101)\(registering)\(entry); the socket is closed "
          + "\(AerieServerSettings.words(settings.authTimeout)) after it unless the device is authenticated")
    ]
  }

  private mutating func open(at time: Double) {
    acceptTime = time
    device.opened(key)
    handlerSeenReady = !settings.aerieBugs
    authDeadline = time + settings.authTimeout
  }

  private mutating func clientClosed(_ message: FlowMessage) -> [DeviceEvent] {
    guard session != .closed else { return [] }
    close(by: "client", certain: true)
    let code = message.number("code").map { "with \(Int($0)) " } ?? ""
    let device = deviceId.map { "device \($0)'s entry and session, for all its sockets" } ?? "the session"
    return [
      event(
        message, "closed",
        text: "the client closed the socket \(code)— the server echoes the close and removes \(device)")
    ]
  }

  /// Emulation: the driver reports the close the model asked for, or one
  /// the socket layer made.
  private mutating func serverClosedItself(_ message: FlowMessage) -> [DeviceEvent] {
    guard session != .closed else { return [] }
    close(by: "server", certain: true)
    let code = message.number("code").map { " with \(Int($0))" } ?? ""
    return [event(message, "closed", text: "the server closed the socket\(code)")]
  }

  /// The server's `onClose`: the device's entry goes and its session is
  /// revoked, for all its sockets. A close only predicted leaves them until
  /// the server shows it (`closeConfirmed`).
  mutating func close(by who: String, certain: Bool) {
    isClosed = true
    closedBy = (who, certain)
    if certain { device.removed() }
  }

  /// A predicted close the server showed.
  mutating func closeConfirmed() {
    guard let who = closedBy?.who, closedBy?.certain == false else { return }
    closedBy = (who, true)
    device.removed()
  }

  /// The TCP connection ended without a close handshake: the server's
  /// `onClose` runs all the same.
  private mutating func connectionEnded(_ message: FlowMessage) -> [DeviceEvent] {
    guard !isClosed, acceptTime != nil || device.known else { return [] }
    close(by: "client", certain: true)
    let how = message.string("reason").map { " (\($0))" } ?? ""
    return [
      event(
        message, "closed",
        text: "the connection ended\(how) without a close handshake: the server removes the device's entry "
          + "and revokes its session")
    ]
  }

  // MARK: Client messages

  private mutating func request(_ message: FlowMessage) -> [DeviceEvent] {
    if acceptTime == nil, !isClosed, mode == .emulation { open(at: message.time) }
    if session == .closed {
      guard closedBy?.who != "client" else { return [] }
      let certain = closedBy?.certain ?? true
      if let limit = limitClose, !certain, mode == .analysis {
        // Should the server keep the socket open, it handles this one.
        let request = AerieRequest(message)
        let id = remember(request, message, reply: wouldReply(request, in: limit.before), fate: .handled)
        if let index = ledger.firstIndex(where: { $0.id == id }) { ledger[index].afterLimit = true }
      }
      return [
        event(
          message, "ignored", certain: certain,
          text: "\(AerieRequest(message).kind) after the server closed the socket: never read")
      ]
    }
    largestMessage = max(largestMessage, message.size)
    if message.size > frameLimit { return tooBig(message) }
    let request = AerieRequest(message)
    if request == .unreadable { return [] }
    guard settings.aerieBugs, let accept = acceptTime, !handlerSeenReady else {
      return handle(request, message, fate: .handled)
    }
    let since = message.time - accept
    if since >= Self.handledSurely || (mode == .emulation && since >= Self.raceWindow) {
      handlerSeenReady = true
      return handle(request, message, fate: .handled)
    }
    if mode == .emulation {
      return [
        event(
          message, "dropped",
          text: "\(request.kind) \(Format.duration(since)) after the 101: the text handler is not "
            + "registered yet (the auth race), so the server never sees it")
      ]
    }
    let dropped = since < Self.raceWindow
    if !dropped { return handle(request, message, fate: .racing(predictedDropped: false)) }
    let expectation = remember(
      request, message, reply: wouldReply(request), fate: .racing(predictedDropped: true))
    if case .authRequest(let token?) = request, FalconEyeAuthToken.isAcceptedByServer(token) {
      authHinge = expectation
    }
    return [
      event(
        message, "dropped", certain: false,
        text: "\(request.kind) \(Format.duration(since)) after the 101: probably before the text handler "
          + "was registered (the auth race; the recordings dropped messages up to 3.4 ms after the 101 "
          + "and handled those from 300 ms)")
    ]
  }

  private mutating func tooBig(_ message: FlowMessage) -> [DeviceEvent] {
    // Vapor's limit is a setting a deployment may raise: in analysis the
    // close is expected, not certain, until the server shows it.
    let certain = mode == .emulation
    limitClose = (message.frame, message.size, session)
    limitTime = message.time
    close(by: "server", certain: certain)
    let limit = Format.bytes(frameLimit)
    return [
      event(
        message, "closed_1009", certain: certain,
        text: "\(AerieRequest(message).kind) of \(Format.bytes(message.size)) is over the server's "
          + "\(limit) frame limit (Vapor's default): closed with 1009 (message too big)",
        replies: [.close(code: 1009, reason: "")])
    ]
  }

  /// What the server does with a message its handler got. `fate` is
  /// `.racing` for one handled, probably, during the race (analysis).
  mutating func handle(_ request: AerieRequest, _ message: FlowMessage, fate: AerieExpectation.Fate)
    -> [DeviceEvent]
  {
    let racing = fate != .handled
    let authCertain = authHinge == nil && session != .unknown
    let name: String
    var text: String
    var reply: AerieReply?
    var certain = !racing
    var hinge: Int?
    switch request {
    case .authRequest(let token?) where FalconEyeAuthToken.isAcceptedByServer(token):
      name = "authenticated"
      reply = .accepted
      let reused = device.hasLiveSession
      let entered = device.entry != nil || !device.known
      if !device.known { device.entry = key }
      device.authenticate(
        sessionId: mode == .emulation && !reused ? ids.next() : device.sessionId, at: message.time,
        ttl: settings.sessionTTL)
      text =
        "the token has the server's shape (\(token.utf8.count) characters of base64): "
        + (reused ? "the device's session \(sessionId ?? "") again" : "a new session")
        + (mode == .emulation && !reused ? " \(sessionId ?? "")" : "")
        + (entered
          ? (deviceId.map { ", device \($0) authenticated for all its sockets" } ?? "")
          : ", yet the device's entry is gone (a socket of it closed), so no socket is marked authenticated: "
            + "its camera frames are still refused")
        + tokenNote(token, message)
    case .authRequest(let token?):
      name = "auth_refused"
      reply = .refused
      text =
        "the token is \(token.utf8.count) characters\(FalconEyeBase64.isValid(token) ? "" : ", not base64"); "
        + "the server wants \(FalconEyeAuthToken.serverRule.description): \"\(AerieReply.refusedText)\""
    case .authRequest(nil):
      name = "error_report"
      reply = .malformed
      text = "the authRequest's payload does not decode as an AuthRequest: error report (success false)"
    case .heartbeat:
      name = "pong"
      reply = .pong
      text = "heartbeat answered with {\"pong\": true} (the server answers heartbeats authenticated or not)"
    case .cameraFrame where session == .authenticated || session == .unknown:
      name = "frame_accepted"
      certain = certain && authCertain
      text = "camera frame taken (this server build does no pose detection yet)"
    case .cameraFrame:
      name = "error_report"
      reply = .notAuthenticated
      certain = certain && authCertain
      hinge = authHinge
      text =
        "cameraFrame on a socket that is not authenticated: the server reports its notAuthenticated error "
        + "(\"\(AerieReply.notAuthenticatedText)\") in an authResponse with success false"
    case .outbound(let kind):
      name = "ignored"
      text = "the server only sends \(kind): it logs \"unexpected message type\" and answers nothing"
    case .undecodable(let why):
      name = "error_report"
      reply = .malformed
      text =
        "the envelope does not decode (\(why)): the server reports \"\(AerieReply.malformedText)\" in an "
        + "authResponse with success false"
    case .unreadable:
      return []
    }
    if mode == .analysis, reply != nil {
      let id = remember(request, message, reply: reply, fate: fate)
      if let index = ledger.firstIndex(where: { $0.id == id }) { ledger[index].hinge = hinge }
      if racing, reply == .accepted { authHinge = id }
    }
    let replies: [DeviceReply] =
      reply.map { [.send($0.envelope(timestamp: message.time, sessionId: sessionId))] } ?? []
    return [event(message, name, certain: certain, text: text, replies: replies)]
  }

  /// What the server would send if it handled `request`, with the socket
  /// as the model has it.
  func wouldReply(_ request: AerieRequest, in session: Session? = nil) -> AerieReply? {
    let session = session ?? self.session
    return switch request {
    case .authRequest(let token?): FalconEyeAuthToken.isAcceptedByServer(token) ? .accepted : .refused
    case .authRequest(nil), .undecodable: .malformed
    case .heartbeat: .pong
    case .cameraFrame: session == .authenticated ? nil : .notAuthenticated
    case .outbound, .unreadable: nil
    }
  }

  @discardableResult
  mutating func remember(
    _ request: AerieRequest, _ message: FlowMessage, reply: AerieReply?, fate: AerieExpectation.Fate
  ) -> Int {
    let id = nextId
    nextId += 1
    if ledger.count >= Self.ledgerLimit { ledger.removeFirst() }
    ledger.append(
      AerieExpectation(
        id: id, frame: message.frame, time: message.time, request: request, reply: reply, fate: fate))
    return id
  }

  private func tokenNote(_ token: String, _ message: FlowMessage) -> String {
    guard let secret = settings.secret, let deviceId = message.string("deviceId") else { return "" }
    if let signed = FalconEyeTokenCheck.signedString(
      token: token, deviceId: deviceId, envelopeTimestamp: message.number("timestamp"), secret: secret)
    {
      return "; the token is HMAC-SHA256 of \"\(signed)\" with --secret"
    }
    return "; the token is not --secret's HMAC of \"deviceId:timestamp\" (accepted anyway: the server "
      + "only checks its shape)"
  }
}
