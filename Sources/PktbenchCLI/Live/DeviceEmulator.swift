import NIOCore
import PacketKit

/// One emulated device behind `emulate`'s socket: the codec's device model
/// in emulation mode, fed the messages that arrive and the wall clock, its
/// timers kept on the event loop, its replies sent and its events printed.
/// Lives on the session's event loop only.
final class DeviceEmulator {
  /// Where the device's replies go: the peer that wrote last (UDP), or the
  /// connection (WebSocket).
  struct Peer {
    var send: ([UInt8]) -> Void
    var close: (UInt16, String) -> Void
  }

  private let flow: Int
  private let codec: String
  private var model: any DeviceModel
  private let loop: EventLoop
  private let timeline: EmulatorTimeline
  private var timer: Scheduled<Void>?
  private var stopped = false
  /// The peer the device answers now.
  var peer: Peer?

  init(
    codec: String, model: any DeviceModel, flow: Int, loop: EventLoop, timeline: EmulatorTimeline
  ) {
    self.codec = codec
    self.model = model
    self.flow = flow
    self.loop = loop
    self.timeline = timeline
  }

  /// A message the device got (or a transport event), at the wall clock's now.
  func take(_ message: FlowMessage, heading: Heading) {
    guard !stopped else { return }
    deliver(model.advance(to: message.time))
    deliver(model.take(message, heading: heading))
    schedule()
  }

  /// Stops the device's timers (the socket closed, or `emulate` stops).
  func stop() {
    stopped = true
    timer?.cancel()
    timer = nil
  }

  private func deliver(_ events: [DeviceEvent]) {
    for event in events {
      timeline.write(event, flow: flow, codec: codec)
      for reply in event.replies {
        switch reply {
        case .send(let bytes): peer?.send(bytes)
        case .close(let code, let reason): peer?.close(code, reason)
        }
      }
    }
  }

  /// Wakes up at the model's next deadline, on the monotonic clock.
  private func schedule() {
    timer?.cancel()
    timer = nil
    guard !stopped, let deadline = model.nextDeadline else { return }
    let wait = max(0, deadline - LiveClock.now())
    timer = loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(min(wait, 86_400) * 1e9))) {
      [weak self] in
      guard let self, !self.stopped else { return }
      self.timer = nil
      self.deliver(self.model.advance(to: max(deadline, LiveClock.now())))
      self.schedule()
    }
  }
}

/// `emulate`'s output: the device's events as they happen, in text or as
/// the NDJSON lines of `analyze --timeline`.
final class EmulatorTimeline {
  private let out: OutputWriter
  private let ndjson: Bool
  private let style: Style
  private(set) var events = 0

  init(out: OutputWriter, ndjson: Bool, style: Style) {
    self.out = out
    self.ndjson = ndjson
    self.style = style
  }

  func write(_ event: DeviceEvent, flow: Int, codec: String) {
    events += 1
    if ndjson {
      out.bytes(TimelineWriter.line(event, flow: flow, codec: codec))
      out.line()
    } else {
      out.line(Self.text(event, flow: flow, style: style))
    }
    out.flush()
  }

  /// `14:03:22.123456  #3  flow 1  executed        ARMED NONE 1500   set_servo_ch0 1500 µs`
  static func text(_ event: DeviceEvent, flow: Int, style: Style) -> String {
    let frame = event.frame.map { "#\($0)" } ?? "–"
    let state = event.state.map { "\($0.key)=\($0.value.display)" }.joined(separator: " ")
    let name = event.certain ? event.name : event.name + "?"
    // The model's words quote what the peer sent (a device id, a key).
    return LiveClock.clockText(event.time) + "  " + frame.leftPadded(to: 6) + "  flow \(flow)  "
      + style.bold(name.padding(toLength: max(name.count, 16), withPad: " ", startingAt: 0)) + "  " + state
      + (event.text.isEmpty ? "" : "  " + style.dim(TerminalText.escaped(event.text)))
      + (event.mismatch.map { "  " + style.error("mismatch: \(TerminalText.escaped($0))") } ?? "")
  }
}
