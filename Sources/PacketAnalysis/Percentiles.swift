import PacketKit

/// The summary of a distribution a report shows: p50, p90, p99 (nearest
/// rank over the sample) and the exact minimum, maximum and mean.
struct Percentiles: Equatable {
  package var count: Int
  package var p50: Double
  package var p90: Double
  package var p99: Double
  package var minimum: Double
  package var maximum: Double
  package var mean: Double
  /// False when the values come from a sample of a longer stream.
  package var exact: Bool

  package init?(_ reservoir: Reservoir) {
    guard reservoir.count > 0, !reservoir.samples.isEmpty else { return nil }
    let sorted = reservoir.samples.sorted()
    count = reservoir.count
    p50 = Self.nearestRank(sorted, 0.50)
    p90 = Self.nearestRank(sorted, 0.90)
    p99 = Self.nearestRank(sorted, 0.99)
    minimum = reservoir.minimum
    maximum = reservoir.maximum
    mean = reservoir.sum / Double(reservoir.count)
    exact = !reservoir.isSampled
  }

  /// The smallest value with at least `fraction` of the values at or below it.
  static func nearestRank(_ sorted: [Double], _ fraction: Double) -> Double {
    guard let last = sorted.last else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    let index = min(max(rank - 1, 0), sorted.count - 1)
    return sorted.indices.contains(index) ? sorted[index] : last
  }
}
