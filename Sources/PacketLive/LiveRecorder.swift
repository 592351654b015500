import PacketDecode
import PacketKit

/// Every live command's output goes through one recorder: it stamps each
/// record with its arrival time and the gap since the previous message from
/// the same source, hands it to the chosen sink (the same sinks `decode`
/// uses), keeps the counters for `--stats`, and says when `--count` is
/// reached. It is not thread-safe: each command drives it from one thread
/// (the event loop, or the capture loop).
package final class LiveRecorder: MessageSink {
  private let inner: MessageSink?
  private let out: OutputWriter
  /// `-Y`: a record it drops is not written, counted, timed or stamped.
  private let displayFilter: RecordFilter?
  package let countLimit: Int?
  package private(set) var stats: CaptureStats
  private(set) var timings: [String: SourceTiming] = [:]
  /// Sources in the order they were first seen.
  private(set) var sourceOrder: [String] = []
  /// Messages counted toward `--count` (received application messages).
  package private(set) var counted = 0
  private(set) var limitReached = false
  private var sequence = 0
  /// Called once, when the `--count`th message has been written.
  package var onLimitReached: (() -> Void)?

  package init(
    inner: MessageSink?, out: OutputWriter, codecs: CodecSet, countLimit: Int?,
    displayFilter: RecordFilter? = nil
  ) {
    stats = CaptureStats(codecs: codecs)
    self.inner = inner
    self.out = out
    self.countLimit = countLimit
    self.displayFilter = displayFilter
  }

  package var wantsPayload: Bool { inner?.wantsPayload ?? false }

  /// No per-message output (`-q`): callers may skip building records that
  /// only the output would show.
  var isSilent: Bool { inner == nil }

  /// The next 1-based record number of this run (live records have no file position).
  package func nextFrame() -> Int {
    sequence += 1
    return sequence
  }

  /// A record from the capture pipeline: application messages count.
  package func emit(_ record: DecodedRecord) {
    emit(record, counts: record.result != nil)
  }

  /// Writes one record. `counts`: whether it counts toward `--count` (what
  /// was received, not what pktbench answered or sent).
  package func emit(_ record: DecodedRecord, counts: Bool) {
    guard !limitReached else { return }
    if let displayFilter, !displayFilter.matches(record) { return }
    var record = record
    let time = record.time ?? LiveClock.now()
    if record.time == nil { record.time = time }
    var gap: Double?
    if record.result != nil {
      let key = record.source ?? "-"
      if var timing = timings[key] {
        gap = timing.add(time)
        timings[key] = timing
      } else {
        timings[key] = SourceTiming(first: time)
        sourceOrder.append(key)
      }
    }
    record.extra.append(.init("arrival", .string(LiveClock.isoText(time))))
    record.extra.append(.init("gap_ms", gap.map { .number(($0 * 1e6).rounded() / 1e3) } ?? .null))
    stats.record(frame: record.frame ?? 0, time: time)
    stats.add(record)
    inner?.emit(record)
    out.flush()
    guard counts else { return }
    counted += 1
    if let countLimit, counted >= countLimit {
      limitReached = true
      onLimitReached?()
    }
  }

  /// Closes the output (a JSON array's bracket).
  package func finish(name: String, stats: CaptureStats) {
    inner?.finish(name: name, stats: stats)
    out.flush()
  }

  package func finish(name: String) {
    finish(name: name, stats: stats)
  }
}

/// Arrival statistics for one source: count, span, gaps.
struct SourceTiming {
  package var count = 1
  package var first: Double
  package var last: Double
  var minimumGap = Double.infinity
  var maximumGap = 0.0
  var gapSum = 0.0

  package init(first: Double) {
    self.first = first
    self.last = first
  }

  /// Records one more arrival; returns the gap since the previous one.
  package mutating func add(_ time: Double) -> Double {
    let gap = time - last
    count += 1
    last = time
    minimumGap = min(minimumGap, gap)
    maximumGap = max(maximumGap, gap)
    gapSum += gap
    return gap
  }

  /// Messages per second over the span from first to last (n − 1 intervals).
  package var rate: Double? {
    count > 1 && last > first ? Double(count - 1) / (last - first) : nil
  }

  var meanGap: Double? { count > 1 ? gapSum / Double(count - 1) : nil }
}
