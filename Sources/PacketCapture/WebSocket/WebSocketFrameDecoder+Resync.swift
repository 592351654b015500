/// Finding frame boundaries again after lost bytes or a header that made no
/// sense. A candidate header must be one this peer could send (masking,
/// opcode, RSV bits, control rules, minimal length within limits), and when
/// its frame is short enough the header after it must be plausible too, so
/// the frame right after a gap waits for the next header's first two bytes
/// (or for `finish`). The decision depends only on the bytes, never on how
/// they were chunked.
extension WebSocketFrameDecoder {
  /// How far past a candidate header the decoder waits to see the next one.
  static let resyncLookahead = 1 << 16

  private enum Verdict { case implausible, needMore, accept }

  mutating func hold(_ bytes: UnsafeRawBufferPointer, at position: Position) {
    guard !bytes.isEmpty else { return }
    heldMarks.append((held.count, position))
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

  /// `atEnd`: the stream has ended, so a frame must fit in what is held and a
  /// candidate never waits for more.
  private func verdict(at start: Int, atEnd: Bool) -> Verdict {
    let waitOr: Verdict = atEnd ? .implausible : .needMore
    guard held.count - start >= 2 else { return waitOr }
    guard rules.plausibleStart(byte0: held[start], byte1: held[start + 1]) else { return .implausible }
    guard let header = WebSocketFrameHeader.parse(held, at: start) else { return waitOr }
    guard rules.plausible(header) else { return .implausible }
    // plausible() bounds the length by maxMessageBytes, so this fits an Int.
    let frameLength = header.headerLength + Int(header.payloadLength)
    let next = start + frameLength
    if !atEnd, frameLength + 2 > Self.resyncLookahead { return .accept }
    if atEnd, next == held.count {
      return textLooksRight(header, payloadAt: start + header.headerLength) ? .accept : .implausible
    }
    guard held.count >= next + 2 else { return waitOr }
    guard rules.plausibleStart(byte0: held[next], byte1: held[next + 1], after: header) else {
      return .implausible
    }
    return textLooksRight(header, payloadAt: start + header.headerLength) ? .accept : .implausible
  }

  /// An uncompressed text frame's payload must be UTF-8 (a fragment may stop
  /// inside a character). Masked random bytes almost never are, which keeps
  /// resynchronisation from locking onto a header-shaped run inside a payload.
  private func textLooksRight(_ header: WebSocketFrameHeader, payloadAt start: Int) -> Bool {
    guard header.opcode == WebSocketFrameHeader.text, !header.rsv1 else { return true }
    let count = Int(header.payloadLength)
    var payload = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
      payload[index] = held[start + index] ^ (header.masked ? header.maskByte(index) : 0)
    }
    guard let bad = WebSocketValidation.firstInvalidUTF8(payload) else { return true }
    // A fragment may end inside a character: a lead byte and continuation bytes.
    return !header.fin && bad >= count - 3 && (0xC2...0xF4).contains(payload[bad])
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
