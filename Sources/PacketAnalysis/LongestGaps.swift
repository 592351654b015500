import PacketKit

/// The `limit` longest gaps of a series, longest first.
package struct LongestGaps {
  package let limit: Int
  package private(set) var gaps: [Gap] = []

  package init(limit: Int = 5) {
    self.limit = limit
  }

  package mutating func offer(_ gap: Gap) {
    if gaps.count >= limit, let shortest = gaps.last, shortest.seconds >= gap.seconds { return }
    let index = gaps.firstIndex { $0.seconds < gap.seconds } ?? gaps.endIndex
    gaps.insert(gap, at: index)
    if gaps.count > limit { gaps.removeLast() }
  }
}
