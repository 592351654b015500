import PacketKit

/// The opening handshake (RFC 6455 §4): the client's Upgrade request and the
/// server's answer, which decides whether frames follow and how they are
/// compressed.
extension WebSocketStream {
  /// True when the first bytes of a client→server stream look like an HTTP
  /// GET with `Upgrade: websocket`. A cheap check on a prefix: it reads no
  /// further than the prefix and never allocates.
  public static func looksLikeUpgradeRequest(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count >= 4, bytes[0] == 0x47, bytes[1] == 0x45, bytes[2] == 0x54, bytes[3] == 0x20 else {
      return false
    }
    var index = 4
    while index < bytes.count {
      guard bytes[index] == 0x0A else {
        index += 1
        continue
      }
      index += 1
      if matches(bytes, at: index, "upgrade:") {
        var cursor = index + 8
        while cursor < bytes.count, bytes[cursor] != 0x0A {
          if matches(bytes, at: cursor, "websocket") { return true }
          cursor += 1
        }
      }
    }
    return false
  }

  /// Case-insensitive ASCII comparison of `bytes` at `start` with `word`.
  private static func matches(_ bytes: UnsafeRawBufferPointer, at start: Int, _ word: StaticString) -> Bool {
    guard start >= 0, bytes.count - start >= word.utf8CodeUnitCount else { return false }
    let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    for (offset, letter) in letters.enumerated() {
      var byte = bytes[start + offset]
      if byte >= 0x41, byte <= 0x5A { byte += 0x20 }
      if byte != letter { return false }
    }
    return true
  }

  mutating func handleRequest(_ head: [UInt8], emit: (WebSocketEvent) -> Void) {
    let start = requestStart
    func problem(_ code: String, _ text: String) { client.report(code, text, at: start, emit: emit) }
    guard let parsed = WebSocketHTTPHead.parse(head) else {
      problem("bad-handshake", "the client's first bytes are not an HTTP request head")
      clientPhase = .ignored
      return
    }
    let requestLine = parsed.startLine.split(separator: " ", omittingEmptySubsequences: true)
    guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/") else {
      problem("bad-handshake", "'\(parsed.startLine.prefix(80))' is not an HTTP request line")
      clientPhase = .ignored
      return
    }
    guard requestLine[0] == "GET", parsed.hasToken("upgrade", "websocket") else {
      problem(
        "not-upgrade", "the request \(requestLine[0]) \(requestLine[1].prefix(80)) is not a WebSocket upgrade"
      )
      clientPhase = .ignored
      return
    }
    let target = String(requestLine[1])
    let request = WebSocketHandshake(
      path: target, host: parsed.value("host"), requestedExtensions: parsed.value("sec-websocket-extensions"),
      subprotocol: parsed.value("sec-websocket-protocol"),
      key: parsed.value("sec-websocket-key"), origin: parsed.value("origin"),
      userAgent: parsed.value("user-agent"))
    handshake = request
    emit(.handshakeRequest(request, frame: start.frame, time: start.time))
    if requestLine[2] != "HTTP/1.1" {
      problem("bad-handshake", "the upgrade request is \(requestLine[2]), not HTTP/1.1 (RFC 6455 §4.1)")
    }
    if !parsed.hasToken("connection", "upgrade") {
      problem("bad-handshake", "the request's Connection header does not include 'Upgrade' (RFC 6455 §4.1)")
    }
    if request.key == nil { problem("bad-handshake", "the request has no Sec-WebSocket-Key (RFC 6455 §4.1)") }
    if let version = parsed.value("sec-websocket-version"), version != "13" {
      problem("bad-handshake", "Sec-WebSocket-Version is \(Excerpt.quoted(version)), not 13 (RFC 6455 §4.1)")
    } else if parsed.value("sec-websocket-version") == nil {
      problem("bad-handshake", "the request has no Sec-WebSocket-Version (RFC 6455 §4.1)")
    }
    clientPhase = rejected ? .ignored : isUpgraded ? .frames : .awaitingUpgrade
    verifyAccept(emit: emit)
  }

  mutating func handleResponse(_ head: [UInt8], emit: (WebSocketEvent) -> Void) {
    let start = responseStart
    func problem(_ code: String, _ text: String) { server.report(code, text, at: start, emit: emit) }
    let parsed = WebSocketHTTPHead.parse(head)
    let statusLine =
      parsed?.startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true) ?? []
    guard let parsed, statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), statusLine[1].count == 3,
      let status = Int(statusLine[1])
    else {
      problem("bad-handshake", "the server's first bytes are not an HTTP status line")
      reject()
      return
    }
    responseStatus = status
    let extensions = parsed.value("sec-websocket-extensions")
    emit(.handshakeResponse(status: status, extensions: extensions, frame: start.frame, time: start.time))
    guard status == 101 else {
      reject()
      return
    }
    if !parsed.hasToken("upgrade", "websocket") {
      problem("bad-handshake", "the 101 response's Upgrade header is not 'websocket' (RFC 6455 §4.1)")
    }
    if !parsed.hasToken("connection", "upgrade") {
      problem(
        "bad-handshake", "the 101 response's Connection header does not include 'Upgrade' (RFC 6455 §4.1)")
    }
    acceptToVerify = (parsed.value("sec-websocket-accept"), start)
    verifyAccept(emit: emit)
    let negotiated = WebSocketExtensions.negotiated(fromResponse: extensions)
    for text in negotiated.problems { problem("bad-extension", text + " (RFC 7692 §7.1)") }
    if negotiated.deflate != nil, let request = handshake,
      !WebSocketExtensions.offersDeflate(request.requestedExtensions)
    {
      problem(
        "bad-extension",
        "the server accepted permessage-deflate, which the client did not offer (RFC 6455 §9.1)")
    }
    upgrade(deflate: negotiated.deflate, otherExtensions: negotiated.otherExtensions, emit: emit)
  }

  /// Checks Sec-WebSocket-Accept once both the key and the answer are known.
  mutating func verifyAccept(emit: (WebSocketEvent) -> Void) {
    guard let pending = acceptToVerify, let key = handshake?.key else { return }
    acceptToVerify = nil
    let expected = WebSocketAccept.expected(forKey: key)
    guard let accept = pending.value else {
      server.report(
        "bad-accept", "the 101 response has no Sec-WebSocket-Accept (RFC 6455 §4.2.2)", at: pending.position,
        emit: emit)
      return
    }
    if accept != expected {
      server.report(
        "bad-accept",
        "Sec-WebSocket-Accept is '\(accept.prefix(64))' but the key calls for '\(expected)' (RFC 6455 §4.2.2)",
        at: pending.position, emit: emit)
    }
  }
}
