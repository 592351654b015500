import PacketDecode
import PacketKit

/// The life of a WebSocket connection as far as closes go: the handshake,
/// what each side sent last (and the largest that got through), each close
/// handshake (code, reason, who closed, whether the peer answered) with its
/// likely cause, and connections that end without one (RFC 6455 §7).
final class WebSocketCloseRules: FlowRules {
  private struct Sent {
    var frame: Int?
    var time: Double
    var size: Int
    var name: String
  }

  private struct Close {
    var message: FlowMessage
    var frame: Int? { message.frame }
    var time: Double { message.time }
    var code: UInt16?
    var reason: String
    var by: String
    var cause: CloseCause
  }

  private var lastSent: [String: Sent] = [:]
  private var largestPassed: [String: Sent] = [:]
  private var pending: Close?
  private var closes: [FieldValue] = []
  private var sawClose = false
  private var endReported = false

  package func observe(_ message: FlowMessage, flow: any FlowContext) {
    switch message.eventName {
    case "ws.handshake":
      flow.setRoles(
        client: message.source, server: message.destination, clientRole: "client", serverRole: "server")
    case "ws.accept":
      if let handshake = flow.handshake {
        flow.measure("handshake", text: "upgrade request → 101 response", message.time - handshake.time)
      }
    case "ws.close":
      close(message, flow: flow)
    case nil where message.transport == "websocket":
      guard let sender = message.source else { return }
      if let previous = lastSent[sender], previous.size > largestPassed[sender]?.size ?? -1 {
        largestPassed[sender] = previous
      }
      let name = message.message ?? (message.error != nil ? "undecodable message" : "message")
      lastSent[sender] = Sent(frame: message.frame, time: message.time, size: message.size, name: name)
    default:
      break
    }
  }

  package func connectionEnded(frame: Int, time: Double, reason: String, flow: any FlowContext) {
    if pending != nil {
      finishClose(reply: nil, endedBy: reason, flow: flow)
      return
    }
    guard !sawClose, !endReported else { return }
    endReported = true
    let tracked = ["fin", "rst"].contains(reason)
    let how = reason == "rst" ? "was reset (RST)" : reason == "fin" ? "ended (FIN)" : "was still open"
    let text =
      tracked
      ? "the TCP connection \(how) without a WebSocket close handshake: a peer crashed, "
        + "was killed or dropped the socket"
      : "the WebSocket \(how) when the capture ended (\(reason)); no close handshake was seen"
    flow.report(
      Finding(
        tracked ? "ws.no-close" : "ws.open-at-end", tracked ? .warning : .note, time: time, frame: frame,
        text: text, details: [.init("tcp_end", .string(reason))]))
  }

  package func finish(flow: any FlowContext, captureEnd: Double) {
    if pending != nil { finishClose(reply: nil, endedBy: nil, flow: flow) }
  }

  package func facts() -> [FieldValue.Member] {
    [.init("closes", .array(closes))]
  }

  // MARK: Closes

  private func close(_ message: FlowMessage, flow: any FlowContext) {
    let by = message.string("by") ?? flow.role(of: message.source)
    if let pending {
      guard pending.by != by else { return }
      if message.time < pending.time {
        // Delivered out of order (a stream resynchronised after a gap):
        // the earlier close is the one that started the handshake.
        self.pending = makeClose(message, by: by, flow: flow)
        finishClose(reply: pending.message, endedBy: nil, flow: flow)
      } else {
        finishClose(reply: message, endedBy: nil, flow: flow)
      }
      return
    }
    guard !sawClose else { return }
    sawClose = true
    pending = makeClose(message, by: by, flow: flow)
  }

  private func makeClose(_ message: FlowMessage, by: String, flow: any FlowContext) -> Close {
    let code = message.number("code").flatMap { UInt16(exactly: $0) }
    var cause = genericCause(code: code, closer: message.source, by: by, flow: flow)
    for explainer in (flow as? FlowAnalyzer)?.rules.compactMap({ $0 as? any CloseExplaining }) ?? [] {
      cause = explainer.explainClose(code: code, by: by, time: message.time, generic: cause, flow: flow)
    }
    if let handshake = flow.handshake {
      cause.details.append(.init("after_handshake_s", .number(message.time - handshake.time)))
    }
    return Close(
      message: message, code: code, reason: message.string("reason") ?? "", by: by, cause: cause)
  }

  private func finishClose(reply: FlowMessage?, endedBy: String?, flow: any FlowContext) {
    guard let close = pending else { return }
    pending = nil
    let meaning = close.code.map { "\($0) (\(WebSocketCloseCode.meaning($0)))" } ?? "no status code"
    let peer = close.by == "client" ? "server" : "client"
    var text = "\(close.by) closed with \(meaning)"
    if !close.reason.isEmpty { text += ", reason \"\(close.reason)\"" }
    if let reply {
      text += "; the \(peer) answered (frame \(reply.frame.map(String.init) ?? "?"))"
      let echoed = reply.number("code").flatMap { UInt16(exactly: $0) }
      if let echoed, echoed != close.code { text += " with \(echoed)" }
    } else if let endedBy {
      text += "; the \(peer) never answered before the TCP connection ended (\(endedBy))"
    } else {
      text += "; no answer from the \(peer) in the capture"
    }
    text += ". Likely cause: \(close.cause.text)"
    let severity: Finding.Severity =
      switch close.code {
      case 1000, 1001, nil: .note
      case 1002, 1007, 1008, 1009, 1011: .error
      default: .warning
      }
    var details: [FieldValue.Member] = [
      .init("code", close.code.map { .integer(Int64($0)) } ?? .null),
      .init("meaning", .string(close.code.map(WebSocketCloseCode.meaning) ?? "no status code")),
      .init("reason", .string(close.reason)), .init("by", .string(close.by)),
      .init("reply_frame", reply?.frame.map { .integer(Int64($0)) } ?? .null),
      .init("cause", .string(close.cause.text)),
    ]
    details += close.cause.details
    closes.append(
      .object(
        details.filter { $0.key != "cause" } + [
          .init("frame", close.frame.map { .integer(Int64($0)) } ?? .null)
        ]))
    flow.report(
      Finding(
        "ws.close", severity, time: close.time, frame: close.frame,
        related: [reply?.frame] + close.cause.frames.map { Optional($0) }, text: text, details: details))
  }

  /// What the close code says, with the messages that most likely caused it.
  private func genericCause(code: UInt16?, closer: String?, by: String, flow: any FlowContext) -> CloseCause {
    let peerEndpoint = closer == flow.client ? flow.server : flow.client
    let peer = by == "client" ? "server" : "client"
    let suspect = peerEndpoint.flatMap { lastSent[$0] }
    switch code {
    case 1000: return CloseCause(text: "a normal close: the \(by) was done")
    case 1001:
      return CloseCause(text: "the \(by) is going away (app backgrounded, page left, server restarting)")
    case 1009:
      guard let suspect else { return CloseCause(text: "a message was larger than the \(by) accepts") }
      var text =
        "the \(peer)'s \(suspect.name) at frame \(suspect.frame.map(String.init) ?? "?") is "
        + "\(Format.bytes(suspect.size)), larger than the \(by)'s frame limit"
      var details: [FieldValue.Member] = [
        .init("message_frame", suspect.frame.map { .integer(Int64($0)) } ?? .null),
        .init("message_bytes", .integer(Int64(suspect.size))),
      ]
      var frames = suspect.frame.map { [$0] } ?? []
      if let passed = peerEndpoint.flatMap({ largestPassed[$0] }) {
        text +=
          "; the largest that got through was \(Format.bytes(passed.size)) (frame "
          + "\(passed.frame.map(String.init) ?? "?")), so the limit lies between"
        details.append(.init("largest_passed_frame", passed.frame.map { .integer(Int64($0)) } ?? .null))
        details.append(.init("largest_passed_bytes", .integer(Int64(passed.size))))
        if let frame = passed.frame { frames.append(frame) }
      }
      text += " (common server defaults are as small as 16 KiB = 16,384 bytes)"
      return CloseCause(text: text, frames: frames, details: details)
    case 1011:
      let after =
        suspect.map { " right after the \(peer)'s \($0.name) at frame \($0.frame.map(String.init) ?? "?")" }
        ?? ""
      return CloseCause(
        text: "the \(by) hit an internal error\(after) (often an exception in its message handler)",
        frames: suspect?.frame.map { [$0] } ?? [])
    case 1002: return CloseCause(text: "the \(by) saw a frame that breaks RFC 6455")
    case 1003:
      return CloseCause(text: "the \(by) cannot take this kind of data (binary where text is expected?)")
    case 1007:
      return CloseCause(
        text: "a message's data was invalid for its type (e.g. text that is not UTF-8)",
        frames: suspect?.frame.map { [$0] } ?? [])
    case 1008: return CloseCause(text: "the \(by) refused something the \(peer) did (policy violation)")
    case nil: return CloseCause(text: "the close frame carried no status code")
    case let code?:
      return CloseCause(text: code >= 4000 ? "an application-defined code" : WebSocketCloseCode.meaning(code))
    }
  }
}
