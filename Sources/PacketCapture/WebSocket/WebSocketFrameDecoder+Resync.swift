/// Finding frame boundaries again after lost bytes or a header that made no
/// sense. A candidate header must be one this peer could send (masking,
/// opcode, RSV bits, control rules, minimal length within limits, UTF-8 text),
/// and so must the few headers after it: one plausible header turns up every
/// few dozen bytes of random payload, a chain of four almost never. So the
/// frames right after a gap wait until the chain is complete, 64 KiB have
/// passed, or `finish` says the stream ended. The decision depends only on the
/// bytes, never on how they were chunked.
extension WebSocketFrameDecoder {
  /// How far past a candidate header the decoder waits to see its chain.
  static let resyncLookahead = 1 << 16
  /// Headers that must follow a candidate plausibly before it is believed.
  static let resyncLinks = 3
  /// How much of a candidate text frame's payload is checked for UTF-8.
  static let resyncTextPrefix = 256

  private enum Verdict { case implausible, needMore, accept }

  mutating func hold(_ bytes: UnsafeRawBufferPointer, at position: Position) {
    guard !bytes.isEmpty else { return }
    // Held bytes are contiguous (a gap empties them), so a chunk from the same
    // capture frame needs no mark of its own.
    let sameFrame = heldMarks.last.map {
      $0.position.frame == position.frame && $0.position.time == position.time
    }
    if sameFrame != true { heldMarks.append((held.count, position)) }
    held.append(contentsOf: bytes)
  }

  /// Scans held bytes for a frame header; on finding one, decodes from there.
  mutating func scanHeld(atEnd: Bool, emit: (WebSocketEvent) -> Void) {
    while phase == .resync {
      var keepFrom = held.count
      var accepted: Int?
      var candidate = 0
      scan: while candidate < held.count {
        switch verdict(at: candidate, atEnd: atEnd) {
        case .implausible: candidate += 1
        case .needMore:
          keepFrom = candidate
          break scan
        case .accept:
          accepted = candidate
          break scan
        }
      }
      guard let start = accepted else {
        dropHeld(before: keepFrom)
        return
      }
      let bytes = held
      let marks = heldMarks
      held.removeAll()
      heldMarks.removeAll()
      phase = .header
      replay(bytes, marks: marks, from: start, emit: emit)
    }
  }

  /// Judges the candidate header at `start` by the chain of frames it starts:
  /// it and the `resyncLinks` headers after it must all be plausible. A chain
  /// that runs past the lookahead is taken as it stands. `atEnd`: nothing
  /// follows the held bytes, so the chain must end exactly at their end.
  private func verdict(at start: Int, atEnd: Bool) -> Verdict {
    let waitOr: Verdict = atEnd ? .implausible : .needMore
    var position = start
    var previous: WebSocketFrameHeader?
    for _ in 0...Self.resyncLinks {
      if previous != nil {
        if atEnd, position == held.count { return .accept }
        if !atEnd, position - start + 2 > Self.resyncLookahead { return .accept }
      }
      guard held.count - position >= 2 else { return waitOr }
      guard rules.plausibleStart(byte0: held[position], byte1: held[position + 1], after: previous) else {
        return .implausible
      }
      guard let header = WebSocketFrameHeader.parse(held, at: position) else { return waitOr }
      guard rules.plausible(header) else { return .implausible }
      // plausible() bounds the length by maxMessageBytes, so this fits an Int.
      let payloadStart = position + header.headerLength
      let end = payloadStart + Int(header.payloadLength)
      // Wait for the checked prefix itself, never for more, so the verdict
      // does not depend on how much happened to be held.
      guard held.count >= payloadStart + min(Int(header.payloadLength), Self.resyncTextPrefix) else {
        return waitOr
      }
      guard textLooksRight(header, payloadAt: payloadStart) else { return .implausible }
      if !atEnd, end - start + 2 > Self.resyncLookahead { return .accept }
      previous = header
      position = end
    }
    return .accept
  }

  /// An uncompressed text frame's payload must be UTF-8 (a fragment, or the
  /// prefix checked here, may stop inside a character). Masked random bytes
  /// almost never are, which keeps resynchronisation from locking onto a
  /// header-shaped run inside a payload. Only a prefix is checked, so crafted
  /// input cannot make each candidate cost a whole payload.
  private func textLooksRight(_ header: WebSocketFrameHeader, payloadAt start: Int) -> Bool {
    guard header.opcode == WebSocketFrameHeader.text, !header.rsv1 else { return true }
    let count = min(Int(header.payloadLength), Self.resyncTextPrefix)
    var payload = Array(held[start..<start + count])
    payload.withUnsafeMutableBufferPointer { header.unmask($0, payloadOffset: 0) }
    guard let bad = WebSocketValidation.firstInvalidUTF8(payload) else { return true }
    let mayStopInside = !header.fin || count < Int(header.payloadLength)
    // Cut inside a character: a lead byte and only continuation bytes after it.
    return mayStopInside && bad >= count - 3 && (0xC2...0xF4).contains(payload[bad])
      && payload[(bad + 1)...].allSatisfy { $0 & 0xC0 == 0x80 }
  }

  private mutating func dropHeld(before index: Int) {
    guard index > 0 else { return }
    guard index < held.count else {
      held.removeAll()
      heldMarks.removeAll()
      return
    }
    // Keep the mark of the chunk that `index` falls in, moved up to `index`.
    let owner = heldMarks.lastIndex { $0.index <= index } ?? 0
    var marks = Array(heldMarks[owner...])
    if var first = marks.first {
      first.position.offset += index - first.index
      first.index = index
      marks[0] = first
    }
    held.removeFirst(index)
    heldMarks = marks.map { ($0.index - index, $0.position) }
  }

  /// Feeds held bytes from `start` back through the frame parser, chunk by
  /// chunk so every byte keeps its capture frame.
  private mutating func replay(
    _ bytes: [UInt8], marks: [(index: Int, position: Position)], from start: Int,
    emit: (WebSocketEvent) -> Void
  ) {
    for (number, mark) in marks.enumerated() {
      let end = number + 1 < marks.count ? marks[number + 1].index : bytes.count
      let from = max(mark.index, start)
      guard from < end else { continue }
      let offset = mark.position.offset + (from - mark.index)
      let position = Position(offset: offset, frame: mark.position.frame, time: mark.position.time)
      bytes.withUnsafeBytes { raw in
        let chunk = UnsafeRawBufferPointer(rebasing: raw[from..<end])
        if phase == .resync {
          hold(chunk, at: position)
          return
        }
        cursor = offset
        let used = consume(chunk, frame: position.frame, time: position.time, emit: emit)
        if used < chunk.count {
          hold(
            UnsafeRawBufferPointer(rebasing: chunk[used...]),
            at: Position(offset: offset + used, frame: position.frame, time: position.time))
        }
      }
    }
  }
}
