import PacketKit

/// The Aerie server as one device: every WebSocket that reaches its address
/// and port, with what the server keeps by `deviceId` shared among a
/// device's sockets (as the server was recorded doing). A new socket
/// for a device replaces the device's entry, unauthenticated; an
/// authRequest on any of them reuses the device's session and marks the
/// entry authenticated for all; the close of any of them removes the entry
/// and revokes the session. Each socket's own story (the auth race, its
/// replies, its 10 s timer) is an `AerieSocket`; a socket whose handshake
/// was not seen is a device of its own.
///
/// Events name the socket they concern (`peer`, the client's endpoint):
/// the server answers the connection that asked.
public struct AerieServerModel: DeviceModel {
  /// Sockets kept at most: past it, closed ones whose timers are done are
  /// forgotten first (a flood of connections must not grow the model).
  static let socketLimit = 1024

  let mode: ModelMode
  let settings: AerieServerSettings
  private var sockets: [String: AerieSocket] = [:]
  /// Socket keys in the order they came, for deterministic timers.
  private var order: [String] = []
  private var devices: [String: AerieDevice] = [:]
  /// Device ids from handshakes whose socket has not spoken yet.
  private var handshakes: [String: String] = [:]
  private var ids: AerieSessionIds

  init(mode: ModelMode, settings: AerieServerSettings) {
    self.mode = mode
    self.settings = settings
    ids = AerieSessionIds(seed: settings.seed)
  }

  // MARK: DeviceModel

  public mutating func take(_ message: FlowMessage, heading: Heading) -> [DeviceEvent] {
    guard let key = heading == .toDevice ? message.source : message.destination else { return [] }
    if message.eventName == "ws.handshake", heading == .toDevice {
      // The path names the device; a socket reused by a new handshake is a new socket.
      if let id = message.string("deviceId"), !id.isEmpty {
        if handshakes.count >= Self.socketLimit, let any = handshakes.keys.first { handshakes[any] = nil }
        handshakes[key] = id
        if sockets[key]?.acceptTime != nil { forget(key) }
      }
      return []
    }
    if sockets[key] == nil {
      guard message.eventName != "tcp.end" else { return [] }
      make(key)
    }
    return run(key) { $0.take(message, heading: heading) }
  }

  public var nextDeadline: Double? {
    var earliest: Double?
    for socket in sockets.values {
      if let deadline = socket.nextDeadline { earliest = min(earliest ?? deadline, deadline) }
    }
    for device in devices.values {
      if let deadline = device.expiryDeadline { earliest = min(earliest ?? deadline, deadline) }
    }
    return earliest
  }

  public mutating func advance(to time: Double) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    while let due = nextTimer(), due.time <= time {
      events += fire(due, afterEnd: false)
    }
    return events
  }

  public mutating func finish(end: Double?) -> [DeviceEvent] {
    var events: [DeviceEvent] = []
    while let due = nextTimer() {
      events += fire(due, afterEnd: true)
    }
    return events
  }

  /// Unseen messages may have authenticated a socket: its timer's close
  /// is a guess from here on.
  public mutating func unobserved(from: Double, to: Double) -> [DeviceEvent] {
    for key in order where sockets[key]?.authDeadline != nil {
      sockets[key]?.unseenTraffic = true
    }
    return []
  }

  // MARK: Sockets

  private mutating func make(_ key: String) {
    if sockets.count >= Self.socketLimit {
      let spent = order.first { sockets[$0]?.isClosed == true && sockets[$0]?.authDeadline == nil }
      forget(spent ?? order[0])
    }
    let deviceId = handshakes.removeValue(forKey: key)
    sockets[key] = AerieSocket(mode: mode, settings: settings, key: key, deviceId: deviceId)
    order.append(key)
  }

  private mutating func forget(_ key: String) {
    guard let socket = sockets.removeValue(forKey: key) else { return }
    order.removeAll { $0 == key }
    // What the server kept for a device no socket speaks for any more goes too.
    let device = deviceKey(of: socket)
    if !sockets.values.contains(where: { deviceKey(of: $0) == device }) { devices[device] = nil }
  }

  /// The device a socket belongs to: its `deviceId`, or itself.
  private func deviceKey(of socket: AerieSocket) -> String {
    socket.deviceId.map { "id \($0)" } ?? "socket \(socket.key)"
  }

  /// Runs `body` on the socket with its device's state and the server's
  /// session ids lent to it, and keeps what it changed.
  private mutating func run(_ key: String, _ body: (inout AerieSocket) -> [DeviceEvent]) -> [DeviceEvent] {
    guard var socket = sockets[key] else { return [] }
    let device = deviceKey(of: socket)
    socket.device = devices[device] ?? AerieDevice()
    socket.ids = ids
    let events = body(&socket)
    devices[device] = socket.device
    ids = socket.ids
    sockets[key] = socket
    return events
  }

  // MARK: Timers

  private enum Timer {
    case auth(String)
    case expiry(String)
  }

  /// The earliest timer due: a socket's auth timer or a device's session expiry.
  private func nextTimer() -> (time: Double, timer: Timer)? {
    var best: (time: Double, timer: Timer)?
    for key in order {
      if let deadline = sockets[key]?.nextDeadline, deadline < (best?.time ?? .infinity) {
        best = (deadline, .auth(key))
      }
    }
    for (device, entry) in devices.sorted(by: { $0.key < $1.key }) {
      if let deadline = entry.expiryDeadline, deadline < (best?.time ?? .infinity) {
        best = (deadline, .expiry(device))
      }
    }
    return best
  }

  private mutating func fire(_ due: (time: Double, timer: Timer), afterEnd: Bool) -> [DeviceEvent] {
    switch due.timer {
    case .auth(let key):
      return run(key) { socket in
        afterEnd ? socket.finish() : socket.advance(to: due.time)
      }
    case .expiry(let device):
      // Said on the device's entry socket, or its latest one.
      let owner =
        devices[device]?.entry
        ?? order.last { sockets[$0].map { deviceKey(of: $0) == device } ?? false }
      guard let owner, sockets[owner] != nil else {
        devices[device]?.expiryDeadline = nil
        return []
      }
      return run(owner) { $0.expiry(at: due.time, afterEnd: afterEnd) }
    }
  }
}
