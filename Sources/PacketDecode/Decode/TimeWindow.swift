import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `--start`/`--stop`: the records read are those from `start` (inclusive)
/// to before `stop`, as editcap's -A and -B keep them.
package struct TimeWindow: Equatable {
  package var start: Double?
  package var stop: Double?

  package init(start: Double? = nil, stop: Double? = nil) {
    self.start = start
    self.stop = stop
  }

  @inline(__always)
  package func contains(_ time: Double) -> Bool {
    if let start, time < start { return false }
    if let stop, time >= stop { return false }
    return true
  }

  /// Unix seconds from `text`: a number of seconds since the epoch
  /// (`1795315972.33`), or an ISO 8601 date and time
  /// (`2026-11-22 02:52:52[.330]`, a `T` allowed between), in UTC unless
  /// it ends in `Z` or an offset (`+02:00`, `-0500`). Nil when it is neither.
  package static func parseTime(_ text: String) -> Double? {
    let text = text.trimmingCharacters(in: .whitespaces)
    if let seconds = Double(text), text.first?.isNumber == true || text.first == "." {
      return seconds.isFinite ? seconds : nil
    }
    let bytes = Array(text.utf8)
    var index = 0
    func number(_ digits: Int) -> Int? {
      guard index + digits <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<(index + digits)] {
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      index += digits
      return value
    }
    func expect(_ characters: String) -> Bool {
      guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
      index += 1
      return true
    }
    guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
      expect(" Tt"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
      let second = number(2)
    else { return nil }
    var fraction = 0.0
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      var scale = 0.1
      let before = index
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
        fraction += Double(bytes[index] - 0x30) * scale
        scale /= 10
        index += 1
      }
      guard index > before else { return nil }
    }
    var offset = 0
    if index < bytes.count {
      if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        index += 1
        guard let hours = number(2) else { return nil }
        _ = expect(":")
        guard let minutes = number(2) else { return nil }
        offset = sign * (hours * 3600 + minutes * 60)
      }
    }
    guard index == bytes.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
      second < 61
    else { return nil }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    return Double(timegm(&parts) - offset) + fraction
  }

  /// What `--start` and `--stop` take, for their help and errors.
  package static let syntax =
    "Unix seconds (1795315972.5) or 'YYYY-MM-DD HH:MM:SS[.frac]' (T allowed), UTC unless it ends in Z or +HH:MM"
}
