import PacketKit

extension WebSocketFrameDecoder {
  /// A control frame is complete (RFC 6455 §5.5).
  mutating func handleControl(_ opcode: UInt8, emit: (WebSocketEvent) -> Void) {
    let payload = control
    control.removeAll(keepingCapacity: true)
    let start = headerStart
    func announce(_ control: WebSocketControl) {
      emit(.control(control, direction: direction, frame: start.frame, time: start.time))
    }
    switch opcode {
    case WebSocketFrameHeader.ping:
      announce(.ping(payload))
    case WebSocketFrameHeader.pong:
      announce(.pong(payload))
    case WebSocketFrameHeader.close:
      closeSeen = true
      guard payload.count >= 2 else {
        announce(.close(code: nil, reason: ""))
        if payload.count == 1 {
          report(
            "bad-close-payload", "a close body of 1 byte cannot hold a status code (RFC 6455 §5.5.1)",
            at: start, emit: emit)
        }
        return
      }
      let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
      let reason = Array(payload[2...])
      announce(.close(code: code, reason: String(decoding: reason, as: UTF8.self)))
      if let problem = WebSocketValidation.closeCodeProblem(code) {
        report("bad-close-code", problem + " (RFC 6455 §7.4)", at: start, emit: emit)
      }
      if let bad = WebSocketValidation.firstInvalidUTF8(reason) {
        report(
          "bad-close-reason",
          "the close reason is not valid UTF-8 at byte \(bad) of the reason (RFC 6455 §5.5.1)",
          at: start, emit: emit)
      }
    default:
      break
    }
  }

  /// The final fragment of a data message is in: inflate, check, emit.
  mutating func finishMessage(lastFrame: Int, emit: (WebSocketEvent) -> Void) {
    guard let open = message else { return }
    message = nil
    guard open.holes.isEmpty else {
      // Lost bytes: nothing to inflate or validate, but the message was
      // there, and its codec can still be named.
      emit(
        .message(
          WebSocketMessage(
            direction: direction, isText: open.isText, payload: open.payload, firstFrame: open.start.frame,
            lastFrame: lastFrame, time: open.start.time, wasCompressed: open.compressed,
            fragments: open.fragments, wireBytes: open.wireBytes, holes: open.holes)))
      return
    }
    var payload = open.payload
    if open.compressed {
      let historyWasLost = inflater.historyLost
      switch inflater.inflate(payload, limit: maxDecompressedBytes) {
      case .success(let output):
        payload = output
      case .failure(.tooLarge(let limit)):
        report(
          "decompressed-too-large",
          "the message begun at frame \(open.start.frame) inflates past the \(limit)-byte limit; it is dropped",
          at: open.start, emit: emit)
        return
      case .failure(.corrupt(let reason)):
        let why =
          historyWasLost
          ? "; the deflate history was lost earlier, so back-references into it cannot be resolved" : ""
        report(
          "bad-deflate",
          "the message begun at frame \(open.start.frame) does not inflate: \(reason)\(why) (RFC 7692 §7.2.2)",
          at: open.start, emit: emit)
        return
      }
    }
    var diagnostics: [Diagnostic] = []
    if open.isText, let bad = WebSocketValidation.firstInvalidUTF8(payload) {
      diagnostics.append(
        Diagnostic(
          .error, "bad-utf8", "the text message is not valid UTF-8 at byte \(bad) (RFC 6455 §8.1)",
          range: bad..<(bad + 1)))
    }
    emit(
      .message(
        WebSocketMessage(
          direction: direction, isText: open.isText, payload: payload, firstFrame: open.start.frame,
          lastFrame: lastFrame, time: open.start.time, wasCompressed: open.compressed,
          fragments: open.fragments, wireBytes: open.wireBytes, diagnostics: diagnostics)))
  }
}
