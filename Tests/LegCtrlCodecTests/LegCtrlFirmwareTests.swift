import PacketKit
import Testing

@testable import LegCtrlCodec

/// The firmware's state machine alone, transition by transition, as
/// docs/protocols.md §5 and the recordings' logs (device-truth/legctrl) show it.
@Suite struct LegCtrlFirmwareTests {
  // docs/protocols.md §2 vectors and the recordings' writes.
  static let arm: [UInt8] = [0x01, 0x01, 0x00, 0x00]
  static let disarm: [UInt8] = [0x01, 0x02, 0x00, 0x00]
  static let ping: [UInt8] = [0x01, 0x04, 0x00, 0x00]
  static func servo(_ pulse: Int) -> [UInt8] {
    [0x01, 0x03, 0x02, 0x00, UInt8(pulse & 0xFF), UInt8(pulse >> 8 & 0xFF)]
  }

  static func armed(at time: Double = 10) -> LegCtrlFirmware {
    var firmware = LegCtrlFirmware()
    _ = firmware.take(LegCtrlWrite(arm), at: time)
    return firmware
  }

  static func faulted() -> LegCtrlFirmware {
    var firmware = armed(at: 10)
    firmware.tripDeadman()
    return firmware
  }

  @Test func startsDisarmedWithAgeZeroAndTheCentrePulse() {
    let firmware = LegCtrlFirmware()
    #expect(firmware.state == .disarmed && firmware.error == .none)
    #expect(firmware.age(at: 1000) == 0)
    // The start-up log: "Pulse width: 1500us (center position)".
    #expect(firmware.pulse == 1500)
  }

  // MARK: The write handler's rejections

  @Test(arguments: [
    ([0x01, 0x03, 0x02] as [UInt8], "too short"),
    ([0x02, 0x03, 0x02, 0x00, 0xDC, 0x05], "bad version"),
    ([0x01, 0x03, 0x02, 0x00, 0xDC], "length mismatch"),
    ([0x01, 0x03, 0x02, 0x00, 0xDC, 0x05, 0x00], "length mismatch"),
    ([0x01, 0x03, 0x09, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9], "payload too large"),
    ([], "too short"),
  ])
  func rejectedWritesChangeNothingAndDoNotRefreshTheDeadman(bytes: [UInt8], why: String) {
    var firmware = Self.armed(at: 10)
    let before = firmware
    let handling = firmware.take(LegCtrlWrite(bytes), at: 10.15)
    #expect(handling.verdict == .rejected, "\(why)")
    #expect(firmware == before)
    #expect(firmware.age(at: 10.15) == 150)
  }

  @Test func reservedNonZeroIsAccepted() {
    var firmware = Self.armed(at: 10)
    let handling = firmware.take(LegCtrlWrite([0x01, 0x03, 0x02, 0x01, 0xDC, 0x05]), at: 10.1)
    #expect(handling.verdict == .executed)
    #expect(firmware.pulse == 1500 && firmware.age(at: 10.1) == 0)
  }

  // MARK: ARM, DISARM, PING

  @Test func armFromDisarmedArmsClearsTheErrorAndStartsTheDeadman() {
    var firmware = LegCtrlFirmware()
    _ = firmware.take(LegCtrlWrite([0x01, 0x7F, 0x00, 0x00]), at: 9)
    #expect(firmware.error == .invalidCommand)
    let handling = firmware.take(LegCtrlWrite(Self.arm), at: 10)
    #expect(handling.verdict == .executed)
    #expect(firmware.state == .armed && firmware.error == .none)
    #expect(firmware.age(at: 10.014) == 14)
  }

  @Test func armWithAPayloadIsExecuted() {
    // edge recording: "CMD received: 01 01 02 00 aa bb" → "State: ARMED".
    var firmware = LegCtrlFirmware()
    let handling = firmware.take(LegCtrlWrite([0x01, 0x01, 0x02, 0x00, 0xAA, 0xBB]), at: 10)
    #expect(handling.verdict == .executed)
    #expect(firmware.state == .armed)
  }

  @Test func armWhileArmedChangesNothingAndKeepsInvalidCmd() {
    var firmware = Self.armed(at: 10)
    _ = firmware.take(LegCtrlWrite([0x01, 0x7F, 0x00, 0x00]), at: 10.05)
    let handling = firmware.take(LegCtrlWrite(Self.arm), at: 10.1)
    #expect(handling.verdict == .executed)
    #expect(firmware.error == .invalidCommand)
    #expect(firmware.age(at: 10.1) == 100, "ARM in ARMED does not refresh the deadman")
  }

  @Test func armInFaultIsRefused() {
    var firmware = Self.faulted()
    let handling = firmware.take(LegCtrlWrite(Self.arm), at: 10.6)
    #expect(handling.verdict == .ignored)
    #expect(firmware.state == .fault && firmware.error == .deadmanTimeout)
    #expect(firmware.age(at: 10.6) == 600, "the refused ARM does not refresh the age")
  }

  @Test(arguments: [Self.disarm, [0x01, 0x02, 0x03, 0x00, 0x01, 0x02, 0x03]])
  func disarmFromFaultDisarmsAndSwitchesTheOutputOff(bytes: [UInt8]) {
    var firmware = Self.faulted()
    let handling = firmware.take(LegCtrlWrite(bytes), at: 11)
    #expect(handling.verdict == .executed)
    #expect(firmware.state == .disarmed && firmware.error == .none)
    #expect(firmware.pulse == 0)
    #expect(firmware.age(at: 12) == 0)
  }

  @Test func disarmFromArmedSwitchesTheOutputOffNotToTheCentre() {
    var firmware = Self.armed(at: 10)
    _ = firmware.take(LegCtrlWrite(Self.servo(1800)), at: 10.02)
    _ = firmware.take(LegCtrlWrite(Self.disarm), at: 10.04)
    #expect(firmware.pulse == 0)
  }

  @Test func pingRefreshesTheDeadmanOnlyWhenArmed() {
    var firmware = Self.armed(at: 10)
    #expect(firmware.take(LegCtrlWrite(Self.ping), at: 10.15).verdict == .executed)
    #expect(firmware.age(at: 10.25) == 100)
    // A PING with a payload runs too (edge: 01 04 01 00 01).
    #expect(firmware.take(LegCtrlWrite([0x01, 0x04, 0x01, 0x00, 0x01]), at: 10.3).verdict == .executed)
    #expect(firmware.age(at: 10.3) == 0)

    var disarmed = LegCtrlFirmware()
    #expect(disarmed.take(LegCtrlWrite(Self.ping), at: 10).verdict == .executed)
    #expect(disarmed.age(at: 10.1) == 0 && disarmed.state == .disarmed)

    // deadman recording: PINGs in FAULT, age_ms 400 and then 500.
    var faulted = Self.faulted()
    #expect(faulted.take(LegCtrlWrite(Self.ping), at: 10.4).verdict == .executed)
    #expect(faulted.age(at: 10.5) == 500 && faulted.state == .fault)
  }

  // MARK: SET_SERVO_CH0

  @Test(arguments: [
    (1500, 1500), (300, 500), (3000, 2500), (65535, 2500), (500, 500), (2500, 2500), (0, 500),
  ])
  func servoPulsesAreClampedTo500Through2500(requested: Int, applied: Int) {
    var firmware = Self.armed(at: 10)
    let handling = firmware.take(LegCtrlWrite(Self.servo(requested)), at: 10.1)
    #expect(handling.verdict == .executed)
    #expect(firmware.pulse == applied)
    #expect(handling.clampedFrom == (requested == applied ? nil : requested))
    #expect(firmware.age(at: 10.1) == 0)
  }

  @Test(arguments: [
    [0x01, 0x03, 0x03, 0x00, 0xDC, 0x05, 0x00] as [UInt8], [0x01, 0x03, 0x01, 0x00, 0xDC],
    [0x01, 0x03, 0x00, 0x00],
  ])
  func servoWithoutExactlyTwoPayloadBytesIsIgnoredWithoutRefresh(bytes: [UInt8]) {
    var firmware = Self.armed(at: 10)
    _ = firmware.take(LegCtrlWrite(Self.servo(1600)), at: 10.02)
    let handling = firmware.take(LegCtrlWrite(bytes), at: 10.1)
    #expect(handling.verdict == .ignored)
    #expect(firmware.pulse == 1600)
    #expect(firmware.age(at: 10.1) == 80)
  }

  @Test func servoOutsideArmedIsIgnoredWithoutRefresh() {
    var disarmed = LegCtrlFirmware()
    #expect(disarmed.take(LegCtrlWrite(Self.servo(1500)), at: 10).verdict == .ignored)
    #expect(disarmed.age(at: 10) == 0)
    var faulted = Self.faulted()
    #expect(faulted.take(LegCtrlWrite(Self.servo(1500)), at: 10.3).verdict == .ignored)
    #expect(faulted.age(at: 10.3) == 300 && faulted.pulse == 0)
  }

  @Test func aFailedPWMWriteFaultsWithI2CFault() {
    // i2c recording: the servo write of 1234 µs fails → state 2, error 3, age 0.
    var firmware = Self.armed(at: 10)
    let handling = firmware.take(LegCtrlWrite(Self.servo(1234)), at: 10.3, pwmFails: true)
    #expect(handling.verdict == .executed && handling.pwmFailed)
    #expect(firmware.state == .fault && firmware.error == .i2cFault)
    #expect(firmware.age(at: 10.3) == 0)
    #expect(firmware.take(LegCtrlWrite(Self.servo(1500)), at: 10.32).verdict == .ignored)
  }

  // MARK: Unknown msg_type

  @Test(arguments: [[0x01, 0x7F, 0x00, 0x00] as [UInt8], [0x01, 0x10, 0x08, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]])
  func unknownTypeSetsInvalidCmdWithoutStateChangeAndServoGoesOn(bytes: [UInt8]) {
    var firmware = Self.armed(at: 10)
    let handling = firmware.take(LegCtrlWrite(bytes), at: 10.02)
    #expect(handling.verdict == .ignored)
    #expect(firmware.state == .armed && firmware.error == .invalidCommand)
    #expect(firmware.age(at: 10.04) == 40, "an unknown command does not refresh the deadman")
    #expect(firmware.take(LegCtrlWrite(Self.servo(2000)), at: 10.06).verdict == .executed)
    #expect(firmware.error == .invalidCommand && firmware.pulse == 2000)
    _ = firmware.take(LegCtrlWrite(Self.disarm), at: 10.08)
    #expect(firmware.error == .none)
  }

  // MARK: The timer

  @Test func deadmanTripsAtTwoHundredMillisecondsWhileArmedOnly() {
    let firmware = Self.armed(at: 10)
    #expect(!firmware.deadmanDue(at: 10.199))
    #expect(firmware.deadmanDue(at: 10.2001))
    #expect(!LegCtrlFirmware().deadmanDue(at: 20))
    var tripped = firmware
    tripped.tripDeadman()
    #expect(tripped.state == .fault && tripped.error == .deadmanTimeout && tripped.pulse == 0)
    #expect(!tripped.deadmanDue(at: 11))
    // The age keeps growing in FAULT and saturates at 65535.
    #expect(tripped.age(at: 10.5) == 500)
    #expect(tripped.age(at: 10 + 70) == 65535)
  }

  @Test func telemetryBytesAreTheGoldenVectors() {
    // docs/protocols.md §2: DISARMED, no error, age 0, 7400 mV; FAULT, deadman, age 200.
    #expect(
      LegCtrlFirmware().telemetry(at: 5, batteryMillivolts: 7400)
        == [0x01, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE8, 0x1C, 0x00, 0x00])
    var firmware = Self.armed(at: 10)
    firmware.tripDeadman()
    #expect(
      firmware.telemetry(at: 10.2, batteryMillivolts: 7400)
        == [0x01, 0x10, 0x08, 0x00, 0x02, 0x01, 0xC8, 0x00, 0xE8, 0x1C, 0x00, 0x00])
  }

  // MARK: The link

  @Test func disconnectFaultsWithErrorNoneAndReconnectDisarms() {
    var firmware = Self.armed(at: 10)
    _ = firmware.take(LegCtrlWrite(Self.servo(1800)), at: 10.02)
    firmware.disconnect()
    #expect(firmware.state == .fault && firmware.error == .none && firmware.pulse == 0 && !firmware.connected)
    firmware.reconnect()
    #expect(firmware.state == .disarmed && firmware.error == .none && firmware.connected)
    #expect(firmware.age(at: 11) == 0)
    #expect(firmware.pulse == 0, "a reconnect does not switch the output back on")
  }
}
