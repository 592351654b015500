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

  public init(
    time: Double, frame: Int?, name: String, certain: Bool = true, state: [FieldValue.Member],
    text: String = "", replies: [DeviceReply] = [], mismatch: String? = nil
  ) {
    self.time = time
    self.frame = frame
    self.name = name
    self.certain = certain
    self.state = state
    self.text = text
    self.replies = replies
    self.mismatch = mismatch
  }

  /// The state member `key`.
  public func state(_ key: String) -> FieldValue? {
    state.first { $0.key == key }?.value
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
