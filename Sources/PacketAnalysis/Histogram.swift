import PacketKit

/// Equal-width bins over a sample, for the HTML report's latency plots.
package struct Histogram {
  package var lower: Double
  package var width: Double
  package var counts: [Int]
  /// Values above the range, counted in the last bin (a long tail would
  /// otherwise squeeze the rest into one bar).
  package var overflow = 0

  /// `bins` bins from the sample's minimum (or 0, when every value is
  /// positive and near it) to its maximum, or to three times the 90th
  /// percentile when the tail is longer; nil for an empty sample.
  package init?(_ samples: [Double], bins: Int = 24) {
    let sorted = samples.filter(\.isFinite).sorted()
    guard var low = sorted.first, var high = sorted.last, bins > 0 else { return nil }
    let p90 = Percentiles.nearestRank(sorted, 0.9)
    if p90 > 0, high > 3 * p90 { high = 3 * p90 }
    // Values that hardly differ: widen the range so they read as one bar.
    let scale = max(abs(low), abs(high))
    if high - low < 0.02 * scale {
      low -= 0.05 * scale
      high += 0.05 * scale
    }
    let start = low >= 0 && low < (high - low) ? 0 : low
    let span = high - start
    lower = start
    width = span > 0 ? span / Double(bins) : 1e-9
    var counts = [Int](repeating: 0, count: bins)
    for value in sorted {
      if value > high {
        overflow += 1
        counts[bins - 1] += 1
        continue
      }
      let position = (value - start) / width
      let index = position.isFinite ? min(max(Int(position), 0), bins - 1) : bins - 1
      counts[index] += 1
    }
    self.counts = counts
  }

  package var upper: Double { lower + width * Double(counts.count) }
}
