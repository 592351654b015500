import PacketKit
import Testing

@testable import LegCtrlCodec

/// The firmware model fed by several writers, as the firmware's one state
/// is (docs/protocols.md §5: writes from any source port act on the same state,
/// telemetry goes to the last writer; recording `restart`). No sockets:
/// the writers are told apart by their endpoints only.
@Suite struct LegCtrlFirmwarePeersTests {
  typealias Firmware = LegCtrlFirmwareTests
  static let firmware = "127.0.0.1:29000"

  struct Device {
    var model: any DeviceModel
    var events: [DeviceEvent] = []
    var frame = 0
    /// Who wrote last: the firmware's notifications go there.
    var lastWriter = "127.0.0.1:29500"

    init(mode: ModelMode = .analysis) throws {
      model = try LegCtrlCodec().makeModel(mode: mode, settings: [:])
    }

    mutating func pass(_ time: Double) {
      if let deadline = model.nextDeadline, deadline <= time { events += model.advance(to: time) }
    }

    @discardableResult
    mutating func write(_ bytes: [UInt8], from writer: String, at time: Double) -> Int {
      pass(time)
      frame += 1
      lastWriter = writer
      events += model.take(
        FlowMessage(
          frame: frame, time: time, source: writer, destination: LegCtrlFirmwarePeersTests.firmware,
          transport: "udp", codec: "legctrl", payload: bytes), heading: .toDevice)
      return frame
    }

    /// The firmware's telemetry, to the last writer.
    mutating func report(_ state: UInt8, _ error: UInt8, age: Int, at time: Double) {
      pass(time)
      frame += 1
      let bytes: [UInt8] = [
        1, 0x10, 8, 0, state, error, UInt8(age & 0xFF), UInt8(age >> 8), 0xE8, 0x1C, 0, 0,
      ]
      events += model.take(
        FlowMessage(
          frame: frame, time: time, source: LegCtrlFirmwarePeersTests.firmware, destination: lastWriter,
          transport: "udp", codec: "legctrl", payload: bytes), heading: .fromDevice)
    }

    func named(_ name: String) -> [DeviceEvent] { events.filter { $0.name == name } }
  }

  /// ARM from one port, then the app restarts twice and keeps the servo
  /// stream going from two new ports: one ARMED firmware throughout, its
  /// telemetry (to whoever wrote last) agreeing with the one model.
  @Test func anAppThatRestartsOnNewPortsKeepsTheFirmwareArmed() throws {
    var device = try Device()
    let writers = ["127.0.0.1:29500", "127.0.0.1:29501", "127.0.0.1:29502"]
    device.write(Firmware.arm, from: writers[0], at: 10)
    var refreshed = 10.0
    var tick = 10.005
    var time = 10.02
    while time <= 11.5 {
      while tick < time {
        device.report(1, 0, age: Int(((tick - refreshed) * 1000).rounded(.down)), at: tick)
        tick += 0.1
      }
      // Each restart is a new source port: 0.5 s on each.
      let writer = writers[min(2, Int((time - 10) / 0.5))]
      device.write(Firmware.servo(1500), from: writer, at: time)
      refreshed = time
      time += 0.02
    }
    device.events += device.model.finish(end: 11.6)
    #expect(device.events.allSatisfy { $0.mismatch == nil }, "\(device.events.compactMap(\.mismatch))")
    #expect(device.named("deadman_timeout").filter(\.certain).isEmpty)
    let commands = device.events.filter { $0.name == "executed" || $0.name == "ignored" }
    #expect(commands.count == 76, "ARM and 75 servo commands")
    #expect(commands.allSatisfy { $0.name == "executed" && $0.state("state") == .string("ARMED") })
    #expect(commands.allSatisfy { $0.state("pulse_us") == .integer(1500) })
  }

  /// One writer goes quiet for 300 ms while another keeps writing: the
  /// one deadman is refreshed by either; a DISARM from the second disarms
  /// the state the first armed.
  @Test func anyWriterRefreshesTheOneDeadman() throws {
    var device = try Device(mode: .emulation)
    device.write(Firmware.arm, from: "127.0.0.1:29500", at: 0)
    for step in 1...25 {
      device.write(Firmware.servo(1400), from: "127.0.0.1:29501", at: Double(step) * 0.02)
    }
    device.pass(0.51)
    #expect(device.named("deadman_timeout").isEmpty)
    let telemetry = device.named("telemetry")
    #expect(!telemetry.isEmpty && telemetry.allSatisfy { $0.state("state") == .string("ARMED") })
    // Each tick sends one notification (to the last writer, by the driver).
    #expect(telemetry.allSatisfy { $0.replies.count == 1 })
    let disarm = device.write(Firmware.disarm, from: "127.0.0.1:29502", at: 0.52)
    #expect(device.events.first { $0.frame == disarm }?.state("state") == .string("DISARMED"))
    // Silence from everyone now trips nothing: DISARMED has no deadman.
    device.pass(1.5)
    #expect(device.named("deadman_timeout").isEmpty)
  }

  /// And when every writer is silent the one deadman trips once.
  @Test func silenceFromEveryWriterTripsOnce() throws {
    var device = try Device(mode: .emulation)
    device.write(Firmware.arm, from: "127.0.0.1:29500", at: 0)
    device.write(Firmware.servo(1500), from: "127.0.0.1:29501", at: 0.05)
    device.write(Firmware.servo(1500), from: "127.0.0.1:29502", at: 0.07)
    device.pass(1.0)
    let trips = device.named("deadman_timeout")
    #expect(trips.count == 1)
    #expect((trips.first?.time ?? 0) - 0.07 >= 0.2)
  }
}
