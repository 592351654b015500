import PacketKit

/// A bounded, uniform sample of a stream of values (Vitter's algorithm R),
/// with the exact count, sum, minimum and maximum. Percentiles come from
/// the sample; they are exact until the stream outgrows the capacity.
package struct Reservoir {
  static let defaultCapacity = 2048

  package let capacity: Int
  package private(set) var samples: [Double] = []
  package private(set) var count = 0
  package private(set) var sum = 0.0
  package private(set) var minimum = Double.infinity
  package private(set) var maximum = -Double.infinity
  /// A fixed seed: the same capture gives the same report.
  /// Picks reservoir slots; seeded, so a report is the same every run.
  private var random = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)

  package init(capacity: Int = Reservoir.defaultCapacity) {
    self.capacity = max(1, capacity)
  }

  package mutating func add(_ value: Double) {
    guard value.isFinite else { return }
    count += 1
    sum += value
    minimum = min(minimum, value)
    maximum = max(maximum, value)
    if samples.count < capacity {
      samples.append(value)
      return
    }
    let slot = Int(truncatingIfNeeded: random.next() % UInt64(count))
    if slot < capacity { samples[slot] = value }
  }

  /// Whether the percentiles are estimates (the stream outgrew the sample).
  package var isSampled: Bool { count > samples.count }

  package var mean: Double? { count > 0 ? sum / Double(count) : nil }

  /// p50, p90, p99 and the exact maximum, nil when empty.
  var percentiles: Percentiles? { Percentiles(self) }
}
