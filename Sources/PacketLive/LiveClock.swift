#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Wall-clock time for output, and its two printed forms. Rates and
/// schedules use the monotonic clock (NIODeadline, PacketKit's
/// `monotonicNanoseconds`) instead: the wall clock can be stepped by NTP.
package enum LiveClock {
  /// Unix seconds, fractional.
  package static func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  /// "14:03:22.123456", local time, for the text view.
  static func clockText(_ time: Double) -> String {
    var seconds = time_t(time.rounded(.down))
    var parts = tm()
    localtime_r(&seconds, &parts)
    let micros = min(999_999, Int(((time - time.rounded(.down)) * 1e6).rounded()))
    return two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec) + "."
      + String(micros).leftPadded(to: 6).replacingOccurrences(of: " ", with: "0")
  }

  /// "2026-05-01T12:03:22.123456Z", UTC, for JSON.
  static func isoText(_ time: Double) -> String {
    var seconds = time_t(time.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let micros = min(999_999, Int(((time - time.rounded(.down)) * 1e6).rounded()))
    return String(parts.tm_year + 1900) + "-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday) + "T"
      + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec) + "."
      + String(micros).leftPadded(to: 6).replacingOccurrences(of: " ", with: "0") + "Z"
  }

  private static func two(_ value: Int32) -> String {
    value < 10 ? "0\(value)" : String(value)
  }
}
