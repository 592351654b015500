import PacketKit

/// Which rules a codec's messages get: those its plugin brings, read per
/// device or per connection as the plugin says (per connection when the
/// codec models no device).
struct RuleCatalog: Sendable {
  let codecs: CodecSet
  let options: AnalysisOptions

  func rules(forCodec codec: String) -> [any FlowRules] {
    guard let plugin = codecs.named(codec) as? any AnalysisRules else { return [] }
    return plugin.makeRules(options: options)
  }

  func scope(forCodec codec: String) -> RulesScope {
    guard let named = codecs.named(codec), named is any DeviceBehaviour else { return .connection }
    return (named as? any AnalysisRules)?.rulesScope ?? .device
  }

  /// The codec's device, when it models one.
  func behaviour(forCodec codec: String) -> (any DeviceBehaviour)? {
    codecs.named(codec) as? any DeviceBehaviour
  }
}
