/// The rate a protocol says a series runs at (docs/protocols.md), and how the
/// measured rate is judged against it.
public struct ExpectedRate: Sendable {
  /// As the protocol says it: "20 Hz", "10 Hz ± 10 %", "one every 2–9 s".
  public var text: String
  public var lowHz: Double
  public var highHz: Double
  /// Intervals longer than this are pauses, reported as gaps by their own
  /// rules; they are left out of the rate so one stall does not also show
  /// up as "too slow".
  public var pauseAfter: Double?
  /// The rule that reports a rate outside [lowHz, highHz]; nil when the
  /// protocol's rules judge the intervals themselves.
  public var rule: String?
  /// Fewer intervals than this say too little to judge.
  public var minimumIntervals = 10
  /// When set, every interval must lie within [1/highHz, 1/lowHz] give or
  /// take this many seconds (slow senders like Rallie's, judged per command).
  public var intervalSlack: Double?

  /// `nominal` Hz within ± `tolerance` (a fraction); pauses start at four periods.
  public static func hertz(_ nominal: Double, tolerance: Double = 0.10, text: String, rule: String)
    -> ExpectedRate
  {
    ExpectedRate(
      text: text, lowHz: nominal * (1 - tolerance), highHz: nominal * (1 + tolerance),
      pauseAfter: 4 / nominal, rule: rule)
  }

  public init(
    text: String, lowHz: Double, highHz: Double, pauseAfter: Double?, rule: String?,
    minimumIntervals: Int = 10, intervalSlack: Double? = nil
  ) {
    self.text = text
    self.lowHz = lowHz
    self.highHz = highHz
    self.pauseAfter = pauseAfter
    self.rule = rule
    self.minimumIntervals = minimumIntervals
    self.intervalSlack = intervalSlack
  }
}
