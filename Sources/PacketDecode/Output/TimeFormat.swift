import PacketKit

#if canImport(Glibc)
  import Glibc
#endif

/// `-t`: how a message's time is shown, in tshark's letters.
package enum TimeFormat: String, CaseIterable, Sendable {
  /// Seconds since the first record of the file (tshark's default).
  case r
  /// Local time of day; `ad` with the date.
  case a, ad
  /// UTC time of day; `ud` with the date.
  case u, ud
  /// Seconds since the previous message shown (tshark's `dd`; its `d`
  /// counts from the previous packet, which for messages is no different
  /// when each record carries one, and `dd` is taken as the same).
  case d, dd
  /// Unix seconds.
  case e

  package static let help =
    "Time shown, as tshark -t: r relative to the first record (default), a local time, ad local date and time, "
    + "u UTC time, ud UTC date and time, d delta from the previous message shown, e Unix seconds"
}

/// The time column of one output: the format, and what it counts from.
/// Dates are worked out once per second (`localtime_r` is not free).
package final class TimeColumn {
  package let format: TimeFormat
  /// The first record read (of the file, or of the --start window).
  @exclusivity(unchecked) package var base: Double?
  @exclusivity(unchecked) private var previous: Double?
  @exclusivity(unchecked) private var cachedSecond = Int.min
  @exclusivity(unchecked) private var cachedPrefix: [UInt8] = []

  package init(_ format: TimeFormat) {
    self.format = format
  }

  /// Columns of fixed width in summary lines (relative and delta are right-aligned).
  package var width: Int {
    switch format {
    case .r, .d, .dd: 11
    default: 0
    }
  }

  /// Writes `time` (a message shown: `d` counts from it next).
  package func write(_ time: Double, into out: inout JSONWriter) {
    switch format {
    case .r:
      out.fixed(time - (base ?? time), digits: 6, width: width)
    case .d, .dd:
      out.fixed(time - (previous ?? time), digits: 6, width: width)
    case .e:
      out.fixed(time, digits: 6)
    case .a, .ad, .u, .ud:
      var second = Int(time.rounded(.down))
      var micro = Int(((time - Double(second)) * 1e6).rounded())
      if micro >= 1_000_000 {
        second += 1
        micro -= 1_000_000
      }
      if second != cachedSecond {
        cachedSecond = second
        cachedPrefix = Self.clock(
          second, local: format == .a || format == .ad, date: format == .ad || format == .ud)
      }
      cachedPrefix.withUnsafeBytes { out.append(bytes: $0) }
      out.append(UInt8(ascii: "."))
      out.decimal(Int64(micro), width: 6, fill: UInt8(ascii: "0"))
    }
    previous = time
  }

  /// `HH:MM:SS`, after `YYYY-MM-DD ` when `date`.
  package static func clock(_ second: Int, local: Bool, date: Bool) -> [UInt8] {
    var seconds = time_t(second)
    var parts = tm()
    if local { localtime_r(&seconds, &parts) } else { gmtime_r(&seconds, &parts) }
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var text = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    if date { text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) " + text }
    return Array(text.utf8)
  }
}
