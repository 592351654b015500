import PacketKit

/// Which rules a codec's messages get: those its plugin brings, read per
/// device or per connection as the plugin says (per connection when the
/// codec models no device).
struct RuleCatalog: Sendable {
  package let codecs: CodecSet
  package let options: AnalysisOptions

  package func rules(forCodec codec: String) -> [any FlowRules] {
    guard let plugin = codecs.named(codec) as? any AnalysisRules else { return [] }
    return plugin.makeRules(options: options)
  }

  package func scope(forCodec codec: String) -> RulesScope {
    guard let named = codecs.named(codec), named is any DeviceBehaviour else { return .connection }
    return (named as? any AnalysisRules)?.rulesScope ?? .device
  }

  /// The codec's device, when it models one.
  package func behaviour(forCodec codec: String) -> (any DeviceBehaviour)? {
    codecs.named(codec) as? any DeviceBehaviour
  }
}
