import PacketKit
import RallieCodec
import Testing

// Frames below, with checks from docs/protocols.md §3's vectors or computed in
// Python independently of pktbench (see RallieDecodeTests.swift for `xor`
// and `crclo`):
//   §3: command 5A A5 83 32 32 2D 2D 32 00 → XOR 4E, MODBUS-low 41
//   §3: responses code 0/1/2 → XOR 7D/7C/7F, MODBUS-low 62/A3/E3
//   '%02X' % xor('5AA58332322D2D3201')   -> 4F   (the same command, start)
//   '%02X' % crclo('5AA58332322D2D3201') -> 80
//   '%02X' % xor('5AA58332325B2D3201')   -> 39   (pitch 91)
//   '%02X' % crclo('5AA58332325B2D3201') -> 9A
//   '%02X' % xor('5AA58332322D2D3207')   -> 49   (control 7)
//   '%02X' % xor('5AA58232322D2D3201')   -> 4E   (source 82)
//   '%02X' % xor('5AA58207')             -> 7A   (response code 7)

/// The Rallie model alone, fed frames as a capture or a socket would.
@Suite struct RallieModelTests {
  static let stopXor: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x4E]
  static let stopModbus: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x41]
  static let stopNeither: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x00]
  static let startXor: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x01, 0x4F]
  static let startModbus: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x01, 0x80]
  static let pitch91: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x5B, 0x2D, 0x32, 0x01, 0x39]
  static let control7: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x07, 0x49]
  static let source82: [UInt8] = [0x5A, 0xA5, 0x82, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x01, 0x4E]

  static let rejectedXor: [UInt8] = [0x5A, 0xA5, 0x82, 0x00, 0x7D]
  static let acceptedXor: [UInt8] = [0x5A, 0xA5, 0x82, 0x01, 0x7C]
  static let completedXor: [UInt8] = [0x5A, 0xA5, 0x82, 0x02, 0x7F]
  static let rejectedModbus: [UInt8] = [0x5A, 0xA5, 0x82, 0x00, 0x62]
  static let acceptedModbus: [UInt8] = [0x5A, 0xA5, 0x82, 0x01, 0xA3]
  static let completedModbus: [UInt8] = [0x5A, 0xA5, 0x82, 0x02, 0xE3]

  static func message(_ bytes: [UInt8], frame: Int, toMachine: Bool = true) -> FlowMessage {
    FlowMessage(
      frame: frame, time: 10 + Double(frame) * 3, source: toMachine ? "app:40000" : "machine:9100",
      destination: toMachine ? "machine:9100" : "app:40000", transport: "udp", codec: "rallie",
      result: RallieCodec().decodeFrame(bytes), payload: bytes)
  }

  static func model(_ mode: ModelMode, _ settings: ModelSettings = [:]) throws -> any DeviceModel {
    try RallieCodec().makeModel(mode: mode, settings: settings)
  }

  /// The one event a frame gives.
  static func one(
    _ model: inout any DeviceModel, _ bytes: [UInt8], frame: Int, toMachine: Bool = true
  ) throws -> DeviceEvent {
    let events = model.take(
      message(bytes, frame: frame, toMachine: toMachine), heading: toMachine ? .toDevice : .fromDevice)
    #expect(events.count == 1)
    return try #require(events.first)
  }

  static func integer(_ value: Int) -> FieldValue { .integer(Int64(value)) }

  // MARK: Emulation: the model is the machine

  @Test func emulatedStartIsTakenAndAnsweredAccepted() throws {
    var model = try Self.model(.emulation, ["checksum": "xor"])
    let event = try Self.one(&model, Self.startXor, frame: 1)
    #expect(event.name == "command_accepted")
    #expect(event.certain)
    #expect(event.replies == [.send(Self.acceptedXor)])
    #expect(event.state("control") == .string("start"))
    #expect(event.state("upper_wheel") == Self.integer(0x32))
    #expect(event.state("lower_wheel") == Self.integer(0x32))
    #expect(event.state("pitch") == Self.integer(0x2D))
    #expect(event.state("yaw") == Self.integer(0x2D))
    #expect(event.state("feed") == Self.integer(0x32))
    #expect(event.state("last_code") == .null)
  }

  @Test func emulatedStopIsTakenAndAnsweredCompleted() throws {
    var model = try Self.model(.emulation, ["checksum": "xor"])
    _ = try Self.one(&model, Self.startXor, frame: 1)
    let event = try Self.one(&model, Self.stopXor, frame: 2)
    #expect(event.name == "command_accepted")
    #expect(event.replies == [.send(Self.completedXor)])
    #expect(event.state("control") == .string("stop"))
  }

  @Test func emulationWithoutTheSettingSpeaksXor() throws {
    var model = try Self.model(.emulation)
    #expect(try Self.one(&model, Self.startXor, frame: 1).replies == [.send(Self.acceptedXor)])
    let refused = try Self.one(&model, Self.startModbus, frame: 2)
    #expect(refused.name == "command_refused")
    #expect(refused.replies.isEmpty)
  }

  @Test func emulatedModbusMachineAnswersInModbus() throws {
    var model = try Self.model(.emulation, ["checksum": "modbus16lo"])
    let start = try Self.one(&model, Self.startModbus, frame: 1)
    #expect(start.name == "command_accepted")
    #expect(start.replies == [.send(Self.acceptedModbus)])
    let stop = try Self.one(&model, Self.stopModbus, frame: 2)
    #expect(stop.replies == [.send(Self.completedModbus)])
  }

  @Test func emulatedMachineDropsTheOtherVariantWithoutAnswer() throws {
    var model = try Self.model(.emulation, ["checksum": "modbus16lo"])
    _ = try Self.one(&model, Self.startModbus, frame: 1)
    let event = try Self.one(&model, Self.stopXor, frame: 2)
    #expect(event.name == "command_refused")
    #expect(event.certain)
    #expect(event.replies.isEmpty)
    #expect(event.text.hasPrefix("check:"))
    // It keeps running with the settings it had.
    #expect(event.state("control") == .string("start"))
  }

  @Test func emulatedMachineDropsACheckMatchingNeitherVariant() throws {
    for checksum in ["xor", "modbus16lo"] {
      var model = try Self.model(.emulation, ["checksum": checksum])
      let event = try Self.one(&model, Self.stopNeither, frame: 1)
      #expect(event.name == "command_refused")
      #expect(event.replies.isEmpty)
      #expect(event.state("control") == .null)
    }
  }

  @Test(arguments: [RallieModelTests.pitch91, RallieModelTests.control7])
  func emulatedOutOfRangeIsAnsweredRejected(frame: [UInt8]) throws {
    var model = try Self.model(.emulation, ["checksum": "xor"])
    let event = try Self.one(&model, frame, frame: 1)
    #expect(event.name == "command_refused")
    #expect(event.text.hasPrefix("range:"))
    #expect(event.replies == [.send(Self.rejectedXor)])
    #expect(event.state("control") == .null)
  }

  @Test func emulatedOutOfRangeRejectedInModbus() throws {
    var model = try Self.model(.emulation, ["checksum": "modbus16lo"])
    let bytes: [UInt8] = [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x5B, 0x2D, 0x32, 0x01, 0x9A]
    #expect(try Self.one(&model, bytes, frame: 1).replies == [.send(Self.rejectedModbus)])
  }

  @Test(arguments: [
    Array(RallieModelTests.stopXor.dropLast()), RallieModelTests.stopXor + [0], [], RallieModelTests.source82,
    [0x5A, 0xA5, 0x82, 0x01, 0x7C],
  ])
  func emulatedMachineDropsAFrameThatIsNoCommand(frame: [UInt8]) throws {
    var model = try Self.model(.emulation, ["checksum": "xor"])
    let event = try Self.one(&model, frame, frame: 1)
    #expect(event.name == "command_refused")
    #expect(event.replies.isEmpty)
    #expect(event.text.hasPrefix(frame.count == 10 ? "header-or-source:" : "length:"))
  }

  @Test func theMachineHasNoTimers() throws {
    var model = try Self.model(.emulation, ["checksum": "xor"])
    _ = try Self.one(&model, Self.startXor, frame: 1)
    #expect(model.nextDeadline == nil)
    #expect(model.advance(to: 1e9).isEmpty)
    #expect(model.finish(end: nil).isEmpty)
  }

  @Test func transportEventsAreNoMessages() throws {
    var model = try Self.model(.analysis)
    let event = FlowMessage(
      frame: 1, time: 1, source: "app:1", destination: "machine:9100", transport: "ble-att",
      event: ("ble.disconnect", []))
    #expect(model.take(event, heading: .toDevice).isEmpty)
  }

  // MARK: Analysis: what the machine did, as far as the capture tells

  @Test func withoutTheSettingTheFirstCommandIsUncertainUntilTheMachineAnswers() throws {
    var model = try Self.model(.analysis)
    let first = try Self.one(&model, Self.startXor, frame: 1)
    #expect(first.name == "command_accepted")
    #expect(!first.certain, "v0.3 XOR is only the default")
    #expect(first.replies == [.send(Self.acceptedXor)], "what the machine would send")
    let answer = try Self.one(&model, Self.acceptedXor, frame: 2, toMachine: false)
    #expect(answer.mismatch == nil)
    let second = try Self.one(&model, Self.stopXor, frame: 3)
    #expect(second.name == "command_accepted")
    #expect(second.certain, "the machine answered in XOR: it checks XOR")
  }

  @Test func theOtherVariantIsUncertainAndTheResponseTells() throws {
    var model = try Self.model(.analysis)
    _ = try Self.one(&model, Self.startXor, frame: 1)
    _ = try Self.one(&model, Self.acceptedXor, frame: 2, toMachine: false)
    let other = try Self.one(&model, Self.stopModbus, frame: 3)
    #expect(other.name == "command_refused")
    #expect(!other.certain)
    #expect(other.state("control") == .string("start"))
    // The machine answered it: it took the stop after all, and that is no mismatch.
    let answer = try Self.one(&model, Self.completedXor, frame: 4, toMachine: false)
    #expect(answer.mismatch == nil)
    #expect(answer.state("control") == .string("stop"))
    #expect(answer.text.contains("after all"))
  }

  @Test func aResponseToACommandWithNeitherCheckIsAMismatch() throws {
    var model = try Self.model(.analysis)
    let command = try Self.one(&model, Self.stopNeither, frame: 1)
    #expect(command.name == "command_refused")
    #expect(command.certain)
    #expect(command.replies.isEmpty)
    let answer = try Self.one(&model, Self.completedXor, frame: 2, toMachine: false)
    let mismatch = try #require(answer.mismatch)
    #expect(mismatch.contains("frame 1"))
  }

  @Test func withTheSettingTheOtherVariantIsRefusedForSure() throws {
    var model = try Self.model(.analysis, ["checksum": "xor"])
    let command = try Self.one(&model, Self.startModbus, frame: 1)
    #expect(command.name == "command_refused")
    #expect(command.certain)
    let answer = try Self.one(&model, Self.acceptedModbus, frame: 2, toMachine: false)
    #expect(answer.mismatch != nil)
  }

  @Test func withTheSettingAResponseInTheOtherVariantIsAMismatch() throws {
    var model = try Self.model(.analysis, ["checksum": "xor"])
    _ = try Self.one(&model, Self.startXor, frame: 1)
    let answer = try Self.one(&model, Self.acceptedModbus, frame: 2, toMachine: false)
    #expect(answer.mismatch?.contains("--checksum xor") == true)
    // And the app build drops it: MODBUS-low.
    #expect(answer.name == "response_dropped")
  }

  @Test func anAnsweredCommandIsNoMismatchWhenTheModelWasSureItWasTaken() throws {
    var model = try Self.model(.analysis, ["checksum": "xor"])
    _ = try Self.one(&model, Self.startXor, frame: 1)
    let answer = try Self.one(&model, Self.acceptedXor, frame: 2, toMachine: false)
    #expect(answer.mismatch == nil)
    #expect(answer.name == "response_accepted")
    #expect(answer.state("last_code") == .string("accepted"))
  }

  @Test func aRejectedAnswerUndoesTheSettings() throws {
    var model = try Self.model(.analysis, ["checksum": "xor"])
    _ = try Self.one(&model, Self.stopXor, frame: 1)
    _ = try Self.one(&model, Self.completedXor, frame: 2, toMachine: false)
    let start = try Self.one(&model, Self.startXor, frame: 3)
    #expect(start.state("control") == .string("start"))
    let answer = try Self.one(&model, Self.rejectedXor, frame: 4, toMachine: false)
    #expect(answer.mismatch == nil, "why a machine refuses is its own")
    #expect(answer.state("control") == .string("stop"))
    #expect(answer.state("last_code") == .string("rejected"))
  }

  @Test func outOfRangeIsUncertainInAnalysis() throws {
    var model = try Self.model(.analysis, ["checksum": "xor"])
    let command = try Self.one(&model, Self.pitch91, frame: 1)
    #expect(command.name == "command_refused")
    #expect(!command.certain)
    #expect(command.replies == [.send(Self.rejectedXor)])
    let answer = try Self.one(&model, Self.acceptedXor, frame: 2, toMachine: false)
    #expect(answer.mismatch == nil)
    #expect(answer.state("pitch") == Self.integer(91), "it took the command after all")
  }

  @Test func aResponseWithNoCommandWaiting() throws {
    var model = try Self.model(.analysis)
    let answer = try Self.one(&model, Self.acceptedXor, frame: 1, toMachine: false)
    #expect(answer.name == "response_accepted")
    #expect(answer.mismatch == nil)
    #expect(answer.text.contains("no command was waiting"))
    #expect(answer.state("control") == .null)
  }

  // MARK: Analysis: the app

  @Test func theAppDropsAModbusResponseAndKeepsItsCode() throws {
    var model = try Self.model(.analysis)
    _ = try Self.one(&model, Self.startXor, frame: 1)
    _ = try Self.one(&model, Self.acceptedXor, frame: 2, toMachine: false)
    _ = try Self.one(&model, Self.stopXor, frame: 3)
    let answer = try Self.one(&model, Self.completedModbus, frame: 4, toMachine: false)
    #expect(answer.name == "response_dropped")
    #expect(answer.certain)
    #expect(answer.text.hasPrefix("check: MODBUS-low check"))
    #expect(answer.state("last_code") == .string("accepted"))
  }

  @Test func theAppStoresAnyCode() throws {
    var model = try Self.model(.analysis)
    // '%02X' % xor('5AA58207') -> 7A
    let answer = try Self.one(&model, [0x5A, 0xA5, 0x82, 0x07, 0x7A], frame: 1, toMachine: false)
    #expect(answer.name == "response_accepted")
    #expect(answer.state("last_code") == .string("unknown(7)"))
  }

  @Test func aCommandFrameFromTheMachineIsDroppedForItsLength() throws {
    var model = try Self.model(.analysis)
    let event = try Self.one(&model, Self.source82, frame: 1, toMachine: false)
    #expect(event.name == "response_dropped")
    #expect(event.text.hasPrefix("length:"))
  }

  @Test func anAppThatWritesModbusIsALaterBuild() throws {
    var model = try Self.model(.analysis)
    _ = try Self.one(&model, Self.startModbus, frame: 1)
    let modbus = try Self.one(&model, Self.acceptedModbus, frame: 2, toMachine: false)
    #expect(modbus.name == "response_dropped", "what the modelled build does")
    #expect(!modbus.certain, "a later build's check is not known")
    let xor = try Self.one(&model, Self.acceptedXor, frame: 3, toMachine: false)
    #expect(xor.name == "response_accepted")
    #expect(!xor.certain)
    // Length and source are §3's: a later build drops them too.
    let short = try Self.one(&model, [0x5A, 0xA5, 0x82, 0x01], frame: 4, toMachine: false)
    #expect(short.name == "response_dropped")
    #expect(short.certain)
  }

  // MARK: Settings

  @Test func theDeviceDescription() {
    let device = RallieCodec().device
    #expect(device.name == "machine")
    #expect(device.messagesToDevice == ["command"])
    #expect(device.messagesFromDevice == ["response"])
    #expect(device.listens == ["udp"])
    #expect(device.settings.map(\.flag) == ["checksum"])
    #expect(device.settings.first?.defaultValue == "xor")
    #expect(device.example.hasPrefix("rallie --listen udp:"))
  }

  @Test(arguments: [["checksum": "crc16"], ["checksum": ""], ["speed": "1"]])
  func badSettingsSayWhatIsAllowed(settings: [String: String]) {
    #expect(throws: ModelSettingError.self) {
      _ = try RallieCodec().makeModel(mode: .emulation, settings: settings)
    }
    do {
      _ = try RallieCodec().makeModel(mode: .analysis, settings: settings)
      Issue.record("accepted \(settings)")
    } catch {
      #expect(error.text.contains("--checksum"))
      #expect(error.text.contains("xor"))
    }
  }

  // MARK: Hostile input

  @Test func randomFramesNeverTrap() throws {
    var random = SplitMix64(seed: 25)
    for mode in [ModelMode.analysis, .emulation] {
      var model = try Self.model(mode)
      for frame in 1...2000 {
        let length = Int(random.next() % 14)
        var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        if length > 2, random.next() % 2 == 0 { bytes[0] = 0x5A; bytes[1] = 0xA5 }
        let toMachine = random.next() % 2 == 0
        let events = model.take(
          Self.message(bytes, frame: frame, toMachine: toMachine),
          heading: toMachine ? .toDevice : .fromDevice)
        #expect(events.count == 1)
      }
    }
  }
}
