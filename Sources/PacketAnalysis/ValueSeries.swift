import PacketKit

/// A distribution a flow reports beside its message rates: a latency
/// (command → response, request → reply), a
/// one-way delay or a size.
final class ValueSeries {
  typealias Unit = MeasureUnit

  /// Machine name, e.g. `response_latency`.
  package let name: String
  /// What it measures, for a person: "command → response".
  package let text: String
  package let unit: Unit
  package private(set) var values = Reservoir()

  package init(name: String, text: String, unit: Unit = .seconds) {
    self.name = name
    self.text = text
    self.unit = unit
  }

  package func add(_ value: Double) { values.add(value) }
}
