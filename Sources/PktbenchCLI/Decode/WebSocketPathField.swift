import CodecRegistry
import PacketCapture

/// The field a WebSocket request path names, for the codec whose path it is
/// (such as `/ws/connect/<deviceId>`): shown in `ws.handshake`, filled
/// in by `send`, required by `listen ws`.
enum WebSocketPathField {
  /// The path prefixes `listen ws` upgrades: every codec's that names one.
  static var prefixes: [String] { Codecs.wellKnownWebSocketPaths.map(\.prefix) }

  /// The codec's field and its value when `target` is on a known path.
  static func of(_ target: String) -> (field: String, value: String)? {
    for known in Codecs.wellKnownWebSocketPaths {
      guard let field = known.lastSegmentField,
        let value = WebSocketTarget.segment(after: known.prefix, in: target)
      else { continue }
      return (field, value)
    }
    return nil
  }

  /// Whether `target`'s path starts with a prefix a codec names, with a
  /// non-empty segment after it when the codec names a field for it.
  static func isKnown(_ target: String) -> Bool {
    let path = WebSocketTarget.path(of: target)
    return Codecs.wellKnownWebSocketPaths.contains { known in
      guard path.hasPrefix(known.prefix) else { return false }
      let rest = path.dropFirst(known.prefix.count)
      return known.lastSegmentField == nil || (!rest.isEmpty && !rest.contains("/"))
    }
  }

  /// "/ws/connect/<deviceId>" for messages.
  static var usage: String {
    Codecs.wellKnownWebSocketPaths.map { $0.prefix + ($0.lastSegmentField.map { "<\($0)>" } ?? "…") }
      .joined(separator: " or ")
  }
}
