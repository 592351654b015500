/// One thing a modelled device did: took a message, ignored or refused
/// one, or acted on a timer; with its state after it.
public struct DeviceEvent: Sendable {
  /// Unix seconds: when the device did it (for an event of time, when the
  /// timer fell, which may be before the call that found it).
  public var time: Double
  /// The capture record that caused it; nil for an event of time (a
  /// watchdog stop, a deadman FAULT).
  public var frame: Int?
  /// The model's name for it: `applied`, `ignored`, `watchdog_stop`, …
  public var name: String
  /// False where the device may or may not have done it (a poll that may
  /// have fallen either side of a timeout, a race).
  public var certain: Bool
  /// The device's state after it, as the timeline shows it.
  public var state: [FieldValue.Member]
  /// A few words for a person: "left 50, right 50", "not in ARMED state".
  public var text: String
  /// What the device sends because of it (emulation; in analysis, what it
  /// would have sent).
  public var replies: [DeviceReply]
  /// The device's own report disagrees with the model: which report and
  /// what was predicted. `analyze` turns it into `<codec>.model-mismatch`.
  public var mismatch: String?
  /// The peer (a sender's or a connection's endpoint) the event concerns,
  /// where the model knows it: the connection a timer closes, the socket a
  /// reply goes to. Nil: the device as a whole, or the sender of `frame`.
  public var peer: String?
  /// An earlier guess (an event with `certain` false) that this event
  /// settles: reports show the guess settled, not both.
  public var settles: SettledGuess?

  public init(
    time: Double, frame: Int?, name: String, certain: Bool = true, state: [FieldValue.Member],
    text: String = "", replies: [DeviceReply] = [], mismatch: String? = nil, peer: String? = nil,
    settles: SettledGuess? = nil
  ) {
    self.time = time
    self.frame = frame
    self.name = name
    self.certain = certain
    self.state = state
    self.text = text
    self.replies = replies
    self.mismatch = mismatch
    self.peer = peer
    self.settles = settles
  }

  /// The state member `key`.
  public func state(_ key: String) -> FieldValue? {
    state.first { $0.key == key }?.value
  }
}

/// A guess that later traffic settled: the event `name` the model gave for
/// `frame` (nil: an event of time at `time`) with `certain` false. A class:
/// most events settle nothing, and each carries only a reference.
public final class SettledGuess: Sendable, Equatable {
  public enum Outcome: Sendable, Equatable {
    /// The device did it: the guess stands, certain now.
    case confirmed
    /// It did not: the settling event takes the guess's place.
    case refuted
  }

  public let frame: Int?
  public let time: Double
  public let name: String
  public let outcome: Outcome

  public init(frame: Int?, time: Double, name: String, outcome: Outcome) {
    self.frame = frame
    self.time = time
    self.name = name
    self.outcome = outcome
  }

  public static func == (lhs: SettledGuess, rhs: SettledGuess) -> Bool {
    lhs.frame == rhs.frame && lhs.time == rhs.time && lhs.name == rhs.name && lhs.outcome == rhs.outcome
  }
}

/// What an emulated device sends.
public enum DeviceReply: Sendable, Equatable {
  /// A payload to the peer the device answers (the sender of the message,
  /// or for a periodic report the last peer that wrote to it).
  case send([UInt8])
  /// Close the connection (WebSocket close code and reason).
  case close(code: UInt16, reason: String)
}
