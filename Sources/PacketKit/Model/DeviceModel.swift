/// A device's (or server's) behaviour as a plain state machine: what it
/// does with each message it gets and as time passes. Deterministic, with
/// no I/O and no clock of its own: `analyze` feeds it a capture's records
/// and times, `emulate` the datagrams of a real socket and the wall clock,
/// and both show the events it returns.
///
/// A model is made per device (its endpoint: every sender, source port and
/// connection that reaches it) by its codec's `DeviceBehaviour`, and fed
/// the messages of all of them in capture-time order; `source` and
/// `destination` tell the peers apart where the device does. Every call
/// passes time up to the message's own: the caller runs `advance(to:)`
/// first, so timers that fell before a message fire before it.
public protocol DeviceModel {
  /// A message on the flow: one the device got (`.toDevice`), or one it
  /// sent (`.fromDevice`: in analysis, its own report, checked against what
  /// the model predicted). Transport events (`ws.handshake`, `ws.accept`,
  /// `ws.close`, a BLE disconnect, `tcp.end` when the connection under a
  /// WebSocket ends without one) arrive here too, headed by who sent them.
  mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent]

  /// Time passes to `time` (Unix seconds): timers due by then fire, in order.
  mutating func advance(to time: Double) -> [DeviceEvent]

  /// When the model next needs `advance` (a poll, a tick, a timeout), or
  /// nil while nothing is pending.
  var nextDeadline: Double? { get }

  /// The observation ended at `end`, or at an unknown time after the last
  /// message when `end` is nil: what the device would do next is said with
  /// `certain` false.
  mutating func finish(end: Double?) -> [DeviceEvent]

  /// Nothing was observed from `from` to `to` (a gap between capture
  /// files): messages may have reached the device unseen, so what its
  /// timers did meanwhile is said with `certain` false, never as fact.
  /// The caller has advanced the model to `from`.
  mutating func unobserved(from: Double, to: Double) -> [DeviceEvent]
}

extension DeviceModel {
  /// A model without timers that traffic resets has nothing to say about a gap.
  public mutating func unobserved(from: Double, to: Double) -> [DeviceEvent] { [] }
}

/// Which way a message went, as the modelled device sees it.
public enum Heading: Sendable {
  case toDevice, fromDevice
}

/// What a model is for.
public enum ModelMode: Sendable {
  /// Predicting from a capture: the device's own reports (telemetry,
  /// replies, close codes) are observed, and their timing may tell more
  /// than the rules do (when a periodic tick fell).
  case analysis
  /// Being the device: the model keeps its own timers and says what to send.
  case emulation
}

/// Settings of a model from the command line (`emulate rallie --checksum
/// modbus16lo`), by flag name without dashes.
public typealias ModelSettings = [String: String]
