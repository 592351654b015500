import PacketKit

/// One kind of message (of a flow, or in all) in `--stats`: how many, how
/// many bytes, and when the first and last came, for a rate over its own
/// active span.
struct MessageTally {
  package var count = 0
  package var bytes = 0
  package var first = Double.infinity
  package var last = -Double.infinity

  @inline(__always)
  package mutating func add(bytes: Int, time: Double?) {
    count += 1
    self.bytes += bytes
    if let time {
      first = min(first, time)
      last = max(last, time)
    }
  }

  package mutating func merge(_ other: MessageTally) {
    count += other.count
    bytes += other.bytes
    first = min(first, other.first)
    last = max(last, other.last)
  }

  /// Intervals a second between the first and the last (a 20 Hz stream
  /// reads 20/s); nil with fewer than two messages or no time between them.
  package var rate: Double? {
    guard count >= 2, last > first else { return nil }
    return Double(count - 1) / (last - first)
  }
}
