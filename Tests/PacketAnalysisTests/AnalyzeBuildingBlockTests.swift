import PacketKit
import Testing

@testable import PacketAnalysis

/// The bounded summaries the analysis keeps instead of records.
@Suite struct AnalyzeBuildingBlockTests {
  @Test func percentilesAreNearestRank() throws {
    var reservoir = Reservoir()
    for value in (1...100).reversed() { reservoir.add(Double(value)) }
    let p = try #require(reservoir.percentiles)
    // Nearest rank over 1…100: the ceil(q·100)-th smallest value.
    #expect(p.p50 == 50)
    #expect(p.p90 == 90)
    #expect(p.p99 == 99)
    #expect(p.maximum == 100)
    #expect(p.minimum == 1)
    #expect(p.mean == 50.5)
    #expect(p.exact)
  }

  @Test func reservoirStaysBoundedAndKeepsExactExtremes() throws {
    var reservoir = Reservoir(capacity: 64)
    for index in 0..<10_000 { reservoir.add(Double(index % 997)) }
    reservoir.add(.nan)
    reservoir.add(-5)
    #expect(reservoir.samples.count == 64)
    #expect(reservoir.count == 10_001)
    #expect(reservoir.minimum == -5)
    #expect(reservoir.maximum == 996)
    #expect(reservoir.isSampled)
    let p = try #require(reservoir.percentiles)
    #expect(!p.exact)
    // A uniform sample of 0…996 has its median well inside.
    #expect(p.p50 > 200 && p.p50 < 800)
  }

  @Test func timelineMergesInsteadOfGrowing() {
    var timeline = RateTimeline(origin: 1000, width: 0.05)
    for index in 0..<100_000 { timeline.add(time: 1000 + Double(index) * 0.01, gap: 0.01) }
    timeline.add(time: 1000 + 1e9, gap: 1e9 - 1000)
    timeline.add(time: .infinity, gap: nil)
    #expect(timeline.counts.count <= RateTimeline.maximumBuckets)
    #expect(timeline.counts.reduce(0, +) == 100_001)
    #expect(timeline.longestGaps.max() == 1e9 - 1000)
  }

  @Test func longestGapsKeepsTheTopFiveLongestFirst() {
    var gaps = LongestGaps()
    for seconds in [0.3, 0.1, 0.9, 0.5, 0.2, 0.8, 0.05, 0.7] {
      gaps.offer(Gap(seconds: seconds, fromFrame: nil, toFrame: nil, fromTime: 0, toTime: seconds))
    }
    #expect(gaps.gaps.map(\.seconds) == [0.9, 0.8, 0.7, 0.5, 0.3])
  }

  @Test func findingLogCapsEachRuleAndCountsTheRest() {
    var log = FindingLog(capPerRule: 3)
    for index in 0..<10 {
      log.add(Finding("rider.watchdog-gap", .error, time: Double(index), frame: index, text: ""))
    }
    log.add(Finding("rider.rate", .warning, time: 0, frame: 1, text: ""))
    #expect(log.kept.count == 4)
    #expect(log.count(.error) == 10)
    #expect(log.suppressed.first?.rule == "rider.watchdog-gap")
    #expect(log.suppressed.first?.count == 7)
    #expect(log.worst == .error)
  }

  @Test func aFlowIsTheSameInBothDirections() {
    #expect(
      FlowKey(family: "udp", "10.0.0.1:5005", "10.0.0.2:4000")
        == FlowKey(family: "udp", "10.0.0.2:4000", "10.0.0.1:5005"))
    #expect(FlowKey.family(of: "websocket") == FlowKey.family(of: "tcp"))
    #expect(FlowKey.family(of: "ble-att") == "ble")
  }

  @Test func histogramCountsEverySample() throws {
    let samples = [0.001, 0.002, 0.002, 0.010, 0.011, 0.5]
    let histogram = try #require(Histogram(samples, bins: 10))
    #expect(histogram.counts.reduce(0, +) == samples.count)
    #expect(histogram.counts.last == 1)
    #expect(Histogram([], bins: 10) == nil)
  }

  @Test func durationsReadAsPeopleWriteThem() {
    #expect(Format.duration(1.5) == "1.500 s")
    #expect(Format.duration(0.3004) == "300.4 ms")
    #expect(Format.duration(0.000117) == "117 µs")
    #expect(Format.bytes(16429) == "16,429 bytes")
    #expect(Format.bytes(512) == "512 bytes")
  }
}
