import PacketKit
import Testing

@testable import RiderCodec

/// The robot model fed by several senders, as the robot's one socket is
/// (docs/protocols.md §5: one socket, one watchdog; recording `two-apps`): no
/// sockets, the senders told apart only by their source endpoints.
@Suite struct RiderRobotPeersTests {
  static let phone = "127.0.0.1:37465"
  static let laptop = "127.0.0.1:45785"
  static let restarted = "127.0.0.1:51000"

  static func datagram(_ text: String, from source: String, at time: Double, frame: Int) -> FlowMessage {
    let bytes = Array(text.utf8)
    return FlowMessage(
      frame: frame, time: time, source: source, destination: "127.0.0.1:5005", transport: "udp",
      codec: "rider", result: RiderCodec().decodeFrame(bytes), payload: bytes)
  }

  /// Feeds the datagrams in time order as the analyzer does, and finishes
  /// at `end` (a recorded end).
  static func run(_ datagrams: [(String, String, Double)], end: Double, mode: ModelMode = .analysis)
    -> [DeviceEvent]
  {
    var model = RiderRobotModel(mode: mode)
    var events: [DeviceEvent] = []
    for (index, (text, source, time)) in datagrams.enumerated() {
      if let deadline = model.nextDeadline, deadline <= time { events += model.advance(to: time) }
      events += model.take(datagram(text, from: source, at: time, frame: index + 1), heading: .toDevice)
    }
    events += model.advance(to: end)
    events += model.finish(end: end)
    return events
  }

  static let drive50 = #"{"left":50,"right":50,"timestamp":1}"#
  /// What the second app sent in `two-apps`: a value the robot ignores.
  static let stringLeft = #"{"left":"50","right":50,"timestamp":1}"#

  /// The phone drives 50/50 and goes quiet; the laptop's datagrams, which
  /// the robot ignores, still reset the one watchdog: no stop until they end.
  @Test func anotherSendersIgnoredDatagramsKeepTheRobotDriving() {
    var datagrams = (0..<20).map { (Self.drive50, Self.phone, 100 + Double($0) * 0.05) }
    datagrams += (0..<8).map { (Self.stringLeft, Self.laptop, 101.4 + Double($0) * 0.4) }
    let events = Self.run(datagrams, end: 110)
    let ignored = events.filter { $0.name == "ignored" }
    #expect(ignored.count == 8)
    // Still driving after every one of them.
    #expect(ignored.allSatisfy { $0.state("left") == .integer(50) && $0.state("right") == .integer(50) })
    let stops = events.filter { $0.name == "watchdog_stop" }
    #expect(stops.count == 1)
    // 1.0–1.1 s after the laptop's last datagram (at 104.2), not the phone's (100.95).
    let stop = stops.first?.time ?? 0
    #expect(stop > 104.2 + 1.0 && stop <= 104.2 + 1.1)
    #expect(stops.first?.certain == true)
  }

  /// Two apps (and one that restarted on a new port) each in turn: every
  /// sender's datagram sets the same motors, and a gap of one sender is no
  /// gap while another writes.
  @Test func threeSendersDriveOneRobot() {
    let datagrams: [(String, String, Double)] = [
      (#"{"left":10,"right":10}"#, Self.phone, 200.0),
      (#"{"left":20,"right":20}"#, Self.laptop, 200.6),
      (#"{"left":30,"right":-30}"#, Self.phone, 201.4),
      (#"{"left":40,"right":40}"#, Self.restarted, 202.2),
      (#"{"left":40,"right":40}"#, Self.laptop, 203.0),
    ]
    let events = Self.run(datagrams, end: 206)
    #expect(
      events.filter { $0.name == "applied" }.map { $0.state("left") }
        == [10, 20, 30, 40, 40].map { .integer($0) })
    // Each sender was silent for over 1.1 s, the robot never: one stop, after the last.
    let stops = events.filter { $0.name == "watchdog_stop" }
    #expect(stops.map(\.certain) == [true])
    #expect((stops.first?.time ?? 0) > 204.0)
  }

  /// The emulated robot polls on its own clock: the laptop's datagram at
  /// 0.9 s keeps the phone's motors running past the phone's 1.0 s.
  @Test func theEmulatedRobotHasOneWatchdogForEverySender() {
    let datagrams: [(String, String, Double)] = [
      (Self.drive50, Self.phone, 0), (Self.stringLeft, Self.laptop, 0.9),
    ]
    let events = Self.run(datagrams, end: 3, mode: .emulation)
    let stops = events.filter { $0.name == "watchdog_stop" }
    #expect(stops.count == 1)
    #expect((stops.first?.time ?? 0) > 1.9)
  }
}
