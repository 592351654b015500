/// Lost bytes. When the gap falls inside a frame payload whose length the
/// header gave, and TCP says how many bytes are missing, the frame boundary
/// still holds: the missing bytes are skipped exactly and decoding stays in
/// step, the message that lost them is emitted marked incomplete. Otherwise
/// nothing says where the next frame starts, and the decoder resynchronises
/// on the next plausible header (WebSocketFrameDecoder+Resync).
extension WebSocketFrameDecoder {
  /// `missingBytes`: how many bytes were lost, when the transport knows (a
  /// TCP gap does); nil when it does not. Zero means nothing was lost.
  mutating func gap(frame: Int, time: Double, missingBytes: Int?, emit: (WebSocketEvent) -> Void) {
    if let missingBytes {
      guard missingBytes > 0 else { return }
      if skipInsideFrame(missingBytes, frame: frame, time: time, emit: emit) { return }
    }
    resynchroniseAfterGap(frame: frame, time: time, missingBytes: missingBytes, emit: emit)
  }

  /// Skips `missing` bytes of the current frame's payload if they all lie in
  /// it; returns false (changing nothing) when they do not.
  private mutating func skipInsideFrame(
    _ missing: Int, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) -> Bool {
    guard phase == .payload, header != nil, UInt64(missing) <= remaining else { return false }
    let here = Position(offset: streamEnd, frame: frame, time: time)
    // Offsets only label diagnostics: wrap rather than trap on absurd counts.
    streamEnd &+= missing
    remaining -= UInt64(missing)
    // The mask runs on over the lost bytes (RFC 6455 §5.3): bytes after the
    // hole unmask with the key index they had on the wire.
    payloadDone &+= missing
    switch sink {
    case .message:
      guard let open = message else { break }
      message?.holes.append(WebSocketMessage.Hole(offset: open.payload.count, count: missing, frame: frame))
      if open.compressed { loseHistory(of: open, at: here, emit: emit) }
    case .control:
      report(
        "gap", "\(missing) bytes of a control frame were lost; the frame is dropped, the framing kept",
        at: here, emit: emit)
      control.removeAll(keepingCapacity: true)
      sink = .discard
    case .discard:
      break
    }
    if remaining == 0 { end(frame: frame, emit: emit) }
    return true
  }

  /// A compressed message lost bytes: it cannot be inflated, and with context
  /// takeover neither can later messages that refer back into it. Reported
  /// once, when the history goes from known to lost; later compressed
  /// messages that need it fail with `bad-deflate`.
  private mutating func loseHistory(of open: OpenMessage, at here: Position, emit: (WebSocketEvent) -> Void) {
    guard inflater.contextTakeover else { return }
    if !inflater.historyLost {
      report(
        "deflate-history-lost",
        "bytes of the compressed message begun at frame \(open.start.frame) were lost: with context "
          + "takeover, later compressed messages that refer back to it cannot be inflated until "
          + "\(WebSocketInflater.windowSize) bytes of new history are seen", at: here, emit: emit)
    }
    inflater.loseHistory()
  }

  /// Drops whatever was partial and looks for the next frame.
  private mutating func resynchroniseAfterGap(
    frame: Int, time: Double, missingBytes: Int?, emit: (WebSocketEvent) -> Void
  ) {
    // Held bytes end where the gap begins: judge them as a stream that ended
    // rather than drop frames still waiting for their chain.
    if phase == .resync { scanHeld(atEnd: true, emit: emit) }
    let here = Position(offset: streamEnd, frame: frame, time: time)
    var lost = missingBytes.map { "\($0) bytes were lost" } ?? "bytes were lost"
    if let open = message {
      lost += "; the message begun at frame \(open.start.frame) is dropped after \(open.payload.count) bytes"
    } else if phase == .payload || !headerBytes.isEmpty {
      lost += "; a partial frame is dropped"
    }
    enterResync()
    streamEnd &+= missingBytes ?? 0
    report("gap", lost + "; resynchronising on the next plausible frame header", at: here, emit: emit)
    if rules.deflate, inflater.contextTakeover {
      inflater.loseHistory()
      report(
        "deflate-history-lost",
        "with context takeover the deflate history is lost at the gap: compressed messages that refer "
          + "back to it cannot be inflated until \(WebSocketInflater.windowSize) bytes of new history are seen",
        at: here, emit: emit)
    }
  }
}
