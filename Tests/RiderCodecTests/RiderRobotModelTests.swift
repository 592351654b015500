import PacketKit
import Testing

@testable import RiderCodec

/// The robot model alone, no sockets: every behaviour of docs/protocols.md §5
/// "Rider robot", one test each.
@Suite struct RiderRobotModelTests {
  /// A datagram to the robot at `time` (the codec's decode attached, as analyze does).
  static func datagram(_ text: String, at time: Double, frame: Int = 1) -> FlowMessage {
    let bytes = Array(text.utf8)
    return FlowMessage(
      frame: frame, time: time, source: "10.0.0.2:40000", destination: "10.0.0.7:5005", transport: "udp",
      codec: "rider", result: RiderCodec().decodeFrame(bytes), payload: bytes)
  }

  /// Feeds the datagrams as the analyzer does (time first, then the message).
  static func run(
    _ datagrams: [(String, Double)], mode: ModelMode = .analysis, end: Double?? = .none
  ) -> [DeviceEvent] {
    var model = RiderRobotModel(mode: mode)
    var events: [DeviceEvent] = []
    for (index, (text, time)) in datagrams.enumerated() {
      if let deadline = model.nextDeadline, deadline <= time { events += model.advance(to: time) }
      events += model.take(datagram(text, at: time, frame: index + 1), heading: .toDevice)
    }
    if case .some(let end) = end {
      if let end { events += model.advance(to: end) }
      events += model.finish(end: end)
    }
    return events
  }

  static func motors(_ event: DeviceEvent?) -> [Int] {
    [event?.state("left"), event?.state("right")].map { $0?.numericValue.map { Int($0) } ?? .min }
  }

  static let drive50 = #"{"left":50,"right":50,"timestamp":1}"#

  // MARK: What a datagram does

  @Test(arguments: [
    (#"{"left":50,"right":-37.5}"#, [50, -37]),
    (#"{"left":150,"right":-300}"#, [100, -100]),
    (#"{"left":55.9,"right":-55.9}"#, [55, -55]),
    (#"{"left":NaN,"right":Infinity}"#, [100, 100]),
    (#"{"left":-Infinity,"right":1e400}"#, [-100, 100]),
    (#"{"right":70}"#, [0, 70]),
    (#"{"left":true,"right":false}"#, [1, 0]),
    (#"{"left":10,"right":10,"left":60}"#, [60, 10]),
    (#"{"command":"move","speed":40,"direction":0,"timestamp":1}"#, [0, 0]),
    (#"  {"left":5,"right":6}  "#, [5, 6]),
  ])
  func appliedValuesAreClampedAndTruncated(text: String, motors: [Int]) {
    let events = Self.run([(text, 10)])
    #expect(events.map(\.name) == ["applied"])
    #expect(Self.motors(events.first) == motors)
  }

  @Test(arguments: [
    #"{"left":"0","right":"0"}"#, #"{"left":null,"right":0}"#, #"{"left":[1],"right":0}"#,
    #"{"left":{},"right":0}"#, "0,0,0", "\u{FEFF}{\"left\":1,\"right\":1}", #"{"left":1,"right":1}x"#,
    "[30,30]", "", #"{"left":01,"right":1}"#, #"{"left":1,"right":1,}"#, #"{"left":+1}"#,
  ])
  func datagramsTheRobotIgnoresKeepTheMotors(text: String) {
    let events = Self.run([(Self.drive50, 10), (text, 10.05)])
    #expect(events.map(\.name) == ["applied", "ignored"])
    #expect(Self.motors(events.last) == [50, 50])
  }

  @Test func theRobotReadsOnly1024Bytes() {
    let padded = #"{"left":30,"right":30,"pad":""# + String(repeating: "x", count: 1100) + #""}"#
    #expect(Self.run([(padded, 10)]).map(\.name) == ["ignored"])
    // Whitespace after the object within the first 1024 bytes is still JSON.
    let spaced = #"{"left":30,"right":30}"# + String(repeating: " ", count: 2000)
    #expect(Self.motors(Self.run([(spaced, 10)]).first) == [30, 30])
  }

  @Test func invalidUTF8IsIgnored() {
    let bytes: [UInt8] = Array(#"{"left":1,"right":1,"k":""#.utf8) + [0xC0, 0x80] + Array(#""}"#.utf8)
    var model = RiderRobotModel(mode: .analysis)
    let message = FlowMessage(
      frame: 1, time: 1, source: nil, destination: nil, transport: "udp", codec: "rider", payload: bytes)
    #expect(model.take(message, heading: .toDevice).map(\.name) == ["ignored"])
  }

  @Test func escapedKeysAreTheSameKeys() {
    #expect(Self.motors(Self.run([(#"{"\u006ceft":20,"right":20}"#, 10)]).first) == [20, 20])
  }

  // MARK: The watchdog

  @Test func aSilenceOverOnePointOneSecondsStopsTheMotors() {
    let events = Self.run([(Self.drive50, 10), (Self.drive50, 11.5)])
    #expect(events.map(\.name) == ["applied", "watchdog_stop", "applied"])
    let stop = events[1]
    #expect(stop.certain)
    #expect(stop.frame == nil)
    #expect(stop.time > 11.0 && stop.time <= 11.1)
    #expect(Self.motors(stop) == [0, 0])
  }

  @Test(arguments: [1.03, 1.08])
  func aSilenceBetweenOneAndOnePointOneMayHaveStopped(silence: Double) {
    let events = Self.run([(Self.drive50, 10), (Self.drive50, 10 + silence)])
    #expect(events.map(\.name) == ["applied", "watchdog_stop", "applied"])
    #expect(events[1].certain == false)
    #expect(events[1].time > 11.0 && events[1].time < 10 + silence)
  }

  @Test func aSilenceOfOneSecondOrLessStopsNothing() {
    #expect(Self.run([(Self.drive50, 10), (Self.drive50, 10.95)]).map(\.name) == ["applied", "applied"])
  }

  @Test func ignoredDatagramsResetTheWatchdog() {
    var stream = [(Self.drive50, 10.0)]
    for step in 1...60 { stream.append((#"{"left":"0","right":"0"}"#, 10 + Double(step) * 0.05)) }
    let events = Self.run(stream)
    #expect(!events.contains { $0.name == "watchdog_stop" })
    #expect(Self.motors(events.last) == [50, 50])
  }

  @Test func oneStopPerSilence() {
    var model = RiderRobotModel(mode: .analysis)
    _ = model.take(Self.datagram(Self.drive50, at: 10), heading: .toDevice)
    #expect(model.advance(to: 12).map(\.name) == ["watchdog_stop"])
    #expect(model.advance(to: 20).isEmpty)
    #expect(model.nextDeadline == nil)
  }

  @Test func nothingToStopBeforeTheFirstDatagram() {
    var model = RiderRobotModel(mode: .analysis)
    #expect(model.nextDeadline == nil)
    #expect(model.advance(to: 100).isEmpty)
    #expect(model.finish(end: 200).isEmpty)
  }

  @Test func theRobotsRepliesAreNone() {
    #expect(Self.run([(Self.drive50, 10)]).allSatisfy { $0.replies.isEmpty })
  }

  // MARK: The end of a capture

  @Test func anUnknownEndPredictsAStopThatIsNotCertain() {
    let events = Self.run([(Self.drive50, 10)], end: .some(nil))
    #expect(events.map(\.name) == ["applied", "watchdog_stop"])
    #expect(events.last?.certain == false)
  }

  @Test func aRecordedEndLateEnoughMakesTheStopCertain() {
    let events = Self.run([(Self.drive50, 10)], end: 13)
    #expect(events.map(\.name) == ["applied", "watchdog_stop"])
    #expect(events.last?.certain == true)
  }

  @Test func aRecordedEndBeforeTheWatchdogStopsNothing() {
    #expect(Self.run([(Self.drive50, 10)], end: 10.5).map(\.name) == ["applied"])
  }

  // MARK: Emulation

  @Test func anEmulatedRobotStopsAtItsOwnPoll() {
    var model = RiderRobotModel(mode: .emulation)
    _ = model.take(Self.datagram(Self.drive50, at: 100), heading: .toDevice)
    _ = model.take(Self.datagram(Self.drive50, at: 100.25), heading: .toDevice)
    // Polls at 100.1, 100.2, …: the first more than 1.0 s after 100.25 is 101.3.
    #expect(abs((model.nextDeadline ?? 0) - 101.3) < 1e-9)
    let events = model.advance(to: 101.3)
    #expect(events.map(\.name) == ["watchdog_stop"])
    #expect(events.first?.certain == true)
  }

  // MARK: What decode says

  /// The codec refuses NaN (not JSON) and says what the robot does with it.
  @Test func decodeSaysTheRobotRunsNaNAtFullSpeed() {
    let error = riderDecodeError(#"{"left":NaN,"right":-Infinity}"#)
    #expect(error?.code == "bad-json")
    #expect(error?.offset == 8)
    #expect(error?.text.hasSuffix("applies left 100, right -100 (full speed)") == true)
    // Other damage is not dressed up.
    #expect(riderDecodeError(#"{"left":x}"#)?.text.contains("robot") == false)
  }
}
