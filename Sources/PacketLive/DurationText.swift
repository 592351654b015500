import PacketKit

/// "5s", "500ms", "1.5s" for messages.
package enum DurationText {
  package static func of(_ seconds: Double) -> String {
    if seconds == 0 { return "0s" }
    if seconds < 1 { return "\(JSONWriter.formatNumber(seconds * 1000))ms" }
    return "\(JSONWriter.formatNumber(seconds))s"
  }
}
