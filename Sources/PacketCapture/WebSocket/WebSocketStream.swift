/// A passive WebSocket decoder for one TCP connection (RFC 6455, RFC 7692).
///
/// The TCP reassembler feeds each direction's bytes in order, in chunks of any
/// size, tagged with the capture record that carried them. The stream reads
/// the HTTP/1.1 Upgrade handshake, then frames in both directions, and emits
/// events: the handshake, whole messages (defragmented, unmasked, inflated),
/// control frames, and protocol violations. Pure parsing state: no I/O, and
/// nothing it holds grows past `limits`. Events depend only on each
/// direction's bytes, never on how they were chunked; client bytes sent
/// before the server's answer wait for it (up to `maxMessageBytes`).
public struct WebSocketStream: Sendable {
  public let limits: WebSocketLimits
  /// The client's Upgrade request, once seen.
  public internal(set) var handshake: WebSocketHandshake?
  /// True once the server answered 101, or the caller or a lost response
  /// made the stream assume so.
  public internal(set) var isUpgraded = false
  /// The status of the server's handshake response, once seen.
  public internal(set) var responseStatus: Int?
  /// The permessage-deflate configuration in force, if any.
  public internal(set) var deflate: WebSocketDeflateParameters?

  enum ClientPhase: Sendable { case request, awaitingUpgrade, frames, ignored }
  enum ServerPhase: Sendable { case response, frames, ignored }
  /// Client bytes that came after the request but before the server's answer.
  enum Pending: Sendable {
    case bytes([UInt8], frame: Int, time: Double)
    /// Lost bytes; `skipped` of them were seen but not kept, `missing` of
    /// them never arrived (nil: unknown).
    case gap(frame: Int, time: Double, skipped: Int, missing: Int?)
  }

  var clientPhase = ClientPhase.request
  var serverPhase = ServerPhase.response
  var requestHead: [UInt8] = []
  var requestStart = WebSocketFrameDecoder.Position(offset: 0, frame: 0, time: 0)
  var responseHead: [UInt8] = []
  var responseStart = WebSocketFrameDecoder.Position(offset: 0, frame: 0, time: 0)
  var pending: [Pending] = []
  /// Bytes kept in `pending`, and bytes fed while pending (kept or not).
  var pendingBytes = 0
  var pendingStreamBytes = 0
  var pendingOverflowed = false
  /// The server answered with something other than 101.
  var rejected = false
  /// The response's Sec-WebSocket-Accept, waiting for the request's key.
  var acceptToVerify: (value: String?, position: WebSocketFrameDecoder.Position)?
  var client: WebSocketFrameDecoder
  var server: WebSocketFrameDecoder

  public init(limits: WebSocketLimits = .default) {
    self.limits = limits
    client = WebSocketFrameDecoder(direction: .clientToServer, limits: limits, deflate: nil)
    server = WebSocketFrameDecoder(direction: .serverToClient, limits: limits, deflate: nil)
  }

  /// For a capture that starts mid-connection: decode frames at once, as if a
  /// 101 had been seen. With `deflate`, RSV1 frames are inflated; the deflate
  /// history from before the capture is unknown. If the first bytes may be in
  /// the middle of a frame, call `gap` for each direction as well.
  public mutating func assumeUpgraded(deflate: Bool = false) {
    requestHead.removeAll()
    responseHead.removeAll()
    isUpgraded = true
    self.deflate = deflate ? WebSocketDeflateParameters() : nil
    client.configure(deflate: self.deflate, otherExtensions: false)
    server.configure(deflate: self.deflate, otherExtensions: false)
    if deflate {
      client.markHistoryLost()
      server.markHistoryLost()
    }
    // Held client bytes are replayed at the next call that can emit.
    if clientPhase != .ignored { clientPhase = .frames }
    if serverPhase != .ignored { serverPhase = .frames }
  }

  public mutating func feed(
    _ bytes: UnsafeRawBufferPointer, direction: WebSocketDirection, frame: Int, time: Double,
    emit: (WebSocketEvent) -> Void
  ) {
    switch direction {
    case .clientToServer: feedClient(bytes, frame: frame, time: time, emit: emit)
    case .serverToClient: feedServer(bytes, frame: frame, time: time, emit: emit)
    }
  }

  /// Bytes were lost in this direction; `missingBytes` says how many when
  /// the transport knows (a TCP gap does).
  ///
  /// When they fall inside the payload of a frame whose header was seen and
  /// end before that frame does, they are skipped exactly: the framing stays
  /// in step and the message that lost them is emitted anyway, with
  /// `missingBytes` and `holes` set and only the bytes seen as its payload
  /// (compressed, if it was: it cannot be inflated). With permessage-deflate
  /// and context takeover, later compressed messages in this direction may
  /// refer back into it, so the stream reports `deflate-history-lost` once.
  ///
  /// Otherwise (count unknown, gap between frames or in a header, or longer
  /// than the rest of the frame): drop partial state; with context takeover
  /// the deflate history is lost too (and the stream says so); resynchronise
  /// on the next frame header that parses plausibly. A header is believed once
  /// the three headers after it are plausible too (or 64 KiB later, or at
  /// `finish`), so frames right after such a gap come out a little late.
  /// Lost handshake bytes: a lost request leaves path and deviceId unknown; a
  /// lost response is taken as a 101 (with permessage-deflate if it was offered).
  public mutating func gap(
    direction: WebSocketDirection, frame: Int, time: Double, missingBytes: Int?,
    emit: (WebSocketEvent) -> Void
  ) {
    let known = missingBytes ?? 0
    let here = { (offset: Int) in WebSocketFrameDecoder.Position(offset: offset, frame: frame, time: time) }
    switch direction {
    case .clientToServer:
      replayPendingIfUpgraded(emit: emit)
      switch clientPhase {
      case .request:
        requestHead.removeAll()
        client.report(
          "gap", "bytes of the handshake request were lost; the path and deviceId are unknown",
          at: here(client.streamEnd), emit: emit)
        clientPhase = rejected ? .ignored : isUpgraded ? .frames : .awaitingUpgrade
        client.enterResync()
        client.streamEnd &+= known
      case .awaitingUpgrade:
        pending.append(.gap(frame: frame, time: time, skipped: 0, missing: missingBytes))
        pendingStreamBytes &+= known
      case .frames:
        client.gap(frame: frame, time: time, missingBytes: missingBytes, emit: emit)
      case .ignored:
        client.streamEnd &+= known
      }
    case .serverToClient:
      switch serverPhase {
      case .response:
        responseHead.removeAll()
        server.report(
          "gap", "bytes of the handshake response were lost; assuming the upgrade succeeded",
          at: here(server.streamEnd), emit: emit)
        // Unknown parameters: inflating with context takeover also reads
        // messages sent without it, so assume the general case.
        let offered = handshake.map { WebSocketExtensions.offersDeflate($0.requestedExtensions) } ?? true
        upgrade(deflate: offered ? WebSocketDeflateParameters() : nil, otherExtensions: false, emit: emit)
        server.enterResync()
        server.streamEnd &+= known
      case .frames:
        server.gap(frame: frame, time: time, missingBytes: missingBytes, emit: emit)
      case .ignored:
        server.streamEnd &+= known
      }
    }
  }

  /// A gap of unknown size: always resynchronises (see the other `gap`).
  public mutating func gap(
    direction: WebSocketDirection, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    gap(direction: direction, frame: frame, time: time, missingBytes: nil, emit: emit)
  }

  /// The stream ended in this direction (FIN or RST, or the capture ended):
  /// decides frames still waiting after a gap, and reports an unfinished
  /// handshake, message or frame. Call it once per direction.
  public mutating func finish(
    direction: WebSocketDirection, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    switch direction {
    case .clientToServer:
      replayPendingIfUpgraded(emit: emit)
      if clientPhase == .request, !requestHead.isEmpty {
        client.report(
          "truncated-handshake", "the stream ended inside the handshake request",
          at: .init(offset: client.streamEnd, frame: frame, time: time), emit: emit)
        requestHead.removeAll()
      } else if clientPhase == .frames {
        client.finish(frame: frame, time: time, emit: emit)
      }
    case .serverToClient:
      if serverPhase == .response, !responseHead.isEmpty {
        server.report(
          "truncated-handshake", "the stream ended inside the handshake response",
          at: .init(offset: server.streamEnd, frame: frame, time: time), emit: emit)
        responseHead.removeAll()
      } else if serverPhase == .frames {
        server.finish(frame: frame, time: time, emit: emit)
      }
    }
  }

  // MARK: Client side

  mutating func feedClient(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    guard !bytes.isEmpty else { return }
    replayPendingIfUpgraded(emit: emit)
    switch clientPhase {
    case .ignored:
      client.streamEnd += bytes.count
    case .frames:
      client.feed(bytes, frame: frame, time: time, emit: emit)
    case .awaitingUpgrade:
      holdEarly(bytes, frame: frame, time: time, emit: emit)
    case .request:
      if requestHead.isEmpty { requestStart = .init(offset: client.streamEnd, frame: frame, time: time) }
      switch Self.readHead(into: &requestHead, from: bytes, limit: limits.maxHandshakeBytes) {
      case .incomplete:
        client.streamEnd += bytes.count
      case .complete(let used):
        client.streamEnd += used
        let head = requestHead
        requestHead.removeAll()
        handleRequest(head, emit: emit)
        feedClient(UnsafeRawBufferPointer(rebasing: bytes[used...]), frame: frame, time: time, emit: emit)
      case .tooLarge(let used):
        client.streamEnd += used
        client.report(
          "handshake-too-large",
          "the handshake request passes \(limits.maxHandshakeBytes) bytes without ending; "
            + "the path and deviceId are unknown", at: requestStart, emit: emit)
        requestHead.removeAll()
        clientPhase = rejected ? .ignored : isUpgraded ? .frames : .awaitingUpgrade
        client.enterResync()
        feedClient(UnsafeRawBufferPointer(rebasing: bytes[used...]), frame: frame, time: time, emit: emit)
      }
    }
  }

  /// Keeps client bytes sent before the server answered, up to
  /// maxMessageBytes; past that they become one gap. What is kept does not
  /// depend on how the bytes were chunked.
  mutating func holdEarly(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    let kept = pendingOverflowed ? 0 : min(max(0, limits.maxMessageBytes - pendingBytes), bytes.count)
    if kept > 0 {
      pendingBytes += kept
      pendingStreamBytes += kept
      let prefix = UnsafeRawBufferPointer(rebasing: bytes[0..<kept])
      // Merge chunks of one capture frame so tiny chunks cost no more than big ones.
      if case .bytes(var held, let lastFrame, let lastTime)? = pending.last, lastFrame == frame,
        lastTime == time
      {
        pending.removeLast()
        held.append(contentsOf: prefix)
        pending.append(.bytes(held, frame: frame, time: time))
      } else {
        pending.append(.bytes(Array(prefix), frame: frame, time: time))
      }
    }
    let skipped = bytes.count - kept
    guard skipped > 0 else { return }
    if pendingOverflowed, case .gap(let gapFrame, let gapTime, let earlier, .none)? = pending.last {
      pending[pending.count - 1] = .gap(
        frame: gapFrame, time: gapTime, skipped: earlier + skipped, missing: nil)
    } else {
      // After a TCP gap of known size, bytes not kept are a gap of their own:
      // merged into it they would be skipped as if they were part of it.
      if !pendingOverflowed {
        client.report(
          "early-data-too-large",
          "the client sent more than \(limits.maxMessageBytes) bytes before the server answered; the rest is not kept",
          at: .init(offset: client.streamEnd + pendingStreamBytes, frame: frame, time: time), emit: emit)
      }
      pending.append(.gap(frame: frame, time: time, skipped: skipped, missing: nil))
      pendingOverflowed = true
    }
    pendingStreamBytes += skipped
  }

  mutating func replayPendingIfUpgraded(emit: (WebSocketEvent) -> Void) {
    guard clientPhase == .frames, !pending.isEmpty else { return }
    let held = pending
    pending.removeAll()
    pendingBytes = 0
    pendingStreamBytes = 0
    pendingOverflowed = false
    for item in held {
      switch item {
      case .bytes(let bytes, let frame, let time):
        bytes.withUnsafeBytes { client.feed($0, frame: frame, time: time, emit: emit) }
      case .gap(let frame, let time, let skipped, let missing):
        client.gap(frame: frame, time: time, missingBytes: missing, emit: emit)
        client.streamEnd += skipped
      }
    }
  }

  // MARK: Server side

  mutating func feedServer(
    _ bytes: UnsafeRawBufferPointer, frame: Int, time: Double, emit: (WebSocketEvent) -> Void
  ) {
    guard !bytes.isEmpty else { return }
    switch serverPhase {
    case .ignored:
      server.streamEnd += bytes.count
    case .frames:
      server.feed(bytes, frame: frame, time: time, emit: emit)
    case .response:
      if responseHead.isEmpty { responseStart = .init(offset: server.streamEnd, frame: frame, time: time) }
      switch Self.readHead(into: &responseHead, from: bytes, limit: limits.maxHandshakeBytes) {
      case .incomplete:
        server.streamEnd += bytes.count
      case .complete(let used):
        server.streamEnd += used
        let head = responseHead
        responseHead.removeAll()
        handleResponse(head, emit: emit)
        feedServer(UnsafeRawBufferPointer(rebasing: bytes[used...]), frame: frame, time: time, emit: emit)
      case .tooLarge:
        server.streamEnd += bytes.count
        server.report(
          "handshake-too-large",
          "the handshake response passes \(limits.maxHandshakeBytes) bytes without ending; "
            + "the connection is not decoded", at: responseStart, emit: emit)
        responseHead.removeAll()
        reject()
      }
    }
  }

  /// The server did not upgrade: neither side carries frames.
  mutating func reject() {
    rejected = true
    serverPhase = .ignored
    if clientPhase != .request { clientPhase = .ignored }
    client.streamEnd += pendingStreamBytes
    pending.removeAll()
    pendingBytes = 0
    pendingStreamBytes = 0
    pendingOverflowed = false
  }

  mutating func upgrade(
    deflate: WebSocketDeflateParameters?, otherExtensions: Bool, emit: (WebSocketEvent) -> Void
  ) {
    isUpgraded = true
    self.deflate = deflate
    client.configure(deflate: deflate, otherExtensions: otherExtensions)
    server.configure(deflate: deflate, otherExtensions: otherExtensions)
    serverPhase = .frames
    if clientPhase == .awaitingUpgrade { clientPhase = .frames }
    replayPendingIfUpgraded(emit: emit)
  }

  // MARK: Heads

  enum HeadProgress: Sendable, Hashable {
    case incomplete
    /// The head ended after `used` bytes of this chunk.
    case complete(used: Int)
    /// The head passed the limit after `used` bytes of this chunk.
    case tooLarge(used: Int)
  }

  static func readHead(into head: inout [UInt8], from bytes: UnsafeRawBufferPointer, limit: Int)
    -> HeadProgress
  {
    let before = head.count
    let take = min(bytes.count, max(0, limit - before))
    head.append(contentsOf: bytes[0..<take])
    // The blank line may have begun in an earlier chunk.
    if let end = WebSocketHTTPHead.endOfHead(in: head, from: before - 2) {
      head.removeSubrange(end...)
      return .complete(used: end - before)
    }
    return head.count >= limit ? .tooLarge(used: take) : .incomplete
  }
}
