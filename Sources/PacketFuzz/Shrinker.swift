/// Delta debugging: removes chunks, then single bytes, then simplifies
/// bytes to zero, keeping each change that still fails the same way.
public struct Shrinker {
  public var maxAttempts: Int

  public init(maxAttempts: Int = 20_000) { self.maxAttempts = maxAttempts }

  public func shrink(_ input: [UInt8], stillFails: ([UInt8]) -> Bool) -> [UInt8] {
    var best = input
    var attempts = 0
    var chunk = max(1, best.count / 2)
    while chunk >= 1 && attempts < maxAttempts {
      var start = 0
      var changed = false
      while start < best.count && attempts < maxAttempts {
        var candidate = best
        candidate.removeSubrange(start..<min(start + chunk, best.count))
        attempts += 1
        if stillFails(candidate) {
          best = candidate
          changed = true
        } else {
          start += chunk
        }
      }
      if !changed { chunk /= 2 }
    }
    for index in best.indices where attempts < maxAttempts && best[index] != 0 {
      var candidate = best
      candidate[index] = 0
      attempts += 1
      if stillFails(candidate) { best = candidate }
    }
    return best
  }
}
