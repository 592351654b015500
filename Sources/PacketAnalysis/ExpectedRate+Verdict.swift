import PacketKit

/// Whether a series kept to the rate its protocol expects.
extension ExpectedRate {
  package enum Verdict: String {
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
