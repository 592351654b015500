import PacketKit

/// FalconEye (docs/protocols.md §4): JSON envelopes over WebSocket text messages
/// between the HawkSight app and the Aerie server, each carrying a base64
/// inner JSON message.
public struct FalconEyeCodec: FrameCodec {
  public typealias Message = FalconEyeMessage

  public init() {}

  public var info: CodecInfo { FalconEyeSchema.info }

  public func kind(of message: FalconEyeMessage) -> String { message.kind.rawValue }

  // MARK: Decode

  /// Decodes one WebSocket text message (already reassembled from its
  /// fragments): an envelope, or a bare inner object with a note.
  public func decode(_ bytes: ByteView) throws(DecodeError) -> Decoded<FalconEyeMessage> {
    try bytes.withUnsafeBytes { raw throws(DecodeError) in try decode(raw: raw) }
  }

  public func probe(_ bytes: ByteView) -> Int {
    bytes.withUnsafeBytes { probe(raw: $0) }
  }

  /// `decode` on the bytes where they lie (the hot path's own form).
  func decode(raw bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Decoded<FalconEyeMessage> {
    try FalconEyeEnvelope.decode(bytes)
  }

  // MARK: Encode

  /// Canonical bytes: envelope keys `type`, `timestamp`, `payload` in that
  /// order, inner keys in the app's declaration order, no spaces, padded
  /// base64. A bare message encodes bare.
  public func encode(_ message: FalconEyeMessage) throws(EncodeError) -> [UInt8] {
    try validate(message, force: false)
    return Self.unchecked(message)
  }

  func validate(_ message: FalconEyeMessage, force: Bool) throws(EncodeError) {
    if let timestamp = message.envelopeTimestamp { try FalconEyeCheck.finite(timestamp, "timestamp") }
    switch message.body {
    case .authRequest(let inner): try inner.validate(force: force)
    case .authResponse(let inner): try inner.validate(force: force)
    case .cameraFrame(let inner): try inner.validate(force: force)
    case .poseBroadcast(let inner): try inner.validate(force: force)
    case .heartbeat(let inner): try inner.validate(force: force)
    }
  }

  static func unchecked(_ message: FalconEyeMessage) -> [UInt8] {
    var inner = JSONWriter(capacity: message.body.estimatedJSONCount)
    message.body.write(to: &inner)
    guard let timestamp = message.envelopeTimestamp else { return inner.bytes }
    // The payload's base64 is made from the inner text where it was written.
    return inner.withUnsafeBytes { envelope(message.kind, timestamp: timestamp, inner: $0) }
  }

  static func envelope(_ kind: FalconEyeKind, timestamp: Double, inner: UnsafeRawBufferPointer) -> [UInt8] {
    var head = JSONWriter(capacity: 96)
    head.raw("{\"type\":")
    head.string(kind.rawValue)
    head.raw(",\"timestamp\":")
    head.number(timestamp)
    head.raw(",\"payload\":\"")
    // The message is made in its array: the head, then the payload's base64
    // (nothing in it is escaped in JSON), then the close. Written to a
    // JSONWriter, the whole message (hundreds of KB for a camera frame)
    // was copied out again.
    let payloadCount = FalconEyeBase64.encodedCount(inner.count)
    let total = head.count + payloadCount + 2
    return head.withUnsafeBytes { head in
      [UInt8].written(count: total) { buffer in
        let out = UnsafeMutableRawBufferPointer(buffer)
        out.copyMemory(from: head)
        FalconEyeBase64.encode(
          inner.assumingMemoryBound(to: UInt8.self),
          into: UnsafeMutableRawBufferPointer(rebasing: out[head.count..<head.count + payloadCount]))
        out[total - 2] = UInt8(ascii: "\"")
        out[total - 1] = UInt8(ascii: "}")
        return total
      }
    }
  }

  // MARK: Probe

  /// 95 for an envelope with a known type, 70 for a bare inner object with
  /// keys of one of the five messages, 0 otherwise. A cheap byte scan comes
  /// first; only candidates are parsed.
  func probe(raw bytes: UnsafeRawBufferPointer) -> Int {
    var start = 0
    while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
    guard start < bytes.count, bytes[start] == UInt8(ascii: "{") else { return 0 }
    let looksLikeEnvelope = Self.contains(bytes, "\"type\"") && Self.contains(bytes, "\"payload\"")
    let identifying = FalconEyeKind.identifyingKeys.flatMap(\.1)
    guard looksLikeEnvelope || identifying.contains(where: { Self.contains(bytes, "\"\($0)\"") }) else {
      return 0
    }
    let score = try? JSONTape.read(bytes, limits: FalconEyeEnvelope.limits) { root -> Int? in
      guard root.kind == .object else { return nil }
      if let type = root["type"]?.string, root["payload"] != nil {
        return FalconEyeKind.named(type) != nil ? 95 : 40
      }
      let keys = root.members.map(\.key.text)
      guard !keys.isEmpty, FalconEyeKind.inferred(fromKeys: keys) != nil else { return 0 }
      return 70
    }
    // An envelope cut short or damaged (or not an object): still most
    // likely ours when it looks like one, so the decode error reaches the user.
    return (score ?? nil) ?? (looksLikeEnvelope ? 30 : 0)
  }

  /// Whether `needle` occurs in `bytes` (a plain scan; needles are short).
  private static func contains(_ bytes: UnsafeRawBufferPointer, _ needle: String) -> Bool {
    let pattern = Array(needle.utf8)
    guard let first = pattern.first, bytes.count >= pattern.count else { return false }
    var index = 0
    let last = bytes.count - pattern.count
    while index <= last {
      if bytes[index] == first {
        var matched = true
        for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
          matched = false
          break
        }
        if matched { return true }
      }
      index += 1
    }
    return false
  }
}
