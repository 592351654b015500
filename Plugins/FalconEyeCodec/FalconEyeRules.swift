import PacketKit

/// FalconEye (PROTOCOLS.md §4) over one WebSocket: the auth exchange and
/// its latency, heartbeats and their round trip, camera frames against
/// 30 fps and the 500 KB target, poses after frames, and the security
/// notes (plain ws://, tokens nobody can verify, a token signed with a
/// known secret). It also explains closes in FalconEye's terms.
final class FalconEyeRules: FlowRules, CloseExplaining {
  static let frameRate = ExpectedRate.hertz(30, text: "30 fps", rule: "falconeye.frame-rate")
  static let frameTarget = 500_000
  static let unauthenticatedTimeout = 10.0
  /// A heartbeat without a pong this long is unanswered.
  static let heartbeatTimeout = 2.0
  static let tokensChecked = 16

  private struct Stamp {
    var frame: Int?
    var time: Double
  }

  private let secret: String?
  private var authRequest: Stamp?
  private var authRequests = 0
  private var authenticated: Stamp?
  private var authFailure: (stamp: Stamp, error: String)?
  private var pendingHeartbeat: Stamp?
  private var lastCameraFrame: Stamp?
  private var lastUndecodable: Stamp?
  private var noted = false
  private var unauthenticatedNoted = false
  private var checkedTokens: Set<String> = []
  private var tokenNoted = false
  private var tokenResults: [FieldValue] = []
  private var oversized = 0
  private var deviceId: String?

  init(secret: String?) {
    self.secret = secret
  }

  func observe(_ message: FlowMessage, flow: any FlowContext) {
    switch message.eventName {
    case "ws.close":
      authUnanswered(
        endingAt: message.time, how: "the \(message.string("by") ?? "peer") closed the socket", flow: flow)
      return
    default:
      break
    }
    guard message.codec == "falconeye" else { return }
    let now = Stamp(frame: message.frame, time: message.time)
    securityNote(now, flow: flow)
    guard let kind = message.message else {
      if message.source == flow.client || flow.client == nil { lastUndecodable = now }
      return
    }
    switch kind {
    case "authRequest": authRequest(message, now, flow: flow)
    case "authResponse": authResponse(message, now, flow: flow)
    case "heartbeat": heartbeat(message, now, flow: flow)
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

  func connectionEnded(frame: Int, time: Double, reason: String, flow: any FlowContext) {
    authUnanswered(endingAt: time, how: "the connection ended (\(reason))", flow: flow)
  }

  func finish(flow: any FlowContext, captureEnd: Double) {
    if let authRequest, captureEnd - authRequest.time > Self.heartbeatTimeout {
      authUnanswered(endingAt: captureEnd, how: "the capture ended", flow: flow)
    }
    if let heartbeat = pendingHeartbeat, captureEnd - heartbeat.time > Self.heartbeatTimeout {
      heartbeatUnanswered(heartbeat, flow: flow)
    }
  }

  func facts() -> [FieldValue.Member] {
    var out: [FieldValue.Member] = [
      .init("device_id", deviceId.map { .string($0) } ?? .null),
      .init(
        "auth",
        .string(
          authenticated != nil
            ? "ok" : authFailure != nil ? "failed" : authRequests > 0 ? "unanswered" : "none")),
      .init("auth_requests", .integer(Int64(authRequests))),
      .init("session_frame", authenticated?.frame.map { .integer(Int64($0)) } ?? .null),
      .init("frames_over_target", .integer(Int64(oversized))),
    ]
    if secret != nil { out.append(.init("token_checks", .array(tokenResults))) }
    return out
  }

  func explainClose(
    code: UInt16?, by closer: String, time: Double, generic: CloseCause, flow: any FlowContext
  ) -> CloseCause {
    var cause = generic
    let handshake = flow.handshake
    cause.details.append(.init("authenticated", .bool(authenticated != nil)))
    let sinceHandshake = handshake.map { time - $0.time }
    let openFor = sinceHandshake.map { " \(Format.duration($0)) after the handshake" } ?? ""
    switch code {
    case 1008:
      if let authRequest {
        let sent =
          handshake.map { " \(Format.duration(authRequest.time - $0.time)) after the handshake" } ?? ""
        cause.text =
          "the server never answered the authRequest at frame \(authRequest.frame.map(String.init) ?? "?")"
          + " (sent\(sent)): a server that registers its message handler late (after an await) drops "
          + "messages that arrive that early, then closes the socket as unauthenticated"
          + "\(openFor) (its limit is 10 s)"
        cause.frames += [authRequest.frame, handshake?.frame].compactMap { $0 }
        cause.details.append(
          .init("auth_request_frame", authRequest.frame.map { .integer(Int64($0)) } ?? .null))
      } else if let authFailure, authenticated == nil {
        cause.text =
          "the server refused the auth (authResponse at frame \(authFailure.stamp.frame.map(String.init) ?? "?"): "
          + "\(authFailure.error))"
        cause.frames += [authFailure.stamp.frame].compactMap { $0 }
      } else if authenticated == nil, authRequests == 0 {
        cause.text =
          "the client never sent an authRequest; the server closes unauthenticated sockets after 10 s"
          + "\(openFor.isEmpty ? "" : " (closed\(openFor))")"
      }
    case 1009:
      cause.text +=
        "; FalconEye camera frames target up to 500 KB, so the server's limit must be raised well above that"
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
    if authRequest != nil {
      authUnanswered(endingAt: message.time, how: "the client sent another authRequest", flow: flow)
    }
    authRequests += 1
    authRequest = now
    if deviceId == nil { deviceId = message.string("deviceId") }
    if let token = message.string("token"), let deviceId = message.string("deviceId") {
      checkToken(token, deviceId: deviceId, message: message, now, flow: flow)
    }
  }

  private func authResponse(_ message: FlowMessage, _ now: Stamp, flow: any FlowContext) {
    if let request = authRequest {
      flow.measure("auth_latency", text: "authRequest → authResponse", message.time - request.time)
      authRequest = nil
    }
    if message.bool("success") == true {
      if authenticated == nil { authenticated = now }
      return
    }
    let error = message.string("error") ?? "no error text"
    if authenticated != nil {
      // Aerie answers a message it cannot parse with a failed authResponse.
      let cause = lastUndecodable.flatMap { message.time - $0.time < 2 ? $0 : nil }
      let after =
        cause.map { ", answering the undecodable message at frame \($0.frame.map(String.init) ?? "?")" } ?? ""
      flow.report(
        Finding(
          "falconeye.error-response", .warning, time: message.time, frame: message.frame,
          related: [cause?.frame],
          text:
            "the server sent an authResponse with success false on an authenticated session\(after): \"\(error)\"",
          details: [.init("error", .string(error))]))
    } else {
      authFailure = (now, error)
      flow.report(
        Finding(
          "falconeye.auth-failed", .warning, time: message.time, frame: message.frame,
          text: "authentication failed: \"\(error)\"", details: [.init("error", .string(error))]))
    }
  }

  private func authUnanswered(endingAt time: Double, how: String, flow: any FlowContext) {
    guard let request = authRequest else { return }
    authRequest = nil
    flow.report(
      Finding(
        "falconeye.auth-unanswered", .error, time: request.time, frame: request.frame,
        duration: time - request.time,
        text: "the authRequest got no authResponse; \(how) \(Format.duration(time - request.time)) later. "
          + "A server that registers its handler late drops messages sent right after the handshake",
        details: [.init("waited_s", .number(time - request.time))]))
  }

  // MARK: Heartbeats and frames

  private func heartbeat(_ message: FlowMessage, _ now: Stamp, flow: any FlowContext) {
    if message.has("pong") {
      if let ping = pendingHeartbeat {
        flow.measure("heartbeat_rtt", text: "heartbeat → pong", message.time - ping.time)
        pendingHeartbeat = nil
      }
      return
    }
    if let previous = pendingHeartbeat { heartbeatUnanswered(previous, flow: flow) }
    pendingHeartbeat = now
    unauthenticatedMessage("heartbeat", message, flow: flow)
  }

  private func heartbeatUnanswered(_ heartbeat: Stamp, flow: any FlowContext) {
    pendingHeartbeat = nil
    flow.report(
      Finding(
        "falconeye.heartbeat-unanswered", .warning, time: heartbeat.time, frame: heartbeat.frame,
        text: "the server never answered this heartbeat with {\"pong\": true}"))
  }

  private func cameraFrame(_ message: FlowMessage, _ now: Stamp, flow: any FlowContext) {
    flow.count(
      "cameraFrame", direction: "client → server", expected: Self.frameRate, frame: message.frame,
      time: message.time)
    flow.measure("frame_bytes", text: "cameraFrame message size", unit: .bytes, Double(message.size))
    lastCameraFrame = now
    unauthenticatedMessage("cameraFrame", message, flow: flow)
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

  private func unauthenticatedMessage(_ kind: String, _ message: FlowMessage, flow: any FlowContext) {
    guard authenticated == nil, !unauthenticatedNoted, message.source == flow.client else { return }
    unauthenticatedNoted = true
    flow.report(
      Finding(
        "falconeye.unauthenticated-message", .warning, time: message.time, frame: message.frame,
        text: "the client sent a \(kind) before authenticating; the server ignores it or closes the socket"))
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
}

extension FalconEyeCodec: AnalysisRules {
  public func makeRules(options: AnalysisOptions) -> [any FlowRules] {
    [FalconEyeRules(secret: options.secret)]
  }
}
