import PacketCapture
import PacketKit

/// The field a WebSocket request path names, for the codec whose path it is
/// (such as `/ws/connect/<deviceId>`): shown in `ws.handshake`, filled
/// in by `send`, required by `listen ws`.
package struct WebSocketPathField: Sendable {
  private let paths: [(prefix: String, index: Int, lastSegmentField: String?)]

  package init(_ codecs: CodecSet) {
    paths = codecs.wellKnownWebSocketPaths
  }

  /// The path prefixes `listen ws` upgrades: every codec's that names one.
  package var prefixes: [String] { paths.map(\.prefix) }

  /// The codec's field and its value when `target` is on a known path.
  package func of(_ target: String) -> (field: String, value: String)? {
    for known in paths {
      guard let field = known.lastSegmentField,
        let value = WebSocketTarget.segment(after: known.prefix, in: target)
      else { continue }
      return (field, value)
    }
    return nil
  }

  /// Whether `target`'s path starts with a prefix a codec names, with a
  /// non-empty segment after it when the codec names a field for it.
  package func isKnown(_ target: String) -> Bool {
    let path = WebSocketTarget.path(of: target)
    return paths.contains { known in
      guard path.hasPrefix(known.prefix) else { return false }
      let rest = path.dropFirst(known.prefix.count)
      return known.lastSegmentField == nil || (!rest.isEmpty && !rest.contains("/"))
    }
  }

  /// "/ws/connect/<deviceId>" for messages.
  package var usage: String {
    paths.map { $0.prefix + ($0.lastSegmentField.map { "<\($0)>" } ?? "…") }.joined(separator: " or ")
  }
}
