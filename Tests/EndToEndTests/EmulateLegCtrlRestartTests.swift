import Foundation
import Testing

/// `emulate legctrl` fed the `restart` recording's writes from their own
/// senders (`replay --source-ports map`: one socket per source port of the
/// capture): one firmware for all of them, its telemetry going to whoever
/// wrote last, in the states the real firmware reported.
@Suite(.enabled(if: DeviceTruth.isPresent), .serialized)
struct EmulateLegCtrlRestartTests {
  /// The firmware's telemetry after its first command, as runs of one
  /// state/error_code with how many reports each had.
  static func firmwareRuns() throws -> [(pair: [String], reports: Int)] {
    let log = try DeviceTruth.log("legctrl/restart.firmware.jsonl")
    let first = try #require(log.firstIndex { $0["event"] as? String == "command_done" })
    var runs: [(pair: [String], reports: Int)] = []
    for entry in log[first...] where entry["event"] as? String == "telemetry_sent" {
      let bytes = try #require((entry["hex"] as? String).flatMap(Self.bytes))
      let pair = [
        EmulateLegCtrlTests.states[Int(bytes[4])], EmulateLegCtrlTests.errors[Int(bytes[5])] ?? "?",
      ]
      if runs.last?.pair == pair { runs[runs.count - 1].reports += 1 } else { runs.append((pair, 1)) }
    }
    return runs
  }

  static func bytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    return stride(from: 0, to: digits.count, by: 2).compactMap {
      UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
    }
  }

  @Test func oneFirmwareAnswersEverySenderAsTheRealOneDid() throws {
    let firmware = try Self.firmwareRuns()
    // The recording: ARMED through the restarts, one deadman trip, DISARM, ARM, DISARM.
    #expect(firmware.map(\.pair).contains(["FAULT", "DEADMAN_TIMEOUT"]))
    let (device, port) = try Live.startListener { port in
      [
        "emulate", "legctrl", "--listen", "udp:127.0.0.1:\(port)", "--format", "ndjson", "--messages",
        "--duration", "30s",
      ]
    }
    let replay = try Pktbench.run([
      "replay", DeviceTruth.path("legctrl/restart.pcap"), "--to", "udp://127.0.0.1:\(port)", "--filter",
      "udp dst port 29000", "--source-ports", "map", "--format", "ndjson",
    ])
    #expect(replay.status == 0, "\(replay.stderr)")
    Thread.sleep(forTimeInterval: 0.25)
    device.signal(SIGINT)
    _ = device.finish()

    // The replay's own records: which local socket sent each capture sender's writes.
    let sent = try replay.text.split(separator: "\n").compactMap {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    var senders: [String: String] = [:]
    for record in sent {
      if let local = record["src"] as? String, let original = record["capture_src"] as? String {
        senders[local] = original
      }
    }
    #expect(Set(senders.values) == ["127.0.0.1:29500", "127.0.0.1:29501", "127.0.0.1:29502"])
    #expect(Set(senders.keys).count == 3, "one socket per capture sender")

    // Every telemetry the emulated firmware sent went to the last writer
    // before its tick (a datagram printed before it may have come after the
    // tick fell).
    var received: [(time: Double, source: String)] = []
    var tick: Double?
    var recipients: [String] = []
    var emulated: [[String]] = []
    for line in device.jsonLines {
      if line["event"] as? String == "telemetry" {
        tick = line["time"] as? Double
      } else if line["event"] == nil, line["direction"] == nil, let source = line["src"] as? String,
        let time = line["time"] as? Double
      {
        received.append((time, source))
      } else if line["direction"] as? String == "sent", line["message"] as? String == "telemetry" {
        let destination = line["dst"] as? String
        let writer = received.last { $0.time <= (tick ?? .infinity) }?.source
        #expect(destination == writer, "telemetry to \(destination ?? "?"), last writer \(writer ?? "?")")
        recipients.append(senders[destination ?? ""] ?? "?")
        let fields = Live.fields(line)
        let pair = [fields["state"] as? String ?? "?", fields["error_code"] as? String ?? "?"]
        if emulated.last != pair { emulated.append(pair) }
      }
    }
    // Each of the app's three ports got telemetry while it was the last writer; the last one 29501.
    #expect(Set(recipients) == ["127.0.0.1:29500", "127.0.0.1:29501", "127.0.0.1:29502"])
    #expect(recipients.last == "127.0.0.1:29501")

    // The states in the firmware's order. A state the firmware reported
    // once lasted under one 100 ms tick: whether a tick of the emulated
    // firmware (its own phase) falls in it is chance, so the emulated
    // sequence is the firmware's with any of those left out.
    let singles = firmware.indices.filter { firmware[$0].reports == 1 }
    #expect(singles.count < 12)
    let readings = (0..<(1 << singles.count)).map { mask in
      EmulateLegCtrlTests.collapsed(
        firmware.indices.filter { index in
          guard let bit = singles.firstIndex(of: index) else { return true }
          return mask & (1 << bit) == 0
        }.map { firmware[$0].pair })
    }
    #expect(readings.contains(emulated), "emulated \(emulated), firmware \(firmware)")
  }
}

/// `--messages` (and `-Y`) see what the emulated firmware sends, not only
/// what it gets: its FAULT telemetry after a deadman trip matches a filter
/// on the state.
@Suite(.serialized) struct EmulateSentMessagesTests {
  @Test func theDisplayFilterMatchesTheTelemetryTheFirmwareSends() throws {
    let (device, port) = try Live.startListener { port in
      [
        "emulate", "legctrl", "--listen", "udp:127.0.0.1:\(port)", "--format", "ndjson", "-Y",
        "legctrl.state == \"FAULT\"", "--duration", "30s",
      ]
    }
    let sent = try Pktbench.run(["send", "udp://127.0.0.1:\(port)", "arm", "then", "wait", "600ms", "-q"])
    #expect(sent.status == 0, "\(sent.stderr)")
    device.signal(SIGINT)
    _ = device.finish()
    let records = device.jsonLines.filter { $0["event"] == nil }
    #expect(!records.isEmpty, "the FAULT telemetry is printed")
    for record in records {
      #expect(record["direction"] as? String == "sent")
      #expect(record["message"] as? String == "telemetry")
      #expect(Live.fields(record)["state"] as? String == "FAULT")
    }
  }
}
