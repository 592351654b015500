/// How far the capture's times may be from the firmware's, and when its
/// 100 ms timer fires as far as the capture shows.
enum LegCtrlTiming {
  /// The firmware's timer ticks every 100 ms: the deadman check, then a
  /// telemetry notification.
  static let tick = LegCtrlFirmware.tickSeconds
  /// A telemetry within half a period of a tick is that tick's.
  static let tickGrace = 0.05
  /// One BLE connection interval (iOS's usual 30 ms; Android's high
  /// priority is 11.25–15 ms): a write or a notification waits up to one
  /// for the next connection event.
  static let connectionInterval = 0.030
  /// Capture time minus firmware time, summed over a write's way in and a
  /// notification's way out: up to a connection interval each, plus the
  /// firmware's work queue. A telemetry captured at T shows the firmware at
  /// some instant in [T − linkLatency, T], and its age can be that much
  /// below what the capture's times say. The recordings (UDP on loopback)
  /// show 0.01–0.2 ms each way.
  static let linkLatency = 2 * connectionInterval + 0.005
  /// The firmware counts whole milliseconds on its own clock: the
  /// recordings' ages sit within 1.4 ms of what their capture times say.
  static let clockSlackMilliseconds = 3.0
  /// Without telemetry the timer's phase is unknown: the deadman trips
  /// 200–300 ms after the last valid command; it surely has once the gap
  /// exceeds 300 ms by the jitter between two writes' delivery.
  static let windowSlack = connectionInterval
  /// How long the analysis holds what it predicted for the telemetry that
  /// confirms it (the timeline writes events 2 s behind the capture).
  static let hold = 1.0
  /// At most this many records wait for telemetry.
  static let pendingLimit = 512
}

/// The firmware's ticks on the capture's clock: one known tick's time (a
/// telemetry's), every 100 ms before and after it.
struct LegCtrlTickGrid: Sendable {
  var phase: Double

  /// The first tick at or after `time`.
  func first(atOrAfter time: Double) -> Double {
    let steps = ((time - phase) / LegCtrlTiming.tick - 1e-6).rounded(.up)
    return phase + steps * LegCtrlTiming.tick
  }

  /// The last tick at or before `time`.
  func last(atOrBefore time: Double) -> Double {
    let steps = ((time - phase) / LegCtrlTiming.tick + 1e-6).rounded(.down)
    return phase + steps * LegCtrlTiming.tick
  }
}
