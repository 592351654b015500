import BuiltinCodecs
import PacketDecode
import PacketKit
import Testing

@testable import PacketAnalysis

/// The rules fed records directly, as the capture pipeline would.
@Suite struct AnalyzeRuleTests {
  /// A UDP record decoded by the named codec.
  static func record(
    _ codec: String, _ bytes: [UInt8], frame: Int, time: Double, from source: String, to destination: String
  ) throws -> DecodedRecord {
    var record = DecodedRecord(
      frame: frame, time: time, transport: "udp", source: source, destination: destination,
      payloadLength: bytes.count)
    // The payload as it travelled, as the capture pipeline keeps it for analyze's device models.
    record.result = try #require(BuiltinCodecs.set.named(codec)).decodeFrame(bytes)
    record.payload = bytes
    return record
  }

  static func analyse(_ records: [DecodedRecord], end: Double? = nil) throws -> AnalysisReport {
    let sink = AnalysisSink(codecs: BuiltinCodecs.set)
    var stats = CaptureStats(codecs: BuiltinCodecs.set)
    for record in records {
      stats.record(frame: record.frame ?? 0, time: record.time ?? 0)
      sink.emit(record)
    }
    if let end { stats.record(frame: records.count + 1, time: end) }
    sink.finish(name: "test", stats: stats)
    return try #require(sink.report)
  }

  static func drive(_ left: Double, _ right: Double, at time: Double) -> [UInt8] {
    Array("{\"left\":\(left),\"right\":\(right),\"timestamp\":\(time)}".utf8)
  }

  @Test func riderSilenceWhileDrivingIsAnErrorAtTheLastCommand() throws {
    var records: [DecodedRecord] = []
    var time = 100.0
    for frame in 1...30 {
      if frame == 21 { time += 1.25 }
      records.append(
        try Self.record(
          "rider", Self.drive(40, 40, at: time), frame: frame, time: time, from: "a:1", to: "b:5005"))
      time += 0.05
    }
    let report = try Self.analyse(records)
    let findings = report.findings.filter { $0.rule == "rider.watchdog-gap" }
    #expect(findings.count == 1)
    #expect(findings.first?.severity == .error)
    #expect(findings.first?.frames == [20, 21])
    #expect(abs((findings.first?.duration ?? 0) - 1.3) < 1e-9)
    #expect(report.flows.first?.series.first?.verdict == .ok)
  }

  @Test func legctrlGapWithoutTelemetryInfersTheFaultAndFlagsLaterCommands() throws {
    // docs/protocols.md §2 vectors: ARM 01 01 00 00; SET_SERVO_CH0 1500 µs 01 03 02 00 DC 05.
    let arm: [UInt8] = [0x01, 0x01, 0x00, 0x00]
    let servo: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
    var records = [try Self.record("legctrl", arm, frame: 1, time: 10, from: "app:1", to: "dev:9000")]
    var time = 10.02
    for frame in 2...12 {
      if frame == 8 { time += 0.4 }
      records.append(
        try Self.record("legctrl", servo, frame: frame, time: time, from: "app:1", to: "dev:9000"))
      time += 0.02
    }
    let report = try Self.analyse(records)
    let gap = try #require(report.findings.first { $0.rule == "legctrl.deadman-gap" })
    #expect(gap.frame == 7)
    #expect(gap.severity == .error)
    #expect(gap.text.contains("no telemetry"))
    let inFault = try #require(report.findings.first { $0.rule == "legctrl.command-in-fault" })
    #expect(inFault.frame == 8)
    #expect(inFault.details.first { $0.key == "commands" }?.value == .integer(5))
  }

  /// docs/protocols.md §2 TELEMETRY: state, error_code, last_cmd_age_ms, 7400 mV.
  static func legctrlTelemetry(_ state: UInt8, _ error: UInt8, age: Int) -> [UInt8] {
    [0x01, 0x10, 0x08, 0x00, state, error, UInt8(age & 0xFF), UInt8(age >> 8), 0xE8, 0x1C, 0x00, 0x00]
  }

  @Test func legctrlCaptureEndingWhileArmedIsANoteNotATrip() throws {
    let arm: [UInt8] = [0x01, 0x01, 0x00, 0x00]
    let servo: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
    var records = [try Self.record("legctrl", arm, frame: 1, time: 10, from: "app:1", to: "dev:9000")]
    var refreshed = 10.0
    var tick = 10.005
    for index in 1...40 {
      let time = 10 + Double(index) * 0.02
      if tick < time {
        records.append(
          try Self.record(
            "legctrl", Self.legctrlTelemetry(1, 0, age: Int(((tick - refreshed) * 1000).rounded(.down))),
            frame: records.count + 1, time: tick, from: "dev:9000", to: "app:1"))
        tick += 0.1
      }
      records.append(
        try Self.record("legctrl", servo, frame: records.count + 1, time: time, from: "app:1", to: "dev:9000")
      )
      refreshed = time
    }
    let report = try Self.analyse(records)
    let ended = try #require(report.findings.first { $0.rule == "legctrl.ended-armed" })
    #expect(ended.severity == .note)
    #expect(ended.frame == records.count)
    #expect(report.findings.filter { $0.severity >= .warning }.isEmpty, "\(report.findings.map(\.text))")
  }

  @Test func legctrlCaptureStartingMidSessionBlamesNoCommand() throws {
    // The servo stream was running before the capture: the first telemetry
    // says ARMED, so the commands before it were not ignored.
    let servo: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
    var records: [DecodedRecord] = []
    for index in 0..<5 {
      records.append(
        try Self.record(
          "legctrl", servo, frame: index + 1, time: 10 + Double(index) * 0.02, from: "app:1", to: "dev:9000"))
    }
    records.append(
      try Self.record(
        "legctrl", Self.legctrlTelemetry(1, 0, age: 15), frame: 6, time: 10.095, from: "dev:9000", to: "app:1"
      ))
    records.append(try Self.record("legctrl", servo, frame: 7, time: 10.1, from: "app:1", to: "dev:9000"))
    let report = try Self.analyse(records)
    #expect(
      !report.findings.contains {
        $0.rule == "legctrl.command-ignored" || $0.rule == "legctrl.model-mismatch"
      })
  }

  @Test func rallieCommandWithoutResponseTimesOutAtTheEnd() throws {
    // docs/protocols.md §3 vector: 5A A5 83 32 32 2D 2D 32 00, XOR check 4E.
    let command: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x4E]
    let records = [try Self.record("rallie", command, frame: 1, time: 50, from: "app:1", to: "m:9100")]
    let report = try Self.analyse(records, end: 53)
    #expect(report.findings.map(\.rule) == ["rallie.no-response"])
    // A capture that ends within the 2 s cannot say.
    let early = try Self.analyse(records, end: 51)
    #expect(early.findings.isEmpty)
  }

  @Test func hostileValuesDoNotTrapAnyReport() throws {
    let payloads = [
      #"{"left":1e308,"right":-1e308,"timestamp":1e300}"#, #"{"left":0,"right":0,"timestamp":-1e300}"#,
      #"{"left":5,"right":5,"timestamp":0}"#,
    ]
    var records: [DecodedRecord] = []
    for (index, payload) in payloads.enumerated() {
      records.append(
        try Self.record(
          "rider", Array(payload.utf8), frame: index + 1, time: 1e9 + Double(index) * 4000, from: "a:1",
          to: "b:5005"))
    }
    let report = try Self.analyse(records)
    #expect(report.findings.contains { $0.rule == "rider.out-of-range" })
    #expect(report.findings.contains { $0.rule == "rider.timestamp-backwards" })
    #expect(!TextReport.lines(report, style: Style(enabled: false)).isEmpty)
    #expect(!JSONReport.bytes(report).isEmpty)
    #expect(HTMLReport.page(report).contains("<svg"))
  }

  @Test func theCaptureWideBudgetBoundsKeptFindings() {
    let budget = FindingBudget(limit: 5)
    var first = FindingLog(budget: budget)
    var second = FindingLog(budget: budget)
    for index in 0..<4 {
      first.add(Finding("a.rule", .warning, time: Double(index), frame: index, text: ""))
      second.add(Finding("b.rule", .warning, time: Double(index), frame: index, text: ""))
    }
    // Taken in turn: first, second, first, second, first; then nothing.
    #expect(first.kept.count == 3 && second.kept.count == 2)
    #expect(first.count(.warning) == 4 && second.count(.warning) == 4)
    #expect(second.suppressed.first?.count == 2)
  }
}
