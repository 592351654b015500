/// Numbers as the reports write them for people.
public enum Format {
  /// Fixed digits, safe for any value (timestamps in traffic are untrusted:
  /// a Rider timestamp of 1e300 must not trap an integer conversion).
  public static func fixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return "—" }
    return abs(value) < 1e12 ? JSONWriter.fixed(value, digits: digits) : JSONWriter.formatNumber(value)
  }

  /// "300.4 ms", "1.500 s", "12 µs".
  public static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "—" }
    let magnitude = abs(seconds)
    if magnitude >= 1 { return Format.fixed(seconds, digits: 3) + " s" }
    if magnitude >= 0.001 { return Format.fixed(seconds * 1000, digits: 1) + " ms" }
    return String(Int((seconds * 1_000_000).rounded())) + " µs"
  }

  /// "20.0 Hz", "0.50/s" for slow series.
  public static func hertz(_ rate: Double) -> String {
    guard rate.isFinite else { return "—" }
    return rate >= 1
      ? Format.fixed(rate, digits: 1) + " Hz" : Format.fixed(rate, digits: 2) + "/s"
  }

  /// "+10.019 s": a time relative to the start of the capture.
  public static func offset(_ time: Double, from origin: Double) -> String {
    "+" + Format.fixed(time - origin, digits: 3) + " s"
  }

  /// "16,429 bytes".
  public static func bytes(_ count: Int) -> String {
    var digits = String(count)
    var groups: [String] = []
    while digits.count > 3 {
      groups.insert(String(digits.suffix(3)), at: 0)
      digits = String(digits.dropLast(3))
    }
    groups.insert(digits, at: 0)
    return groups.joined(separator: ",") + " bytes"
  }

  /// "frame 40", "frames 40→41", "frames 126, 129, 130".
  public static func frames(_ frames: [Int]) -> String {
    switch frames.count {
    case 0: return "no frame"
    case 1: return "frame \(frames[0])"
    default: return "frames " + frames.map(String.init).joined(separator: ", ")
    }
  }
}
