import PacketKit

/// FalconEye (docs/protocols.md §4) over one WebSocket, read with the Aerie
/// server's model (§5): what the server did with the client's messages —
/// the authRequest its auth race dropped, its error reports and what each
/// answered, refusals, unanswered requests — and the client's side: auth
/// and heartbeat latencies, camera frames against 30 fps and the 500 KB
/// target, poses after frames, and the security notes (plain ws://, tokens
/// nobody can verify, a token signed with a known secret). It also explains
/// closes in FalconEye's terms.
final class FalconEyeRules: FlowRules, CloseExplaining {
  static let frameRate = ExpectedRate.hertz(30, text: "30 fps", rule: "falconeye.frame-rate")
  static let frameTarget = 500_000
  /// A request without its reply this long is unanswered.
  static let replyTimeout = 2.0
  static let tokensChecked = 16

  typealias Stamp = FalconEyeErrorReports.Stamp

  /// The record the rules saw last: the model's events about a record
  /// come right after it.
  private struct Seen {
    var stamp: Stamp
    var kind: String
    var fromServer: Bool
    var reply: AerieReply?
    var closeCode: Int?
  }

  private let secret: String?
  private var seen: Seen?
  private var accept: Stamp?
  private var race = FalconEyeAuthRace()
  private var reports = FalconEyeErrorReports()
  private var authRequests = 0
  private var firstAuthRequest: Stamp?
  /// authRequests the server handled, awaiting their authResponse.
  private var awaitingAuth: [Stamp] = []
  /// Heartbeats the server handled, awaiting their pong.
  private var awaitingPong: [Stamp] = []
  private var authenticated: Stamp?
  private var sessionId: String?
  private var refused: (request: Stamp?, reply: Stamp)?
  private var lastCameraFrame: Stamp?
  private var serverClose: (stamp: Stamp, code: Int?)?
  private var clientClose: (stamp: Stamp, code: Int?)?
  private var ended: (time: Double, reason: String)?
  private var noted = false
  private var unauthenticatedNoted = false
  private var checkedTokens: Set<String> = []
  private var tokenNoted = false
  private var tokenResults: [FieldValue] = []
  private var oversized = 0
  private var deviceId: String?
  private var reported = false
  /// Why pktbench could not decode a client message, by frame: the server's
  /// error reports answer them.
  private var undecodable: [Int: String] = [:]

  init(secret: String?) {
    self.secret = secret
  }

  // MARK: Records

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    let now = Stamp(frame: message.frame, time: message.time)
    if message.eventName == "ws.close" {
      let code = message.number("code").flatMap { Int(exactly: $0) }
      let byServer = message.string("by") == "server"
      if byServer, serverClose == nil { serverClose = (now, code) }
      if !byServer, clientClose == nil { clientClose = (now, code) }
      seen = Seen(stamp: now, kind: "ws.close", fromServer: byServer, closeCode: code)
      return
    }
    guard message.codec == "falconeye", message.event == nil else { return }
    securityNote(now, flow: flow)
    let fromServer = flow.server.map { message.source == $0 } ?? false
    seen = Seen(stamp: now, kind: message.message ?? "undecodable message", fromServer: fromServer)
    overdue(before: message.time, flow: flow)
    guard let kind = message.message else {
      if !fromServer, let error = message.error, undecodable.count < FalconEyeErrorReports.kept {
        undecodable[message.frame ?? -1] = error.text
      }
      return
    }
    switch kind {
    case "authRequest": authRequest(message, now, flow: flow)
    case "authResponse": authResponse(message, now, flow: flow)
    case "heartbeat":
      if message.has("pong") {
        seen?.reply = .pong
        if !awaitingPong.isEmpty {
          flow.measure(
            "heartbeat_rtt", text: "heartbeat → pong", message.time - awaitingPong.removeFirst().time)
        }
      }
    case "cameraFrame": cameraFrame(message, now, flow: flow)
    case "poseBroadcast":
      if let frame = lastCameraFrame {
        flow.measure(
          "pose_latency", text: "cameraFrame (first byte) → poseBroadcast", message.time - frame.time)
        lastCameraFrame = nil
      }
    default:
      break
    }
  }

  // MARK: What the server did (the model)

  func modelled(_ event: DeviceEvent, flow: any FlowContext) {
    let evidence = seen.flatMap { $0.stamp.time == event.time ? $0 : nil }
    let current = evidence.flatMap { $0.stamp.frame == event.frame ? $0 : nil }
    let stamp = Stamp(frame: event.frame, time: event.time)
    switch event.name {
    case "opened":
      accept = stamp
    case "dropped":
      race.predicted(
        frame: event.frame, time: event.time, kind: current?.kind ?? "message", accept: accept?.time)
    case "drop_confirmed":
      let kind = race.kind(of: event.frame) ?? "message"
      race.confirmed(
        frame: event.frame, because: Self.confirmation(evidence, dropped: kind), at: evidence?.stamp.frame)
    case "authenticated", "auth_refused", "pong", "error_report", "frame_accepted", "ignored":
      let wasRaced = race.isDropped(frame: event.frame)
      let request = wasRaced ? stamp : (current.map(\.stamp) ?? stamp)
      let kind = current?.kind ?? (event.name == "pong" ? "heartbeat" : "authRequest")
      // A raced message shown handled: its reply is the record just seen.
      let waited = event.time - (race.time(of: event.frame) ?? event.time)
      switch event.name {
      case "authenticated", "auth_refused":
        if wasRaced {
          flow.measure("auth_latency", text: "authRequest → authResponse", waited)
        } else {
          awaitingAuth.append(request)
        }
      case "pong":
        if wasRaced {
          flow.measure("heartbeat_rtt", text: "heartbeat → pong", waited)
        } else {
          awaitingPong.append(request)
        }
      case "error_report":
        if wasRaced {
          reports.attachLast(to: request, kind: race.kind(of: event.frame) ?? kind)
        } else {
          reports.expect(request, kind: kind)
          if kind == "authRequest" { awaitingAuth.append(request) }
        }
      default:
        break
      }
      if wasRaced { race.handled(frame: event.frame) }
    default:
      break
    }
  }

  func connectionEnded(frame: Int, time: Double, reason: String, flow: any FlowContext) {
    if ended == nil { ended = (time, reason) }
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    guard !reported else { return }
    reported = true
    overdue(before: captureEnd, flow: flow)
    raceFindings(flow: flow, captureEnd: captureEnd)
    errorReportFindings(flow: flow)
    for request in awaitingAuth where !race.isDropped(frame: request.frame) {
      authUnanswered(request, endingAt: captureEnd, flow: flow)
    }
    awaitingAuth.removeAll()
  }

  func facts() -> [FieldValue.Member] {
    let auth: String
    if authenticated != nil {
      auth = "ok"
    } else if refused != nil {
      auth = "refused"
    } else if race.authRequest != nil {
      auth = "dropped"
    } else {
      auth = authRequests > 0 ? "unanswered" : "none"
    }
    var out: [FieldValue.Member] = [
      .init("device_id", deviceId.map { .string($0) } ?? .null),
      .init("auth", .string(auth)),
      .init("auth_requests", .integer(Int64(authRequests))),
      .init("session_frame", authenticated?.frame.map { .integer(Int64($0)) } ?? .null),
      .init("session_id", sessionId.map { .string($0) } ?? .null),
      .init("dropped_frames", .array(race.dropped.compactMap { $0.frame.map { .integer(Int64($0)) } })),
      .init("error_reports", .integer(Int64(reports.count))),
      .init("frames_over_target", .integer(Int64(oversized))),
    ]
    if secret != nil { out.append(.init("token_checks", .array(tokenResults))) }
    return out
  }

  // MARK: Closes

  func explainClose(
    code: UInt16?, by closer: String, time: Double, generic: CloseCause, flow: any FlowContext
  ) -> CloseCause {
    var cause = generic
    let handshake = flow.handshake
    cause.details.append(.init("authenticated", .bool(authenticated != nil)))
    let openFor = handshake.map { " \(Format.duration(time - $0.time)) after the handshake" } ?? ""
    switch code {
    case 1008 where closer == "server":
      if let dropped = race.authRequest {
        cause.text =
          "the server's 10 s auth timer closed the socket as unauthenticated\(openFor): its authRequest at "
          + "frame \(Self.text(dropped.frame)) (sent \(FalconEyeAuthRace.after(dropped, accept: accept?.frame))) "
          + "was dropped by the server's auth race (Aerie registers its text handler only after an await, "
          + "so messages that arrive this early are lost)"
        cause.frames += [dropped.frame, accept?.frame].compactMap { $0 }
        cause.details.append(.init("auth_request_frame", dropped.frame.map { .integer(Int64($0)) } ?? .null))
      } else if let refused, authenticated == nil {
        cause.text =
          "the server refused the authRequest (authResponse at frame \(Self.text(refused.reply.frame)): "
          + "\"\(AerieReply.refusedText)\") and closed the unauthenticated socket\(openFor) (its limit is 10 s)"
        cause.frames += [refused.reply.frame].compactMap { $0 }
      } else if authenticated == nil, authRequests == 0 {
        cause.text =
          "the client never sent an authRequest; the server closes unauthenticated sockets after 10 s"
          + "\(openFor.isEmpty ? "" : " (closed\(openFor))")"
      }
    case 1009:
      cause.text +=
        "; the Aerie server keeps Vapor's default 16 KiB frame limit while FalconEye camera frames target "
        + "up to 500 KB, so the server's limit must be raised well above that"
    default:
      break
    }
    if authenticated == nil, code != 1008 { cause.text += " (the socket was never authenticated)" }
    return cause
  }

  // MARK: Auth

  private func authRequest(_ message: FlowMessage, _ now: Stamp, flow: any FlowContext) {
    flow.setRoles(
      client: message.source, server: message.destination, clientRole: "client", serverRole: "server")
    authRequests += 1
    if firstAuthRequest == nil { firstAuthRequest = now }
    if deviceId == nil { deviceId = message.string("deviceId") }
    if let token = message.string("token"), let deviceId = message.string("deviceId") {
      checkToken(token, deviceId: deviceId, message: message, now, flow: flow)
    }
  }

  private func authResponse(_ message: FlowMessage, _ now: Stamp, flow: any FlowContext) {
    guard let reply = AerieReply(message) else { return }
    seen?.reply = reply
    if reply.isErrorReport {
      reports.observed(reply, at: now, error: message.string("error") ?? "")
      // A could-not-decode report may answer a broken authRequest.
      if reply == .malformed, !awaitingAuth.isEmpty { awaitingAuth.removeFirst() }
      return
    }
    if !awaitingAuth.isEmpty {
      flow.measure(
        "auth_latency", text: "authRequest → authResponse", message.time - awaitingAuth.removeFirst().time)
    }
    if reply == .accepted {
      if authenticated == nil { authenticated = now }
      sessionId = message.string("sessionId") ?? sessionId
      return
    }
    refused = (nil, now)
    let error = message.string("error") ?? AerieReply.refusedText
    flow.report(
      Finding(
        "falconeye.auth-refused", .warning, time: message.time, frame: message.frame,
        text:
          "the server refused the authentication: \(Excerpt.quoted(error, limit: 80)) (it accepts any token of "
          + "\(FalconEyeAuthToken.serverRule.description) and checks nothing else)",
        details: [.init("error", .string(error))]))
  }

  private func authUnanswered(_ request: Stamp, endingAt time: Double, flow: any FlowContext) {
    let how = endingText(after: request.time, captureEnd: time)
    flow.report(
      Finding(
        "falconeye.auth-unanswered", .error, time: request.time, frame: request.frame,
        duration: how.time - request.time,
        text: "the authRequest at frame \(Self.text(request.frame)) got no authResponse; \(how.text) "
          + "\(Format.duration(how.time - request.time)) later",
        details: [.init("waited_s", .number(how.time - request.time))]))
  }

  /// How the socket's story ended after `time`: a close, the TCP
  /// connection's end or the capture's.
  private func endingText(after time: Double, captureEnd: Double) -> (text: String, time: Double, frame: Int?)
  {
    if let close = [serverClose, clientClose].compactMap({ $0 }).filter({ $0.stamp.time >= time }).min(by: {
      $0.stamp.time < $1.stamp.time
    }) {
      let who = close.stamp.time == serverClose?.stamp.time ? "server" : "client"
      return (
        "the \(who) closed the socket\(close.code.map { " with \($0)" } ?? "") at frame \(Self.text(close.stamp.frame))",
        close.stamp.time, close.stamp.frame
      )
    }
    if let ended, ended.time >= time {
      let how =
        ended.reason == "rst"
        ? "the connection was reset (RST)"
        : ended.reason == "fin" ? "the connection ended (FIN)" : "the connection ended (\(ended.reason))"
      return (how, ended.time, nil)
    }
    return ("the capture ended", captureEnd, nil)
  }

  /// Requests the server handled that are still without their reply
  /// `replyTimeout` later.
  private func overdue(before time: Double, flow: any FlowContext) {
    while let heartbeat = awaitingPong.first, time - heartbeat.time > Self.replyTimeout {
      awaitingPong.removeFirst()
      flow.report(
        Finding(
          "falconeye.heartbeat-unanswered", .warning, time: heartbeat.time, frame: heartbeat.frame,
          text: "the server handled this heartbeat but never answered it with {\"pong\": true} (it answers "
            + "every heartbeat it gets, authenticated or not)"))
    }
  }

  // MARK: The auth race and the error reports

  private func raceFindings(flow: any FlowContext, captureEnd: Double) {
    guard let first = race.dropped.first else { return }
    let after = FalconEyeAuthRace.after
    if let auth = race.authRequest, auth.confirmation == nil {
      // Only the timing says so: the server never answered, nor showed it.
      let how = endingText(after: auth.time, captureEnd: captureEnd)
      flow.report(
        Finding(
          "falconeye.auth-unanswered", .error, time: auth.time, frame: auth.frame, related: [accept?.frame],
          duration: how.time - auth.time,
          text: "the authRequest at frame \(Self.text(auth.frame)) got no authResponse; \(how.text) "
            + "\(Format.duration(how.time - auth.time)) later. Sent \(after(auth, accept?.frame)), it was "
            + "probably dropped by the server's auth race (Aerie registers its text handler only after an "
            + "await, so messages that arrive this early are lost)",
          details: [
            .init("waited_s", .number(how.time - auth.time)),
            .init("after_accept_s", auth.sinceAccept.map { .number($0) } ?? .null),
          ]))
      return
    }
    let lead = race.authRequest ?? first
    let others = race.dropped.filter { $0.frame != lead.frame }
    var text =
      "the server dropped the \(lead.kind) at frame \(Self.text(lead.frame)), sent \(after(lead, accept?.frame)): "
      + "Aerie registers its text handler only after an await, so messages that arrive this early are lost "
      + "(its auth race)"
    if !others.isEmpty {
      text +=
        ". Dropped with it: "
        + others.map {
          "the \($0.kind) at frame \(Self.text($0.frame)) (\(Format.duration($0.sinceAccept ?? 0)) after the 101)"
        }
        .joined(separator: ", ")
    }
    if let confirmation = lead.confirmation {
      text += ". Confirmed by the server: \(confirmation)"
    } else {
      text += ". Only the timing says so: the server showed nothing either way before the socket's end"
    }
    var related: [Int?] = [accept?.frame, lead.confirmedAt] + others.map(\.frame)
    if lead.kind == "authRequest" {
      let notAuthenticated = reports.reports[.notAuthenticated] ?? []
      if !notAuthenticated.isEmpty {
        text +=
          ". After it the socket stayed unauthenticated: the server answered \(notAuthenticated.count) "
          + "message\(notAuthenticated.count == 1 ? "" : "s") with its notAuthenticated error (reports at "
          + "\(Format.frames(notAuthenticated.compactMap(\.reply.frame))))"
        related += notAuthenticated.map(\.reply.frame)
      }
      let how = endingText(after: lead.time, captureEnd: captureEnd)
      if how.frame == nil || how.frame != lead.confirmedAt {
        text += "; \(how.text), \(Format.duration(how.time - (accept?.time ?? lead.time))) after the 101"
      }
      if let authenticated {
        text += " (a later authRequest was answered: session from frame \(Self.text(authenticated.frame)))"
      }
      text +=
        ". Send the authRequest after the server has answered something (a heartbeat's pong), or resend it "
        + "when no authResponse comes within a second"
    } else {
      text += ". The server answered later messages; send nothing until it has answered a heartbeat"
    }
    flow.report(
      Finding(
        lead.kind == "authRequest" ? "falconeye.auth-dropped" : "falconeye.message-dropped",
        lead.kind == "authRequest" ? .error : .warning, time: lead.time, frame: lead.frame, related: related,
        text: text,
        details: [
          .init("message", .string(lead.kind)),
          .init("after_accept_s", lead.sinceAccept.map { .number($0) } ?? .null),
          .init("accept_frame", accept?.frame.map { .integer(Int64($0)) } ?? .null),
          .init("confirmed", .bool(lead.confirmation != nil)),
          .init("confirmed_by_frame", lead.confirmedAt.map { .integer(Int64($0)) } ?? .null),
          .init("also_dropped", .array(others.compactMap { $0.frame.map { .integer(Int64($0)) } })),
          .init("error_reports", .integer(Int64(reports.reports[.notAuthenticated]?.count ?? 0))),
        ]))
  }

  private func errorReportFindings(flow: any FlowContext) {
    for kind in [AerieReply.notAuthenticated, .malformed] {
      guard let list = reports.reports[kind], let first = list.first else { continue }
      let requests = list.compactMap(\.request?.frame)
      let replies = list.compactMap(\.reply.frame)
      let kinds = Set(list.map(\.requestKind))
      let what = kinds.count == 1 ? "\(kinds.first ?? "message")\(list.count == 1 ? "" : "s")" : "messages"
      var text: String
      if kind == .notAuthenticated {
        text =
          "the server answered \(list.count == 1 ? "a \(what)" : "\(list.count) \(what)")"
          + (requests.isEmpty ? "" : " (\(Format.frames(requests)))")
          + " with its notAuthenticated error — an authResponse with success false and "
          + "\(Excerpt.quoted(first.error, limit: 80)) at "
          + "\(Format.frames(replies)): an error report, not a refused login. The socket was not authenticated: "
        if let dropped = race.authRequest {
          text += "its authRequest (frame \(Self.text(dropped.frame))) was dropped by the server's auth race"
        } else if refused != nil {
          text += "the server had refused its authRequest"
        } else if authRequests == 0 {
          text += "the client never sent an authRequest"
        } else {
          text += "its authRequest was never answered"
        }
      } else {
        text =
          "the server could not decode \(list.count == 1 ? "the message" : "\(list.count) messages")"
          + (requests.isEmpty ? "" : " at \(Format.frames(requests))")
          + (requests.first.flatMap { undecodable[$0] }.map { " (\($0))" } ?? "")
          + " and answered with an error report at \(Format.frames(replies)): an authResponse with success "
          + "false and \(Excerpt.quoted(first.error, limit: 80)) — not a refused login"
          + (authenticated != nil ? " (the session stays authenticated)" : "")
      }
      flow.report(
        Finding(
          "falconeye.error-report", .warning, time: first.reply.time, frame: first.reply.frame,
          related: requests.map { Optional($0) } + replies.dropFirst().map { Optional($0) }, text: text,
          details: [
            .init("error", .string(first.error)),
            .init("kind", .string(kind == .notAuthenticated ? "notAuthenticated" : "undecodable")),
            .init("count", .integer(Int64(list.count))),
            .init("requests", .array(requests.map { .integer(Int64($0)) })),
            .init("reports", .array(replies.map { .integer(Int64($0)) })),
          ]))
    }
  }

  /// What the evidence record showed, in words.
  private static func confirmation(_ evidence: Seen?, dropped kind: String) -> String {
    guard let evidence else { return "the server's later behaviour showed it" }
    if evidence.kind == "ws.close", evidence.fromServer {
      return
        "it closed the socket as unauthenticated with \(evidence.closeCode.map(String.init) ?? "a close") "
        + "at frame \(text(evidence.stamp.frame)) (its auth timer)"
    }
    if let reply = evidence.reply {
      return
        "it answered a later message (\(reply.words) at frame \(text(evidence.stamp.frame))) but never the \(kind)"
    }
    return "its reply at frame \(text(evidence.stamp.frame)) answers a later message"
  }

  // MARK: Frames

  private func cameraFrame(_ message: FlowMessage, _ now: Stamp, flow: any FlowContext) {
    flow.count(
      "cameraFrame", direction: "client → server", expected: Self.frameRate, frame: message.frame,
      time: message.time)
    flow.measure("frame_bytes", text: "cameraFrame message size", unit: .bytes, Double(message.size))
    lastCameraFrame = now
    if firstAuthRequest == nil, !unauthenticatedNoted, message.source == flow.client || flow.client == nil {
      unauthenticatedNoted = true
      flow.report(
        Finding(
          "falconeye.unauthenticated-message", .warning, time: message.time, frame: message.frame,
          text: "the client sent a cameraFrame before any authRequest; the server answers it with its "
            + "notAuthenticated error and closes the socket 10 s after the 101 if no authentication comes"))
    }
    guard message.size > Self.frameTarget else { return }
    oversized += 1
    let jpeg = message.string("imageData").flatMap { $0.split(separator: " ").first.flatMap { Int($0) } }
    flow.report(
      Finding(
        "falconeye.frame-size", .warning, time: message.time, frame: message.frame,
        text: "cameraFrame message of \(Format.bytes(message.size))"
          + (jpeg.map { " (JPEG \(Format.bytes($0)))" } ?? "") + " is over the 500 KB a frame target",
        details: [.init("message_bytes", .integer(Int64(message.size)))]))
  }

  // MARK: Security

  private func securityNote(_ now: Stamp, flow: any FlowContext) {
    guard !noted else { return }
    let handshake = flow.handshake
    noted = true
    flow.report(
      Finding(
        "falconeye.plain-ws", .note, time: handshake?.time ?? now.time, frame: handshake?.frame ?? now.frame,
        text: "plain ws:// (the capture could read it): the auth token, camera images and poses cross "
          + "the network unencrypted; use wss://"))
  }

  private func checkToken(
    _ token: String, deviceId: String, message: FlowMessage, _ now: Stamp, flow: any FlowContext
  ) {
    if !tokenNoted {
      tokenNoted = true
      flow.report(
        Finding(
          "falconeye.token-unverifiable", .note, time: message.time, frame: message.frame,
          text: "nobody can verify this token: the server only checks that it is 16–256 characters of "
            + "base64, and the timestamp the app signed is not sent"))
    }
    guard let secret, !checkedTokens.contains(token), checkedTokens.count < Self.tokensChecked else { return }
    checkedTokens.insert(token)
    let envelope = message.fields.first { $0.name == "timestamp" }?.value.numericValue
    let signed = FalconEyeTokenCheck.signedString(
      token: token, deviceId: deviceId, envelopeTimestamp: envelope, secret: secret)
    tokenResults.append(
      .object([
        .init("frame", now.frame.map { .integer(Int64($0)) } ?? .null),
        .init("matches_secret", .bool(signed != nil)), .init("signed", signed.map { .string($0) } ?? .null),
      ]))
    if let signed {
      flow.report(
        Finding(
          "falconeye.token-known-secret", .warning, time: message.time, frame: message.frame,
          text: "the token is HMAC-SHA256 of \"\(signed)\" keyed with the --secret given: whoever knows "
            + "that secret can mint tokens for any device",
          details: [.init("signed", .string(signed))]))
    } else {
      flow.report(
        Finding(
          "falconeye.token-other-secret", .note, time: message.time, frame: message.frame,
          text: "the token is not the --secret's HMAC of \"deviceId:timestamp\" for any second up to "
            + "\(FalconEyeTokenCheck.lookBack) s before the envelope (another secret, or the server-style "
            + "signing with a nonce, which cannot be checked)"))
    }
  }

  static func text(_ frame: Int?) -> String { frame.map(String.init) ?? "?" }
}

extension FalconEyeCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] {
    [FalconEyeRules(secret: options.secret)]
  }

  /// Each WebSocket has its own auth race, replies and timer: the rules
  /// read one connection, and the server model's events about it.
  public var rulesScope: RulesScope { .connection }
}
