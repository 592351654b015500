import PacketKit
import RallieCodec
import Testing

/// The Rallie machine model fed by two apps (a phone and a tablet) in
/// turn, no sockets: one machine, one state — whoever sent the command it
/// took last, that command is what it runs.
@Suite struct RalliePeersTests {
  static let phone = "10.1.0.2:40027"
  static let tablet = "10.1.0.9:51234"

  static func command(_ bytes: [UInt8], from app: String, frame: Int) -> FlowMessage {
    FlowMessage(
      frame: frame, time: 10 + Double(frame), source: app, destination: "10.1.0.3:9100", transport: "udp",
      codec: "rallie", result: RallieCodec().decodeFrame(bytes), payload: bytes)
  }

  @Test func twoAppsCommandOneMachine() throws {
    var machine = try RallieCodec().makeModel(mode: .emulation, settings: [:])
    let start = machine.take(
      Self.command(RallieModelTests.startXor, from: Self.phone, frame: 1), heading: .toDevice)
    #expect(start.first?.name == "command_accepted")
    #expect(start.first?.state("control") == .string("start"))
    // The tablet's pitch 91 is out of range: refused, and the machine keeps the phone's command.
    let refused = machine.take(
      Self.command(RallieModelTests.pitch91, from: Self.tablet, frame: 2), heading: .toDevice)
    #expect(refused.first?.name == "command_refused")
    #expect(refused.first?.state("control") == .string("start"))
    // The tablet's stop stops what the phone started.
    let stop = machine.take(
      Self.command(RallieModelTests.stopXor, from: Self.tablet, frame: 3), heading: .toDevice)
    #expect(stop.first?.name == "command_accepted")
    #expect(stop.first?.state("control") == .string("stop"))
    // Each answer goes to the app that asked (the driver sends it there): one reply per command.
    #expect([start, refused, stop].allSatisfy { $0.first?.replies.count == 1 })
  }
}
