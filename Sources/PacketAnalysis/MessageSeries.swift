import PacketKit

/// One stream of messages in a flow (an app's commands, a device's
/// telemetry): its count, its rate against what the protocol expects,
/// inter-arrival percentiles, the longest gaps and a timeline, all in fixed
/// memory.
final class MessageSeries {
  package let name: String
  /// "app → robot": who sends it, in the protocol's words.
  package let direction: String?
  package let expected: ExpectedRate?
  package private(set) var count = 0
  package private(set) var firstTime: Double?
  package private(set) var lastTime: Double?
  package private(set) var firstFrame: Int?
  package private(set) var lastFrame: Int?
  package private(set) var intervals = Reservoir()
  package private(set) var gaps = LongestGaps()
  package private(set) var timeline: RateTimeline
  /// Intervals up to `expected.pauseAfter`, and their total: the rate while sending.
  private(set) var activeIntervals = 0
  private(set) var activeSeconds = 0.0

  package init(name: String, direction: String?, expected: ExpectedRate?, origin: Double) {
    self.name = name
    self.direction = direction
    self.expected = expected
    self.timeline = RateTimeline(origin: origin)
  }

  /// Adds one message; returns the gap since the previous one.
  @discardableResult
  package func add(frame: Int?, time: Double) -> Gap? {
    count += 1
    var gap: Gap?
    if let lastTime {
      // Capture clocks can step back; a negative interval counts as none.
      let seconds = max(0, time - lastTime)
      let found = Gap(
        seconds: seconds, fromFrame: lastFrame, toFrame: frame, fromTime: lastTime, toTime: time)
      intervals.add(seconds)
      gaps.offer(found)
      if seconds <= (expected?.pauseAfter ?? .infinity) {
        activeIntervals += 1
        activeSeconds += seconds
      }
      gap = found
    } else {
      firstTime = time
      firstFrame = frame
    }
    timeline.add(time: time, gap: gap?.seconds)
    if time >= lastTime ?? -.infinity {
      lastTime = time
      lastFrame = frame
    }
    return gap
  }

  /// Messages per second over the whole series, first to last.
  package var meanRate: Double? {
    guard count > 1, let firstTime, let lastTime, lastTime > firstTime else { return nil }
    return Double(count - 1) / (lastTime - firstTime)
  }

  /// Messages per second while sending, pauses left out.
  var activeRate: Double? {
    guard activeIntervals > 0, activeSeconds > 0 else { return nil }
    return Double(activeIntervals) / activeSeconds
  }

  package var verdict: ExpectedRate.Verdict? { expected?.judge(self) }
}
