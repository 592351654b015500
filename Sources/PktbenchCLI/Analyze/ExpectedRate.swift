/// The rate a protocol says a series runs at (PROTOCOLS.md), and how the
/// measured rate is judged against it.
struct ExpectedRate {
  /// As the protocol says it: "20 Hz", "10 Hz ± 10 %", "one every 2–9 s".
  var text: String
  var lowHz: Double
  var highHz: Double
  /// Intervals longer than this are pauses, reported as gaps by their own
  /// rules; they are left out of the rate so one stall does not also show
  /// up as "too slow".
  var pauseAfter: Double?
  /// The rule that reports a rate outside [lowHz, highHz]; nil when the
  /// protocol's rules judge the intervals themselves.
  var rule: String?
  /// Fewer intervals than this say too little to judge.
  var minimumIntervals = 10
  /// When set, every interval must lie within [1/highHz, 1/lowHz] give or
  /// take this many seconds (slow senders like Rallie's, judged per command).
  var intervalSlack: Double?

  /// `nominal` Hz within ± `tolerance` (a fraction); pauses start at four periods.
  static func hertz(_ nominal: Double, tolerance: Double = 0.10, text: String, rule: String) -> ExpectedRate {
    ExpectedRate(
      text: text, lowHz: nominal * (1 - tolerance), highHz: nominal * (1 + tolerance),
      pauseAfter: 4 / nominal, rule: rule)
  }

  enum Verdict: String {
    case ok
    case tooSlow = "too slow"
    case tooFast = "too fast"
    case tooFew = "too few to judge"
  }

  func judge(_ series: MessageSeries) -> Verdict {
    if let slack = intervalSlack {
      let intervals = series.intervals
      guard intervals.count >= max(1, minimumIntervals) else { return .tooFew }
      if intervals.minimum < 1 / highHz - slack { return .tooFast }
      if intervals.maximum > 1 / lowHz + slack { return .tooSlow }
      return .ok
    }
    guard series.activeIntervals >= minimumIntervals, let rate = series.activeRate else { return .tooFew }
    if rate < lowHz { return .tooSlow }
    if rate > highHz { return .tooFast }
    return .ok
  }
}
