import PacketKit

/// The Rider robot's UDP server as it really behaves (docs/protocols.md §5):
/// every datagram resets the watchdog before it is parsed, also one the
/// robot then ignores; a parsed command sets both motors at once; a thread
/// polls every 100 ms and stops the motors once more than 1.0 s has passed
/// since the last datagram of any kind.
///
/// The poll's phase cannot be seen in a capture (the robot sends nothing),
/// so in analysis a silence of 1.0–1.1 s may or may not have stopped it:
/// such stops come out with `certain` false. An emulated robot polls on its
/// own clock, from the first datagram, so its stops are certain.
public struct RiderRobotModel: DeviceModel {
  public static let watchdogSeconds = 1.0
  public static let pollSeconds = 0.1
  /// A poll runs a little late (the thread sleeps 100 ms after its work).
  public static let pollSlack = 0.01

  let mode: ModelMode
  /// What the motor board last got, signed (negative is reverse).
  private(set) var left = 0
  private(set) var right = 0
  private var lastDatagram: Double?
  /// A datagram came since the last stop: the watchdog has something to stop.
  private var armed = false
  /// Emulation: when the robot's poll thread started.
  private var pollOrigin: Double?

  public init(mode: ModelMode) {
    self.mode = mode
  }

  public var nextDeadline: Double? {
    guard armed, let lastDatagram else { return nil }
    switch mode {
    case .analysis: return lastDatagram + Self.watchdogSeconds + Self.pollSeconds + Self.pollSlack
    case .emulation: return firstPoll(after: lastDatagram + Self.watchdogSeconds)
    }
  }

  public mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    guard heading == .toDevice, message.eventName == nil else { return [] }
    var events = advance(to: message.time)
    if mode == .analysis, armed, let lastDatagram, message.time - lastDatagram > Self.watchdogSeconds {
      // A poll may have fallen in the silence's last part, or not.
      let silence = message.time - lastDatagram
      events.append(
        stop(
          at: lastDatagram + (Self.watchdogSeconds + silence) / 2, certain: false,
          text: "may have stopped: no datagram for \(Format.duration(silence)), "
            + "the robot polls every 100 ms"))
    }
    if pollOrigin == nil { pollOrigin = message.time }
    lastDatagram = message.time
    armed = true
    switch RiderRobotParser.read(message.payload) {
    case .applied(let leftSpeed, let rightSpeed, let missing):
      left = RiderRobotParser.motor(leftSpeed)
      right = RiderRobotParser.motor(rightSpeed)
      var notes: [String] = []
      if !missing.isEmpty {
        notes.append(
          missing.count == 2 && message.message == "move"
            ? "a move command has no left/right: the robot stops"
            : "no \(missing.joined(separator: "/")): 0")
      }
      for (name, speed) in [("left", leftSpeed), ("right", rightSpeed)] where !speed.isFinite {
        notes.append("\(name) \(JSONWriter.formatNumber(speed)): full speed")
      }
      for (name, speed, motor) in [("left", leftSpeed, left), ("right", rightSpeed, right)]
      where speed.isFinite && Double(motor) != speed {
        notes.append("\(name) \(JSONWriter.formatNumber(speed)) → \(motor)")
      }
      // The state says the speeds; the text is for what it cannot say.
      events.append(
        event("applied", at: message.time, frame: message.frame, text: notes.joined(separator: "; ")))
    case .ignored(let parserReason):
      let reason = message.message == "legacy" ? "the legacy text form, not JSON" : parserReason
      events.append(
        event(
          "ignored", at: message.time, frame: message.frame,
          text: "\(reason); the motors keep left \(left), right \(right) and the watchdog was reset"))
    }
    return events
  }

  public mutating func advance(to time: Double) -> [DeviceEvent] {
    guard let deadline = nextDeadline, deadline <= time, let lastDatagram else { return [] }
    switch mode {
    case .analysis:
      return [
        stop(
          at: lastDatagram + Self.watchdogSeconds + Self.pollSeconds / 2, certain: true,
          text: "no datagram for over 1.1 s")
      ]
    case .emulation:
      return [stop(at: deadline, certain: true, text: "no datagram for over 1.0 s")]
    }
  }

  public mutating func finish(end: Double?) -> [DeviceEvent] {
    guard mode == .analysis, armed, let lastDatagram else { return [] }
    guard let end else {
      return [
        stop(
          at: lastDatagram + Self.watchdogSeconds + Self.pollSeconds / 2, certain: false,
          text: "no datagram after the capture's last, if none came: the capture does not "
            + "record when it ended")
      ]
    }
    let silence = end - lastDatagram
    guard silence > Self.watchdogSeconds else { return [] }
    return [
      stop(
        at: lastDatagram + (Self.watchdogSeconds + silence) / 2, certain: false,
        text: "may have stopped before the capture ended \(Format.duration(silence)) after the last datagram")
    ]
  }

  /// A stretch the capture missed: a datagram may have come unseen, so a
  /// stop due in it may or may not have happened; after it the model goes
  /// on from the stop it would have made.
  public mutating func unobserved(from: Double, to: Double) -> [DeviceEvent] {
    guard armed, let lastDatagram else { return [] }
    let due = lastDatagram + Self.watchdogSeconds + Self.pollSeconds / 2
    guard due < to else { return [] }
    return [
      stop(
        at: max(due, from), certain: false,
        text: "may have stopped: the capture missed \(Format.duration(to - from)) from here, and no "
          + "datagram it saw came for \(Format.duration(to - lastDatagram))")
    ]
  }

  // MARK: Events

  private mutating func stop(at time: Double, certain: Bool, text: String) -> DeviceEvent {
    armed = false
    left = 0
    right = 0
    return event("watchdog_stop", at: time, frame: nil, certain: certain, text: text)
  }

  private func event(
    _ name: String, at time: Double, frame: Int?, certain: Bool = true, text: String
  ) -> DeviceEvent {
    DeviceEvent(
      time: time, frame: frame, name: name, certain: certain,
      state: [.init("left", .integer(Int64(left))), .init("right", .integer(Int64(right)))], text: text)
  }

  /// The first poll of the emulated robot's thread later than `time`.
  private func firstPoll(after time: Double) -> Double {
    let origin = pollOrigin ?? time
    let polls = ((time - origin) / Self.pollSeconds).rounded(.down) + 1
    return origin + polls * Self.pollSeconds
  }
}
