/// `30s`, `2m`, `500ms`, `1h` or plain seconds.
package struct DurationArgument: Equatable, Sendable {
  package var seconds: Double

  package init(seconds: Double) { self.seconds = seconds }

  package init?(argument: String) {
    let text = argument.lowercased()
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
      guard let value = Double(text.dropLast(suffix.count)), value >= 0, value.isFinite else {
        return nil
      }
      seconds = value * scale
      return
    }
    guard let value = Double(text), value >= 0, value.isFinite else { return nil }
    seconds = value
  }

  /// How `--help` shows a default: as it would be typed (`10s`, `500ms`),
  /// not as the struct (`DurationArgument(seconds: 10.0)`).
  package var defaultValueDescription: String { DurationText.of(seconds) }

  package var nanoseconds: UInt64 { UInt64(seconds * 1e9) }
}
