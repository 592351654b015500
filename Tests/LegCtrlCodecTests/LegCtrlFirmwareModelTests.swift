import PacketKit
import Testing

@testable import LegCtrlCodec

/// The firmware model through the DeviceModel contract, as `analyze` and
/// `emulate` drive it: records in time order, `advance` when a deadline
/// passed, then `take`. Expectations are docs/protocols.md §5's.
@Suite struct LegCtrlFirmwareModelTests {
  typealias Firmware = LegCtrlFirmwareTests

  /// A flow between the app (a:1) and the firmware (fw:29000), fed as the
  /// analyzer feeds it.
  struct Flow {
    var model: any DeviceModel
    var events: [DeviceEvent] = []
    var frame = 0
    /// The flow's last record, where the analyzer passes time to at its end.
    var lastTime = -Double.infinity

    init(mode: ModelMode = .analysis, settings: ModelSettings = [:]) throws {
      model = try LegCtrlCodec().makeModel(mode: mode, settings: settings)
    }

    mutating func pass(_ time: Double) {
      lastTime = max(lastTime, time)
      if let deadline = model.nextDeadline, deadline <= time { events += model.advance(to: time) }
    }

    @discardableResult
    mutating func write(_ bytes: [UInt8], at time: Double) -> Int {
      pass(time)
      frame += 1
      let message = FlowMessage(
        frame: frame, time: time, source: "a:1", destination: "fw:29000", transport: "udp", codec: "legctrl",
        payload: bytes)
      events += model.take(message, heading: .toDevice)
      return frame
    }

    /// A TELEMETRY the firmware sent: state, error_code, last_cmd_age_ms.
    @discardableResult
    mutating func report(_ state: UInt8, _ error: UInt8, age: Int, at time: Double) -> Int {
      pass(time)
      frame += 1
      let bytes: [UInt8] = [
        1, 0x10, 8, 0, state, error, UInt8(age & 0xFF), UInt8(age >> 8), 0xE8, 0x1C, 0, 0,
      ]
      let message = FlowMessage(
        frame: frame, time: time, source: "fw:29000", destination: "a:1", transport: "udp", codec: "legctrl",
        payload: bytes)
      events += model.take(message, heading: .fromDevice)
      return frame
    }

    mutating func finish(end: Double?) {
      pass(end ?? lastTime)
      events += model.finish(end: end)
    }

    /// A transport event of the link (an HCI trace's connection events).
    mutating func linkEvent(_ name: String, at time: Double) {
      pass(time)
      frame += 1
      let message = FlowMessage(
        frame: frame, time: time, source: "a:1", destination: "fw:29000", transport: "ble-att",
        event: (name, []))
      events += model.take(message, heading: .toDevice)
    }

    func named(_ name: String) -> [DeviceEvent] { events.filter { $0.name == name } }

    func event(frame: Int) -> DeviceEvent? {
      events.first { $0.frame == frame && ["executed", "ignored", "rejected"].contains($0.name) }
    }

    var mismatches: [DeviceEvent] { events.filter { $0.mismatch != nil } }

    /// ARM at `start`, then servo commands every 20 ms up to `last`, with
    /// telemetry every 100 ms from `start + 0.005` that agrees.
    mutating func armedStream(from start: Double, to last: Double, pulse: Int = 1500) {
      write(Firmware.arm, at: start)
      var refreshed = start
      var time = start + 0.02
      var tick = start + 0.005
      while time <= last + 1e-9 {
        while tick < time {
          report(1, 0, age: Int(((tick - refreshed) * 1000).rounded(.down)), at: tick)
          tick += 0.1
        }
        write(Firmware.servo(pulse), at: time)
        refreshed = time
        time += 0.02
      }
    }
  }

  static func state(_ event: DeviceEvent?) -> String {
    guard let event else { return "none" }
    return "\(event.state("state")?.stringValue ?? "?")/\(event.state("error_code")?.stringValue ?? "?")"
  }

  // MARK: Analysis: telemetry marks the tick

  @Test func deadmanTripsOnTheTickOfTheTelemetryThatReportsIt() throws {
    var flow = try Flow()
    flow.armedStream(from: 100, to: 100.1)
    flow.report(1, 0, age: 5, at: 100.105)
    flow.report(1, 0, age: 105, at: 100.205)
    // 205 ms without a command: the tick at +0.305 trips (≥ 200 ms), then reports.
    let fault = flow.report(2, 1, age: 205, at: 100.305)
    let trips = flow.named("deadman_timeout")
    #expect(trips.count == 1)
    #expect(trips.first?.certain == true)
    #expect(abs((trips.first?.time ?? 0) - 100.305) < 1e-9)
    #expect(trips.first?.state("pulse_us") == .integer(0), "a deadman FAULT switches the output off")
    #expect(flow.mismatches.isEmpty)
    #expect(Self.state(flow.events.last { $0.frame == fault }) == "FAULT/DEADMAN_TIMEOUT")
  }

  @Test func armedTelemetryWellPastTheDeadmanIsAMismatch() throws {
    var flow = try Flow()
    flow.armedStream(from: 100, to: 100.1)
    flow.report(1, 0, age: 5, at: 100.105)
    flow.report(1, 0, age: 105, at: 100.205)
    flow.report(1, 0, age: 205, at: 100.305)  // may or may not have tripped: the report says not
    #expect(flow.mismatches.isEmpty)
    let late = flow.report(1, 0, age: 305, at: 100.405)
    #expect(flow.mismatches.map(\.frame) == [late])
    #expect(flow.mismatches.first?.mismatch?.contains("deadman should have tripped") == true)
    #expect(flow.named("deadman_timeout").isEmpty, "the model follows the firmware's report")
    // The same disagreement again is the same episode: said once.
    flow.report(1, 0, age: 405, at: 100.505)
    #expect(flow.mismatches.count == 1)
  }

  @Test func ageWithinTheLinkLatencyAgreesAndFarBeyondIsAMismatch() throws {
    var agreeing = try Flow()
    agreeing.armedStream(from: 100, to: 100.1)
    agreeing.report(1, 0, age: 5, at: 100.105)
    #expect(agreeing.mismatches.isEmpty)

    // 60 ms fits: the last writes may have crossed the notification
    // (65 ms of link latency), leaving the one 65 ms before as the last taken.
    var crossed = try Flow()
    crossed.armedStream(from: 100, to: 100.1)
    crossed.report(1, 0, age: 60, at: 100.105)
    #expect(crossed.mismatches.isEmpty)

    // 150 ms fits no write the firmware can have taken last.
    var older = try Flow()
    older.armedStream(from: 100, to: 100.1)
    older.report(1, 0, age: 150, at: 100.105)
    #expect(older.mismatches.count == 1)
    #expect(older.mismatches.first?.mismatch?.contains("older than the capture's") == true)
  }

  @Test func aWriteCrossingTheNotificationMayCountAfterTheTick() throws {
    // The DISARM 2 ms before the telemetry reached the firmware after its
    // tick: the report still says ARMED with the servo's age.
    var flow = try Flow()
    flow.armedStream(from: 100, to: 100.1)
    let disarm = flow.write(Firmware.disarm, at: 100.103)
    flow.report(1, 0, age: 5, at: 100.105)
    #expect(flow.mismatches.isEmpty)
    #expect(Self.state(flow.event(frame: disarm)) == "DISARMED/NONE")
    flow.report(0, 0, age: 0, at: 100.205)
    #expect(flow.mismatches.isEmpty)
  }

  @Test func eventsWaitForTheTelemetryThatConfirmsThem() throws {
    var flow = try Flow()
    flow.armedStream(from: 100, to: 100.1)
    flow.report(1, 0, age: 5, at: 100.105)
    let before = flow.events.count
    let servo = flow.write(Firmware.servo(1600), at: 100.12)
    #expect(flow.events.count == before)
    let deadline = try #require(flow.model.nextDeadline)
    #expect(deadline > 100.12 && deadline <= 100.12 + LegCtrlTiming.hold + 1e-9)
    flow.report(1, 0, age: 85, at: 100.205)
    #expect(flow.event(frame: servo)?.name == "executed")
    #expect(flow.event(frame: servo)?.state("pulse_us") == .integer(1600))
  }

  // MARK: Analysis: what the capture cannot show

  @Test func anI2CFailureIsPlacedOnTheServoCommandTheAgeNames() throws {
    // As in the i2c recording: the failing servo command is the first since
    // the last telemetry, and the FAULT/I2C_FAULT report's age names it.
    var flow = try Flow()
    flow.write(Firmware.arm, at: 100)
    flow.report(1, 0, age: 5, at: 100.005)
    let failing = flow.write(Firmware.servo(1234), at: 100.02)
    let after = [0.04, 0.06, 0.08, 0.10].map { flow.write(Firmware.servo(1500), at: 100 + $0) }
    flow.report(2, 3, age: 85, at: 100.105)
    #expect(flow.mismatches.isEmpty)
    #expect(flow.event(frame: failing)?.name == "executed")
    #expect(Self.state(flow.event(frame: failing)) == "FAULT/I2C_FAULT")
    #expect(flow.named("i2c_fault").map(\.frame) == [failing])
    #expect(flow.named("i2c_fault").first?.certain == true)
    for frame in after {
      #expect(flow.event(frame: frame)?.name == "ignored")
      #expect(Self.state(flow.event(frame: frame)) == "FAULT/I2C_FAULT")
    }
    // The age keeps growing in FAULT: servo commands there do not refresh it.
    flow.write(Firmware.servo(1500), at: 100.12)
    flow.report(2, 3, age: 185, at: 100.205)
    #expect(flow.mismatches.isEmpty)
  }

  @Test func anI2CFailureSeveralServoCommandsFitIsNotCertain() throws {
    // Within the link's latency any of the last three could have failed:
    // the best fit is chosen, and said to be uncertain.
    var flow = try Flow()
    flow.write(Firmware.arm, at: 100)
    flow.report(1, 0, age: 5, at: 100.005)
    flow.write(Firmware.servo(1500), at: 100.02)
    flow.write(Firmware.servo(1500), at: 100.04)
    let failing = flow.write(Firmware.servo(1234), at: 100.06)
    flow.write(Firmware.servo(1500), at: 100.08)
    flow.report(2, 3, age: 45, at: 100.105)
    #expect(flow.mismatches.isEmpty)
    #expect(flow.named("i2c_fault").map(\.frame) == [failing])
    #expect(flow.named("i2c_fault").first?.certain == false)
  }

  @Test func anI2CFaultNoServoCommandExplainsIsTheFirmwareTelling() throws {
    var flow = try Flow()
    flow.write(Firmware.arm, at: 100)
    flow.report(1, 0, age: 5, at: 100.005)
    flow.write(Firmware.ping, at: 100.05)
    flow.report(2, 3, age: 55, at: 100.105)
    #expect(flow.mismatches.isEmpty)
    #expect(flow.named("i2c_fault").count == 1)
    #expect(Self.state(flow.events.last) == "FAULT/I2C_FAULT")
  }

  @Test func telemetryResumingDisarmedAfterAGapIsAReconnect() throws {
    var flow = try Flow()
    flow.armedStream(from: 100, to: 100.1)
    flow.report(1, 0, age: 5, at: 100.105)
    // The link drops: no telemetry for 600 ms, and no deadman trip either
    // (the firmware went to FAULT/NONE at the disconnect).
    flow.report(0, 0, age: 0, at: 100.705)
    #expect(flow.mismatches.isEmpty)
    #expect(flow.named("disconnect").count == 1)
    #expect(flow.named("reconnect").count == 1)
    #expect(flow.named("deadman_timeout").filter(\.certain).isEmpty)
    #expect(flow.named("reconnect").first?.state("pulse_us") == .integer(0))
    #expect(Self.state(flow.events.last) == "DISARMED/NONE")
  }

  @Test func aFirstReportThatDisagreesWithTheStartIsTakenAsIs() throws {
    // The capture starts in the middle of a FAULT: ARM is refused.
    var flow = try Flow()
    flow.report(2, 1, age: 900, at: 100.005)
    let arm = flow.write(Firmware.arm, at: 100.05)
    flow.report(2, 1, age: 1000, at: 100.105)
    #expect(flow.mismatches.isEmpty)
    #expect(flow.event(frame: arm)?.name == "ignored")
  }

  @Test func visibleLinkEventsDisconnectAndReconnect() throws {
    var flow = try Flow()
    flow.armedStream(from: 100, to: 100.1)
    flow.report(1, 0, age: 5, at: 100.105)
    flow.linkEvent("ble.disconnected", at: 100.15)
    flow.finish(end: nil)
    let drop = try #require(flow.named("disconnect").first)
    #expect(drop.certain && drop.frame == flow.frame)
    #expect(Self.state(drop) == "FAULT/NONE" && drop.state("pulse_us") == .integer(0))
    #expect(flow.named("deadman_timeout").isEmpty)
  }

  // MARK: Analysis without telemetry

  @Test(arguments: [(0.45, true, true), (0.26, true, false), (0.15, false, false)])
  func withoutTelemetryTheDeadmanFallsTwoToThreeHundredMillisecondsAfter(
    gap: Double, trips: Bool, certain: Bool
  ) throws {
    var flow = try Flow()
    flow.write(Firmware.arm, at: 100)
    let last = flow.write(Firmware.servo(1500), at: 100.02)
    let next = flow.write(Firmware.servo(1500), at: 100.02 + gap)
    flow.write(Firmware.servo(1500), at: 100.04 + gap)
    flow.finish(end: 100.06 + gap)
    let deadman = flow.named("deadman_timeout").filter { $0.time < 100.02 + gap }
    #expect(deadman.count == (trips ? 1 : 0))
    if let trip = deadman.first {
      #expect(trip.certain == certain)
      #expect(trip.time > 100.22 && trip.time < 100.32 + 1e-9)
      #expect(trip.text.contains("frame \(last)"))
      #expect(flow.event(frame: next)?.name == "ignored")
      #expect(flow.event(frame: next)?.certain == certain)
    } else {
      #expect(flow.event(frame: next)?.name == "executed")
    }
  }

  @Test func afterTheCaptureAnArmedFirmwareTripsCertainOnlyWhenTheEndIsKnownLateEnough() throws {
    var open = try Flow()
    open.write(Firmware.arm, at: 100)
    open.write(Firmware.servo(1500), at: 100.02)
    open.finish(end: nil)
    #expect(open.named("deadman_timeout").map(\.certain) == [false])

    var late = try Flow()
    late.write(Firmware.arm, at: 100)
    late.write(Firmware.servo(1500), at: 100.02)
    late.finish(end: 101)
    #expect(late.named("deadman_timeout").map(\.certain) == [true])

    var early = try Flow()
    early.write(Firmware.arm, at: 100)
    early.write(Firmware.servo(1500), at: 100.02)
    early.finish(end: 100.1)
    #expect(early.named("deadman_timeout").map(\.certain) == [false])

    // With telemetry, a trip no telemetry reported stays a possibility.
    var reported = try Flow()
    reported.armedStream(from: 100, to: 100.1)
    reported.report(1, 0, age: 5, at: 100.105)
    reported.finish(end: 102)
    #expect(reported.named("deadman_timeout").map(\.certain) == [false])
  }

  // MARK: Emulation

  @Test func emulationTicksFromTheFirstWriteAndTripsBeforeThatTicksTelemetry() throws {
    var flow = try Flow(mode: .emulation)
    flow.write(Firmware.arm, at: 100)
    #expect(flow.events.map(\.name) == ["executed"])
    #expect(flow.events.allSatisfy { $0.replies.isEmpty }, "the firmware does not answer writes")
    // The first tick 30 ms after the first write, clear of the app's write grid.
    #expect(flow.model.nextDeadline.map { abs($0 - 100.03) < 1e-9 } == true)
    flow.events = []
    flow.pass(100.24)
    #expect(flow.events.map(\.name) == ["telemetry", "telemetry", "deadman_timeout", "telemetry"])
    let sent = flow.named("telemetry").map(\.replies)
    // The third tick (age 230 ms) reports FAULT / DEADMAN_TIMEOUT in §2's layout.
    #expect(sent.last == [.send([0x01, 0x10, 0x08, 0x00, 0x02, 0x01, 0xE6, 0x00, 0xE8, 0x1C, 0x00, 0x00])])
    #expect(sent.first.map { $0.count == 1 } == true)
  }

  @Test func emulationKeepsTheDeadmanAliveWithServoCommands() throws {
    var flow = try Flow(mode: .emulation)
    flow.write(Firmware.arm, at: 100)
    var time = 100.02
    while time < 101 {
      flow.write(Firmware.servo(1700), at: time)
      time += 0.02
    }
    #expect(flow.named("deadman_timeout").isEmpty)
    #expect(flow.named("telemetry").count >= 9)
    let last = try #require(flow.named("telemetry").last?.replies.first)
    guard case .send(let bytes) = last else { throw Failure("no telemetry bytes") }
    #expect(bytes[4] == 1 && bytes[5] == 0)
  }

  @Test func emulationSettings() throws {
    var flow = try Flow(mode: .emulation, settings: ["battery-mv": "7100", "i2c-fail-us": "1234"])
    flow.write(Firmware.arm, at: 100)
    let failing = flow.write(Firmware.servo(1234), at: 100.02)
    flow.pass(100.1)
    #expect(Self.state(flow.event(frame: failing)) == "FAULT/I2C_FAULT")
    let reply = try #require(flow.named("telemetry").last?.replies.first)
    guard case .send(let bytes) = reply else { throw Failure("no telemetry bytes") }
    #expect(Int(bytes[8]) | Int(bytes[9]) << 8 == 7100)
    #expect(bytes[4] == 2 && bytes[5] == 3)

    for settings in [
      ["battery-mv": "lots"], ["battery-mv": "70000"], ["i2c-fail-us": "3000"], ["checksum": "xor"],
    ] {
      #expect(throws: ModelSettingError.self, "\(settings)") {
        _ = try LegCtrlCodec().makeModel(mode: .emulation, settings: settings)
      }
    }
  }

  @Test func theDeviceDescriptionNamesTheFirmwareAndItsMessages() {
    let device = LegCtrlCodec().device
    #expect(device.name == "firmware")
    #expect(device.messagesFromDevice == ["telemetry"])
    #expect(device.messagesToDevice.isSuperset(of: ["arm", "disarm", "set_servo_ch0", "ping"]))
    #expect(device.listens == ["udp"])
    #expect(device.settings.first { $0.flag == "battery-mv" }?.defaultValue == "7400")
  }

  /// Whatever the capture holds, the model keeps going: random writes and
  /// reports, floods, silences and jumps in time, in both modes.
  @Test(arguments: [ModelMode.analysis, .emulation])
  func hostileRecordsNeitherTrapNorStall(mode: ModelMode) throws {
    var random = SplitMix64(seed: 25)
    var flow = try Flow(mode: mode)
    var time = 1_000.0
    for _ in 0..<20_000 {
      switch random.below(100) {
      case 0: time += Double(random.below(1_000_000))
      case 1..<5: time += Double(random.below(2000)) / 1000
      default: time += Double(random.below(40)) / 1000
      }
      if random.chance(1, in: 4) {
        let base: [UInt8] = [
          1, 0x10, 8, 0, UInt8(random.below(4)), UInt8(random.below(6)), 0, 0, 0xE8, 0x1C, 0, 0,
        ]
        var bytes = base
        bytes[6] = UInt8(random.below(256))
        bytes[7] = UInt8(random.below(3))
        flow.report(bytes[4], bytes[5], age: Int(bytes[6]) | Int(bytes[7]) << 8, at: time)
      } else {
        var bytes = (0..<random.below(14)).map { _ in UInt8(random.below(256)) }
        if random.chance(3, in: 4), bytes.count >= 4 {
          bytes[0] = 1
          bytes[1] = [0x01, 0x02, 0x03, 0x04, 0x10, 0x7F][random.below(6)]
          bytes[2] = UInt8(bytes.count - 4)
        }
        flow.write(bytes, at: time)
      }
    }
    flow.finish(end: random.chance(1, in: 2) ? time + 5 : nil)
    let writes = flow.events.filter { ["executed", "ignored", "rejected"].contains($0.name) }
    if mode == .analysis {
      // Every write is classified once.
      #expect(Set(writes.compactMap(\.frame)).count == writes.count)
      #expect(writes.count + flow.named("telemetry").count == flow.frame)
    }
    #expect(!writes.isEmpty)
  }

  struct Failure: Error {
    var text: String
    init(_ text: String) { self.text = text }
  }
}
