import PacketKit

/// The `{"type", "timestamp", "payload"}` envelope every message travels in,
/// and the bare inner objects of the design document.
enum FalconEyeEnvelope {
  static let keys = ["type", "timestamp", "payload"]
  static let limits = JSONTape.Limits(maxBytes: 16 << 20, maxDepth: 64)
  /// The app's frame target ("< 500 KB").
  static let frameSizeTarget = 500_000
  /// Vapor's default WebSocket frame limit, which the Aerie server keeps: the
  /// real capture shows a 16,429-byte message closed with 1009.
  static let serverFrameLimit = 1 << 14

  /// Made once: every auth exchange carries it.
  static let tokenNote =
    "the auth token cannot be verified by anyone: the server never checks the HMAC (only that the "
    + "token is \(FalconEyeAuthToken.serverRule.description)), and the timestamp the app signed is not sent"

  static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<FalconEyeMessage> {
    var decoded = try JSONTape.read(bytes, limits: limits) { root throws(DecodeError) in
      try decode(root, bytes)
    }
    let kind = decoded.message.kind
    // Both size warnings start above the server's limit.
    if bytes.count > serverFrameLimit { decoded.diagnostics += sizeDiagnostics(bytes.count, kind: kind) }
    if kind == .authRequest || kind == .authResponse {
      decoded.diagnostics.append(.note("token-unverifiable", tokenNote, range: tokenRange(decoded.fields)))
    }
    return decoded
  }

  /// The range of the inner object's `token` member (the payload's, or a
  /// bare message's own): looked up among that object's nodes, in place,
  /// not through the whole tree.
  private static func tokenRange(_ fields: [DissectionNode]) -> Range<Int>? {
    for index in fields.indices where fields[index].name == "payload" && fields[index].shape == .object {
      return range(of: "token", in: fields[index].children)
    }
    return range(of: "token", in: fields)
  }

  private static func range(of name: String, in nodes: [DissectionNode]) -> Range<Int>? {
    for index in nodes.indices where nodes[index].name == name { return nodes[index].range }
    return nil
  }

  /// The message in `root`, read while its tape is alive.
  private static func decode(_ root: JSONNode, _ bytes: UnsafeRawBufferPointer) throws(DecodeError)
    -> Decoded<FalconEyeMessage>
  {
    guard root.kind == .object else {
      let typeName = root.typeName
      throw DecodeError(code: "wrong-type", offset: root.range.lowerBound) {
        .init(
          "a FalconEye message is a JSON object; this is a \(typeName)", expected: "object",
          found: typeName)
      }
    }
    let isEnvelope = root.members.contains { $0.key.textEquals("type") || $0.key.textEquals("payload") }
    return try isEnvelope ? envelope(root, bytes) : bare(root, root.members.map(\.key.text))
  }

  // MARK: Envelope

  private static func envelope(_ root: JSONNode, _ bytes: UnsafeRawBufferPointer) throws(DecodeError)
    -> Decoded<FalconEyeMessage>
  {
    var reader = FalconEyeReader(map: .identity, root: .bare)
    var object = try reader.object(root, at: .bare, known: keys)

    let typeJSON = try object.required("type")
    let typeName = try reader.string(typeJSON, at: "type")
    guard let kind = FalconEyeKind.named(typeName) else {
      let offset = typeJSON.range.lowerBound
      let (quoted, found) = (Excerpt.quoted(typeName), Excerpt.short(typeName))
      throw DecodeError(code: "unknown-kind", offset: offset, keyPath: "type") {
        .init(
          "type \(quoted) at offset \(offset) is not a "
            + "FalconEye message; the kinds are \(FalconEyeKind.list)", expected: FalconEyeKind.list,
          found: found)
      }
    }
    object.add(reader.leaf("type", .string(typeName), typeJSON))
    let timestamp = try object.number("timestamp", reader, unit: "s")

    let payloadJSON = try object.required("payload")
    guard payloadJSON.kind == .string else {
      throw reader.wrongType(payloadJSON, at: "payload", expected: "string")
    }
    let map = FalconEyeWireMap(payload: payloadJSON, in: bytes)
    let inner = try base64(payloadJSON, map)
    let (body, nodes, diagnostics) = try inner.withUnsafeBytes { inner in
      Result { () throws(DecodeError) in try decodeInner(kind, inner, map) }
    }.get()
    object.add(
      DissectionNode(group: "payload", shape: .object, range: payloadJSON.range, children: nodes))
    return Decoded(
      message: FalconEyeMessage(body, envelopeTimestamp: timestamp), messageName: kind.rawValue,
      fields: object.nodes, diagnostics: reader.diagnostics + diagnostics)
  }

  /// The payload's inner JSON (the base64-decoded bytes `inner`) as a message
  /// of `kind`, with its nodes and diagnostics at wire offsets.
  private static func decodeInner(
    _ kind: FalconEyeKind, _ inner: UnsafeRawBufferPointer, _ map: FalconEyeWireMap
  )
    throws(DecodeError) -> (FalconEyeMessage.Body, [DissectionNode], [Diagnostic])
  {
    var reader = FalconEyeReader(map: map, root: .payload)
    // The body's own errors come back as a result: what `read` throws is
    // the inner JSON's, moved to the wire.
    let decoded: Result<(FalconEyeMessage.Body, [DissectionNode]), DecodeError>
    do throws(DecodeError) {
      decoded = try JSONTape.read(inner, limits: limits) { root in
        Result { () throws(DecodeError) in try decodeInner(kind, root, &reader) }
      }
    } catch {
      var moved = error
      let offset = map.wire(offset: error.offset ?? 0)
      moved.offset = offset
      moved.keyPath = "payload"
      moved.text = "payload (the base64-decoded JSON) at wire offset \(offset): \(error.text)"
      throw moved
    }
    let (body, nodes) = try decoded.get()
    return (body, nodes, reader.diagnostics)
  }

  /// Strict base64 of the payload; a bad character is reported at its wire
  /// offset. A payload without escapes is decoded from the wire bytes.
  private static func base64(_ payload: JSONNode, _ map: FalconEyeWireMap) throws(DecodeError) -> [UInt8] {
    do throws(FalconEyeBase64.Failure) {
      if let verbatim = payload.verbatimBytes { return try FalconEyeBase64.decode(verbatim) }
      return try FalconEyeBase64.decode(payload.text)
    } catch {
      let offset = map.wireOffset(ofCharacter: error.index)
      throw DecodeError(code: "bad-base64", offset: offset, keyPath: "payload") {
        .init(
          "payload is not base64 at offset \(offset) (character \(error.index)): \(error.reason)",
          expected: "standard base64 with '=' padding", found: error.reason)
      }
    }
  }

  // MARK: Bare inner object

  private static func bare(_ root: JSONNode, _ keys: [String]) throws(DecodeError)
    -> Decoded<FalconEyeMessage>
  {
    guard let kind = FalconEyeKind.inferred(fromKeys: keys) else {
      // The keys are the input's: a few of them, each cut, are enough to tell.
      let shown =
        keys.prefix(8).map { Excerpt.quoted($0) }.joined(separator: ", ")
        + (keys.count > 8 ? " and \(keys.count - 8) more" : "")
      throw DecodeError(code: "unknown-kind", offset: root.range.lowerBound) {
        .init(
          "a JSON object with keys \(shown) is neither an envelope nor one "
            + "of the inner messages \(FalconEyeKind.list)",
          expected: "an envelope or one of \(FalconEyeKind.list)",
          found: keys.isEmpty ? "no keys" : shown)
      }
    }
    var reader = FalconEyeReader(map: .identity, root: .bare)
    let (body, nodes) = try decodeInner(kind, root, &reader)
    let note = Diagnostic.note(
      "bare-inner",
      "a bare \(kind.rawValue) object without the {type, timestamp, payload} envelope "
        + "(kind inferred from its keys); the app and server only exchange envelopes",
      range: root.range)
    return Decoded(
      message: FalconEyeMessage(body, envelopeTimestamp: nil), messageName: kind.rawValue,
      fields: nodes, diagnostics: [note] + reader.diagnostics)
  }

  static func decodeInner(_ kind: FalconEyeKind, _ value: JSONNode, _ reader: inout FalconEyeReader)
    throws(DecodeError) -> (FalconEyeMessage.Body, [DissectionNode])
  {
    switch kind {
    case .authRequest:
      let (message, nodes) = try FalconEyeAuthRequest.decode(value, &reader)
      return (.authRequest(message), nodes)
    case .authResponse:
      let (message, nodes) = try FalconEyeAuthResponse.decode(value, &reader)
      return (.authResponse(message), nodes)
    case .cameraFrame:
      let (message, nodes) = try FalconEyeCameraFrame.decode(value, &reader)
      return (.cameraFrame(message), nodes)
    case .poseBroadcast:
      let (message, nodes) = try FalconEyePoseBroadcast.decode(value, &reader)
      return (.poseBroadcast(message), nodes)
    case .heartbeat:
      let (message, nodes) = try FalconEyeHeartbeat.decode(value, &reader)
      return (.heartbeat(message), nodes)
    }
  }

  private static func sizeDiagnostics(_ count: Int, kind: FalconEyeKind) -> [Diagnostic] {
    var diagnostics: [Diagnostic] = []
    if count > frameSizeTarget {
      diagnostics.append(
        .warning(
          "frame-size",
          "\(kind.rawValue) is \(count) bytes; the app targets under 500 KB a frame", range: 0..<count))
    }
    if count > serverFrameLimit {
      diagnostics.append(
        .warning(
          "server-frame-limit",
          "\(kind.rawValue) is \(count) bytes; the Aerie server keeps Vapor's default 16 KiB "
            + "WebSocket frame limit and closes the socket with 1009 (message too big)",
          range: 0..<count))
    }
    return diagnostics
  }
}

extension FalconEyeKind {
  /// Keys that identify each bare inner message, checked in this order.
  static let identifyingKeys: [(FalconEyeKind, Set<String>)] = [
    (.authRequest, ["deviceId", "token", "deviceInfo"]),
    (.authResponse, ["success", "sessionId", "error"]),
    (.cameraFrame, ["frameId", "imageData", "devicePose", "intrinsics"]),
    (.poseBroadcast, ["poses"]),
    (.heartbeat, ["pong"]),
  ]

  /// The kind of a bare inner object; `{}` is the client's heartbeat.
  static func inferred(fromKeys keys: [String]) -> FalconEyeKind? {
    if keys.isEmpty { return .heartbeat }
    for (kind, identifying) in identifyingKeys where keys.contains(where: identifying.contains) {
      return kind
    }
    return nil
  }
}
