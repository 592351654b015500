import NIOCore
import PacketDecode
import PacketKit

/// The one emulated device behind `emulate`'s socket: the codec's device
/// model in emulation mode, fed every peer's messages (every sender, every
/// connection) and the wall clock, its timers kept on the event loop, its
/// replies sent where the device sends them and its events printed. Lives
/// on the session's event loop only.
final class DeviceEmulator {
  /// How to reach one peer: a UDP sender's address, a WebSocket connection.
  struct Peer {
    package var send: ([UInt8]) -> Void
    package var close: (UInt16, String) -> Void
  }

  /// Peers the emulator can reach at once (every WebSocket connection is
  /// one; past it, UDP senders other than the last writer are forgotten).
  static let peerLimit = 1024

  private let codec: String
  private let answers: DeviceAnswers
  /// The device's own endpoint, as the timeline names devices: where the
  /// first message went.
  private var endpoint: String?
  private var model: any DeviceModel
  private let loop: EventLoop
  private let timeline: EmulatorTimeline
  private var timer: Scheduled<Void>?
  private var stopped = false
  private var peers: [String: Peer] = [:]
  /// A number per peer, in the order they came (the timeline's `flow`).
  private var numbers: [String: Int] = [:]
  /// The peer that wrote last, and the one whose message is being taken.
  private var lastWriter: String?
  private var asking: String?
  /// What a WebSocket path names (the device's key).
  private let pathField: WebSocketPathField

  package init(
    codec: String, description: DeviceDescription, model: any DeviceModel, loop: EventLoop,
    timeline: EmulatorTimeline, pathField: WebSocketPathField
  ) {
    self.codec = codec
    self.pathField = pathField
    self.answers = description.answers
    self.model = model
    self.loop = loop
    self.timeline = timeline
  }

  /// A peer connected (a WebSocket's 101 is next) or wrote: how to reach it.
  /// `path` is the WebSocket's request target, which names the device's
  /// key (`/ws/connect/<deviceId>`).
  package func attach(_ peer: String, _ reach: Peer, path: String? = nil) {
    // A flood of UDP senders must not grow the emulator: past the limit one
    // peer (never the last writer) is forgotten for each new one.
    if peers[peer] == nil, peers.count >= Self.peerLimit,
      let old = peers.keys.first(where: { $0 != lastWriter })
    {
      peers[old] = nil
    }
    peers[peer] = reach
    number(peer)
    guard let path else { return }
    var fields: [FieldValue.Member] = [.init("path", .string(path))]
    if let named = pathField.of(path) { fields.append(.init(named.field, .string(named.value))) }
    take(
      FlowMessage(
        frame: nil, time: LiveClock.now(), source: peer, destination: endpoint, transport: "websocket",
        event: ("ws.handshake", fields)), heading: .toDevice)
  }

  /// A peer's connection went away: the device's code sees its socket close.
  func detach(_ peer: String) {
    guard peers.removeValue(forKey: peer) != nil else { return }
    take(
      FlowMessage(
        frame: nil, time: LiveClock.now(), source: peer, destination: endpoint, transport: "tcp",
        event: ("tcp.end", [.init("reason", .string("closed"))])), heading: .toDevice)
    if lastWriter == peer { lastWriter = nil }
  }

  /// A message the device got (or a transport event), at the wall clock's now.
  package func take(_ message: FlowMessage, heading: Heading) {
    guard !stopped else { return }
    let peer = heading == .toDevice ? message.source : message.destination
    if let peer { number(peer) }
    if endpoint == nil { endpoint = heading == .toDevice ? message.destination : message.source }
    deliver(model.advance(to: message.time))
    asking = peer
    if heading == .toDevice, message.event == nil { lastWriter = peer }
    deliver(model.take(message, heading: heading))
    asking = nil
    schedule()
  }

  /// Stops the device's timers (`emulate` stops).
  package func stop() {
    stopped = true
    timer?.cancel()
    timer = nil
  }

  private func number(_ peer: String) {
    if numbers[peer] == nil, numbers.count < Self.peerLimit * 4 { numbers[peer] = numbers.count + 1 }
  }

  private func deliver(_ events: [DeviceEvent]) {
    for event in events {
      // A reply goes to the peer the event names, else where the device sends.
      let target: String?
      switch answers {
      case .nobody: target = nil
      case .askingConnection: target = event.peer ?? asking
      case .lastWriter: target = event.peer ?? lastWriter
      }
      let concerned = event.replies.isEmpty ? event.peer ?? asking : target
      timeline.write(event, device: endpoint, flow: concerned.flatMap { numbers[$0] }, codec: codec)
      guard let target, let peer = peers[target] else { continue }
      for reply in event.replies {
        switch reply {
        case .send(let bytes): peer.send(bytes)
        case .close(let code, let reason): peer.close(code, reason)
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
package final class EmulatorTimeline {
  private let out: OutputWriter
  private let ndjson: Bool
  private let style: Style
  package private(set) var events = 0

  package init(out: OutputWriter, ndjson: Bool, style: Style) {
    self.out = out
    self.ndjson = ndjson
    self.style = style
  }

  package func write(_ event: DeviceEvent, device: String?, flow: Int?, codec: String) {
    events += 1
    if ndjson {
      out.bytes(event.timelineLine(device: device, flow: flow, codec: codec))
      out.line()
    } else {
      out.line(Self.text(event, flow: flow, style: style))
    }
    out.flush()
  }

  /// `14:03:22.123456  #3  flow 1  executed        ARMED NONE 1500   set_servo_ch0 1500 µs`
  /// (flow: the peer, numbered as they came; `device` for the device's own timers).
  package static func text(_ event: DeviceEvent, flow: Int?, style: Style) -> String {
    let frame = event.frame.map { "#\($0)" } ?? "–"
    let state = event.state.map { "\($0.key)=\($0.value.display)" }.joined(separator: " ")
    let name = event.certain ? event.name : event.name + "?"
    // The model's words quote what the peer sent (a device id, a key).
    let peer = flow.map { "flow \($0)" } ?? "device"
    return LiveClock.clockText(event.time) + "  " + frame.leftPadded(to: 6) + "  \(peer)  "
      + style.bold(name.padding(toLength: max(name.count, 16), withPad: " ", startingAt: 0)) + "  " + state
      + (event.text.isEmpty ? "" : "  " + style.dim(TerminalText.escaped(event.text)))
      + (event.mismatch.map { "  " + style.error("mismatch: \(TerminalText.escaped($0))") } ?? "")
  }
}
