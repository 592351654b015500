import PacketKit

/// Messages per time bucket since a shared origin, and the longest gap that
/// ended in each bucket. The bucket count is fixed: when the capture
/// outgrows it, the width doubles and neighbours merge, so memory stays the
/// same however long the capture runs.
package struct RateTimeline {
  package static let maximumBuckets = 256

  package let origin: Double
  package private(set) var width: Double
  package private(set) var counts: [Int] = []
  package private(set) var longestGaps: [Double] = []

  package init(origin: Double, width: Double = 0.05) {
    self.origin = origin
    self.width = width
  }

  package mutating func add(time: Double, gap: Double?) {
    guard time.isFinite else { return }
    var position = max(0, time - origin) / width
    while position >= Double(Self.maximumBuckets) {
      mergeNeighbours()
      position = max(0, time - origin) / width
    }
    let index = Int(position)
    while counts.count <= index {
      counts.append(0)
      longestGaps.append(0)
    }
    counts[index] += 1
    if let gap, gap > longestGaps[index] { longestGaps[index] = gap }
  }

  /// Rate in messages per second for bucket `index`.
  package func rate(_ index: Int) -> Double {
    counts.indices.contains(index) ? Double(counts[index]) / width : 0
  }

  private mutating func mergeNeighbours() {
    var mergedCounts: [Int] = []
    var mergedGaps: [Double] = []
    var index = 0
    while index < counts.count {
      let next = index + 1 < counts.count ? index + 1 : index
      mergedCounts.append(counts[index] + (next != index ? counts[next] : 0))
      mergedGaps.append(max(longestGaps[index], longestGaps[next]))
      index += 2
    }
    counts = mergedCounts
    longestGaps = mergedGaps
    width *= 2
  }
}
