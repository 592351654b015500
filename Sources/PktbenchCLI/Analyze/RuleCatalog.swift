import CodecRegistry
import PacketKit

/// Which rules a codec's messages get: those its plugin brings, read per
/// device or per connection as the plugin says (per connection when the
/// codec models no device).
enum RuleCatalog {
  static func rules(forCodec codec: String, options: AnalysisOptions) -> [any FlowRules] {
    guard let plugin = Codecs.named(codec) as? any AnalysisRules else { return [] }
    return plugin.makeRules(options: options)
  }

  static func scope(forCodec codec: String) -> RulesScope {
    guard let named = Codecs.named(codec), named is any DeviceBehaviour else { return .connection }
    return (named as? any AnalysisRules)?.rulesScope ?? .device
  }

  /// The codec's device, when it models one.
  static func behaviour(forCodec codec: String) -> (any DeviceBehaviour)? {
    Codecs.named(codec) as? any DeviceBehaviour
  }
}
extension ExpectedRate {
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
