/// Equal-width bins over a sample, for the HTML report's latency plots.
struct Histogram {
  var lower: Double
  var width: Double
  var counts: [Int]

  /// `bins` bins from the sample's minimum (or 0, when every value is
  /// positive and near it) to its maximum; nil for an empty sample.
  init?(_ samples: [Double], bins: Int = 24) {
    guard let low = samples.min(), let high = samples.max(), bins > 0 else { return nil }
    let start = low >= 0 && low < (high - low) ? 0 : low
    let span = high - start
    lower = start
    width = span > 0 ? span / Double(bins) : max(abs(high), 1e-9) / Double(bins)
    var counts = [Int](repeating: 0, count: bins)
    for value in samples {
      let position = (value - start) / width
      let index = position.isFinite ? min(max(Int(position), 0), bins - 1) : bins - 1
      counts[index] += 1
    }
    self.counts = counts
  }

  var upper: Double { lower + width * Double(counts.count) }
}
