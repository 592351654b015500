import PacketKit

/// The names a display filter can use on a `DecodedRecord`: the keys of a
/// record in `--format ndjson` (`frame`, `time`, `src`, …), each codec's
/// fields under its name (`legctrl.header.msg_type`, with the dots of
/// ndjson's nested `fields`), transport events under their names
/// (`ws.close.code`, `tcp.gap`), and transport details (`ws.compressed`,
/// `handle`).
struct RecordFields: FilterVocabulary {
  /// The codecs whose names start fields.
  package let codecs: CodecSet

  /// Roots below `codecBase`; a codec's fields are `codecBase`, with the
  /// codec's name as the path's first part.
  package enum Root: Int {
    case frame, time, source, destination, transport, codec, message, length, routing
    case error, diagnostics
    /// An event's name (`ws.close`) then its fields, else a transport
    /// detail (`ws`, `handle`): the path holds every part of the name.
    case named
  }

  static let codecBase = 100

  package static let scalars: [String: Root] = [
    "frame": .frame, "time": .time, "src": .source, "dst": .destination, "transport": .transport,
    "codec": .codec, "message": .message, "length": .length, "routing": .routing,
  ]

  /// The first part of every event name the pipeline and the live commands make.
  static let eventFamilies: Set<String> = ["ws", "tcp", "att", "ble"]

  /// Keys the pipeline and the live commands add to a record (`extra`)
  /// before it is filtered (a live record's `arrival` and `gap_ms` come after).
  package static let details: Set<String> = [
    "ws", "att_operation", "handle", "uuid", "direction", "lateness_ms",
    "capture_time", "capture_src", "capture_dst",
  ]

  package func resolve(_ parts: [Substring]) -> (root: Int, parts: Int)? {
    let first = String(parts[0])
    if let root = Self.scalars[first] { return parts.count == 1 ? (root.rawValue, 1) : nil }
    if first == "error" || first == "diagnostics" {
      guard
        parts.count == 1 || (parts.count == 2 && ["code", "text", "severity", "offset"].contains(parts[1]))
      else { return nil }
      return (first == "error" ? Root.error.rawValue : Root.diagnostics.rawValue, 1)
    }
    if codecs.index(named: first) != nil { return (Self.codecBase, 0) }
    if Self.eventFamilies.contains(first) || Self.details.contains(first) { return (Root.named.rawValue, 0) }
    return nil
  }

  package func unknown(_ name: String) -> String {
    let first = name.split(separator: ".").first.map(String.init) ?? name
    if Self.scalars[first] != nil { return "\(first) has no parts" }
    if first == "error" || first == "diagnostics" { return "\(first) has code, text, severity and offset" }
    return "fields start with frame, time, src, dst, transport, codec, message, length, routing, "
      + "error, diagnostics, a codec (\(codecs.nameList)), an event (ws, tcp, att, ble) or a transport detail"
  }
}
