import PacketKit

/// Frame decoding for one direction of an upgraded connection: headers,
/// unmasking, fragment assembly, control frames, permessage-deflate. Bytes
/// arrive in order in chunks of any size; nothing here depends on where the
/// chunks were cut.
struct WebSocketFrameDecoder: Sendable {
  /// Where a byte was in the direction's stream and in the capture.
  struct Position: Sendable, Hashable {
    var offset: Int
    var frame: Int
    var time: Double
  }

  enum Phase: Sendable, Hashable { case header, payload, resync }
  enum Sink: Sendable, Hashable { case message, control, discard }

  struct OpenMessage: Sendable {
    var isText: Bool
    var compressed: Bool
    var payload: [UInt8]
    var start: Position
    var fragments: Int
    var wireBytes: Int
    /// Bytes lost inside its frames (skipped exactly, the framing intact).
    var holes: [WebSocketMessage.Hole] = []
  }

  let direction: WebSocketDirection
  var rules: WebSocketFrameRules
  var inflater: WebSocketInflater
  var maxDecompressedBytes: Int
  /// Bytes fed in this direction so far, handshake included: the stream
  /// offset of the next byte to arrive.
  var streamEnd = 0

  var phase = Phase.header
  /// Stream offset of the next byte the frame parser consumes.
  var cursor = 0
  var headerBytes: [UInt8] = []
  var headerStart = Position(offset: 0, frame: 0, time: 0)
  var header: WebSocketFrameHeader?
  var payloadDone = 0
  var remaining: UInt64 = 0
  var sink = Sink.discard
  var control: [UInt8] = []
  var message: OpenMessage?
  /// Inside a message that is being skipped (too large): its continuations are expected.
  var discarding = false
  /// Since a gap: continuations of a message whose start was lost are expected.
  var afterGap = false
  var closeSeen = false
  /// Bytes kept while resynchronising, and where each fed chunk among them began.
  var held: [UInt8] = []
  var heldMarks: [(index: Int, position: Position)] = []

  init(direction: WebSocketDirection, limits: WebSocketLimits, deflate: WebSocketDeflateParameters?) {
    self.direction = direction
    rules = WebSocketFrameRules(
      direction: direction, deflate: deflate != nil, otherExtensions: false,
      maxMessageBytes: limits.maxMessageBytes)
    inflater = WebSocketInflater(contextTakeover: deflate?.contextTakeover(direction) ?? true)
    maxDecompressedBytes = limits.maxDecompressedBytes
  }

  mutating func configure(deflate: WebSocketDeflateParameters?, otherExtensions: Bool) {
    rules.deflate = deflate != nil
    rules.otherExtensions = otherExtensions
    inflater = WebSocketInflater(contextTakeover: deflate?.contextTakeover(direction) ?? true)
  }

  mutating func feed(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    let base = streamEnd
    streamEnd += bytes.count
    var index = 0
    if phase != .resync {
      cursor = base
      index = consume(bytes, frame: frame, time: time, emit: emit)
    }
    if index < bytes.count {
      hold(
        UnsafeRawBufferPointer(rebasing: bytes[index...]),
        at: Position(offset: base + index, frame: frame, time: time))
      scanHeld(atEnd: false, emit: emit)
    }
  }

  /// Starts looking for a frame header without reporting anything, as after a
  /// handshake that was lost.
  mutating func enterResync() {
    if message?.compressed == true { inflater.loseHistory() }
    message = nil
    discarding = false
    headerBytes.removeAll()
    control.removeAll()
    header = nil
    held.removeAll()
    heldMarks.removeAll()
    afterGap = true
    phase = .resync
  }

  mutating func markHistoryLost() { inflater.loseHistory() }

  /// The stream ended: held bytes are scanned knowing nothing follows them, and
  /// an unfinished message or frame is reported.
  mutating func finish(frame: Int, time: Double, emit: (WebSocketEvent) -> Void) {
    if phase == .resync { scanHeld(atEnd: true, emit: emit) }
    let here = Position(offset: streamEnd, frame: frame, time: time)
    if let open = message {
      report(
        "truncated-message",
        "the stream ended inside the message begun at frame \(open.start.frame) after "
          + "\(open.payload.count) payload bytes", at: here, emit: emit)
    } else if phase == .payload || !headerBytes.isEmpty {
      report("truncated-frame", "the stream ended inside a frame", at: here, emit: emit)
    }
    message = nil
    headerBytes.removeAll()
    header = nil
    phase = .header
  }

  // MARK: Frames

  /// Consumes frames until the bytes run out or a fatal header sends the
  /// decoder to resynchronise; returns how many bytes it took.
  mutating func consume(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) -> Int {
    var index = 0
    while index < bytes.count {
      switch phase {
      case .resync:
        return index
      case .header:
        if headerBytes.isEmpty { headerStart = Position(offset: cursor, frame: frame, time: time) }
        let needed = headerBytes.count < 2 ? 2 : WebSocketFrameHeader.length(byte1: headerBytes[1])
        let take = min(needed - headerBytes.count, bytes.count - index)
        headerBytes.append(contentsOf: bytes[index..<index + take])
        index += take
        cursor += take
        if headerBytes.count >= 2, let parsed = WebSocketFrameHeader.parse(headerBytes) {
          begin(parsed, frame: frame, time: time, emit: emit)
        }
      case .payload:
        let take = Int(min(remaining, UInt64(bytes.count - index)))
        deliver(UnsafeRawBufferPointer(rebasing: bytes[index..<index + take]))
        index += take
        cursor += take
        remaining -= UInt64(take)
        if remaining == 0 { end(frame: frame, emit: emit) }
      }
    }
    return index
  }

  private mutating func begin(
    _ parsed: WebSocketFrameHeader, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    let raw = headerBytes
    headerBytes.removeAll(keepingCapacity: true)
    let fatal: (code: String, text: String)? =
      if !WebSocketFrameHeader.isDefined(opcode: parsed.opcode) {
        ("reserved-opcode", "opcode 0x\(String(parsed.opcode, radix: 16)) is reserved (RFC 6455 §5.2)")
      } else if parsed.payloadLength >> 63 != 0 {
        ("bad-length", "the 64-bit payload length has its most significant bit set (RFC 6455 §5.2)")
      } else if parsed.payloadLength > UInt64(max(rules.maxMessageBytes, 0)) {
        // Skipping what such a header claims (up to 2⁶³ − 1 bytes) would
        // swallow the rest of the direction; a frame larger than any
        // message accepted is damage like any other, and the search for
        // the next header starts right after this one's first byte.
        (
          "message-too-large",
          "a frame claims \(parsed.payloadLength) payload bytes, more than the "
            + "\(rules.maxMessageBytes)-byte message limit"
        )
      } else {
        nil
      }
    if let fatal {
      let dropped = message.map { "; the message begun at frame \($0.start.frame) is dropped" } ?? ""
      report(
        fatal.code, fatal.text + "; frame boundaries are lost from here" + dropped, at: headerStart,
        emit: emit)
      enterResync()
      // Rescan from the byte after the bad header's first one.
      held = Array(raw.dropFirst())
      heldMarks = [
        (0, Position(offset: headerStart.offset + 1, frame: headerStart.frame, time: headerStart.time))
      ]
      return
    }
    header = parsed
    payloadDone = 0
    remaining = parsed.payloadLength
    checkHeader(parsed, emit: emit)
    route(parsed, emit: emit)
    if remaining == 0 {
      end(frame: frame, emit: emit)
    } else {
      phase = .payload
    }
  }

  /// Violations that leave the frame boundaries intact: reported, then decoded anyway.
  private mutating func checkHeader(_ parsed: WebSocketFrameHeader, emit: (WebSocketEvent) -> Void) {
    func problem(_ code: String, _ text: String) { report(code, text, at: headerStart, emit: emit) }
    if closeSeen {
      problem("frame-after-close", "a frame follows this endpoint's close frame (RFC 6455 §5.5.1)")
    }
    switch (direction, parsed.masked) {
    case (.clientToServer, false):
      problem("unmasked-client-frame", "a client frame is not masked (RFC 6455 §5.1)")
    case (.serverToClient, true):
      problem("masked-server-frame", "a server frame is masked (RFC 6455 §5.1)")
    default: break
    }
    if parsed.rsv2 || parsed.rsv3, !rules.otherExtensions {
      problem("bad-rsv", "RSV2/RSV3 are set but no extension defines them (RFC 6455 §5.2)")
    }
    if parsed.rsv1 {
      if parsed.isControl {
        problem("rsv1-on-control", "RSV1 is set on a control frame (RFC 7692 §6.1)")
      } else if parsed.opcode == WebSocketFrameHeader.continuation {
        problem("rsv1-on-continuation", "RSV1 is set on a continuation frame (RFC 7692 §6.1)")
      } else if !rules.deflate, !rules.otherExtensions {
        problem("bad-rsv", "RSV1 is set but permessage-deflate was not negotiated (RFC 6455 §5.2)")
      }
    }
    if !parsed.lengthIsMinimal {
      problem(
        "non-minimal-length",
        "the payload length \(parsed.payloadLength) is not in its shortest form (RFC 6455 §5.2)")
    }
  }

  /// Decides where the payload goes.
  private mutating func route(_ parsed: WebSocketFrameHeader, emit: (WebSocketEvent) -> Void) {
    func problem(_ code: String, _ text: String) { report(code, text, at: headerStart, emit: emit) }
    let length = parsed.payloadLength
    let limit = UInt64(max(rules.maxMessageBytes, 0))
    if parsed.isControl {
      if !parsed.fin { problem("fragmented-control", "a control frame is fragmented (RFC 6455 §5.5)") }
      if length > 125 {
        problem(
          "control-too-long", "a control frame carries \(length) bytes; the limit is 125 (RFC 6455 §5.5)")
        sink = .discard
      } else {
        control.removeAll(keepingCapacity: true)
        sink = .control
      }
      return
    }
    if parsed.isDataStart {
      if let open = message {
        problem(
          "unfinished-message",
          "a new data frame starts while the message begun at frame \(open.start.frame) is unfinished "
            + "(RFC 6455 §5.4); that message is dropped")
        if open.compressed { inflater.loseHistory() }
        message = nil
      } else if discarding {
        problem(
          "unfinished-message",
          "a new data frame starts while an oversized message is unfinished (RFC 6455 §5.4)")
      }
      discarding = false
      afterGap = false
      let compressed = parsed.rsv1 && rules.deflate
      // (`begin` refused a frame longer than the limit.) A header's claim is not a reason to allocate: grow with the bytes.
      var payload: [UInt8] = []
      payload.reserveCapacity(Int(min(length, 1 << 16)))
      message = OpenMessage(
        isText: parsed.opcode == WebSocketFrameHeader.text, compressed: compressed, payload: payload,
        start: headerStart, fragments: 1, wireBytes: Int(parsed.wireLength))
      sink = .message
      return
    }
    // A continuation.
    if let open = message {
      guard UInt64(open.payload.count) + length <= limit else {
        message = nil
        tooLarge(
          UInt64(open.payload.count) + length, compressed: open.compressed, fin: parsed.fin, emit: emit)
        return
      }
      message?.fragments += 1
      message?.wireBytes += Int(parsed.wireLength)
      sink = .message
    } else {
      if !discarding, !afterGap {
        problem(
          "orphan-continuation", "a continuation frame arrives with no message to continue (RFC 6455 §5.4)")
      }
      sink = .discard
    }
  }

  private mutating func tooLarge(
    _ length: UInt64, compressed: Bool, fin: Bool, emit: (WebSocketEvent) -> Void
  ) {
    report(
      "message-too-large",
      "a message of at least \(length) bytes passes the \(rules.maxMessageBytes)-byte limit; it is skipped",
      at: headerStart, emit: emit)
    if compressed { inflater.loseHistory() }
    discarding = !fin
    sink = .discard
  }

  private mutating func deliver(_ bytes: UnsafeRawBufferPointer) {
    guard let header else { return }
    switch sink {
    case .message:
      guard var open = message else { return }
      message = nil  // keep the payload uniquely referenced while it grows
      if open.payload.count + bytes.count > open.payload.capacity {
        // The frame's bytes are arriving: room for the rest it claims, up
        // to eight times what has come (a claim is not a reason to
        // allocate), or double, whichever is more (many small fragments
        // still grow geometrically). Grown by doubling alone, a 300 KB
        // camera frame was copied three times on the way.
        let claimed = Int(clamping: header.payloadLength) - payloadDone
        let rest = min(claimed, 8 * (open.payload.count + bytes.count))
        open.payload.reserveCapacity(max(open.payload.count + rest, 2 * open.payload.capacity))
      }
      append(bytes, to: &open.payload, header: header)
      message = open
    case .control:
      append(bytes, to: &control, header: header)
    case .discard:
      break
    }
    payloadDone &+= bytes.count
  }

  private func append(_ bytes: UnsafeRawBufferPointer, to target: inout [UInt8], header: WebSocketFrameHeader)
  {
    let start = target.count
    target.append(contentsOf: bytes)
    guard header.masked else { return }
    target.withUnsafeMutableBufferPointer { buffer in
      header.unmask(UnsafeMutableBufferPointer(rebasing: buffer[start...]), payloadOffset: payloadDone)
    }
  }

  mutating func end(frame: Int, emit: (WebSocketEvent) -> Void) {
    phase = .header
    guard let header else { return }
    self.header = nil
    switch sink {
    case .control:
      handleControl(header.opcode, emit: emit)
    case .message:
      if header.fin { finishMessage(lastFrame: frame, emit: emit) }
    case .discard:
      if !header.isControl, header.fin {
        discarding = false
        afterGap = false
      }
    }
  }

  func report(_ code: String, _ text: String, at position: Position, emit: (WebSocketEvent) -> Void) {
    emit(
      .error(
        direction: direction, frame: position.frame, time: position.time, code: code,
        text: "\(text) (\(direction) stream offset \(position.offset))"))
  }
}
