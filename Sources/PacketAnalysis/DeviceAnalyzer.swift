import PacketKit

/// One device in a capture and everything that reached it: every flow,
/// connection and file of its clients feeds its one model in capture-time
/// order, as the real device got them. Its rules (when the protocol's read
/// the device's whole story) see all clients' records; their series and
/// measurements go to the client whose record is being read, their
/// findings are the device's.
final class DeviceAnalyzer: FlowContext {
  /// Frames remembered with their client, for events a model gives later
  /// than the record (one that waits for the device's report that confirms).
  static let frameMemory = 4096

  package let id: Int
  package let key: DeviceKey
  package let codec: String
  package let description: DeviceDescription
  package let origin: Double
  private var model: any DeviceModel
  /// The protocol's rules when they read the device, not one connection.
  package private(set) var rules: [any FlowRules] = []
  package private(set) var clients: [FlowAnalyzer] = []
  package private(set) var findings: FindingLog
  /// The device's state over time, for the HTML report.
  private(set) var deviceTrack = DeviceTrack()
  package private(set) var firstTime: Double
  package private(set) var lastTime: Double
  package private(set) var clientRole = "client"
  package private(set) var serverRole: String
  /// A rule has named the roles: every client gets them.
  private var rolesSet = false
  /// Whether the capture recorded its end (set before `finish`).
  package var captureEndRecorded = false
  /// Whether the sink checks this device's model deadlines.
  var isTrackedForTime = false
  /// Called with each event of the model and the client it concerns, in
  /// the order the model gives them (`analyze --timeline`).
  var onDeviceEvent: ((DeviceEvent, DeviceAnalyzer, FlowAnalyzer?) -> Void)?
  /// The client whose record or event is being read (not retained: the
  /// device holds its clients).
  private unowned(unsafe) var current: FlowAnalyzer?
  private var peers: [String: FlowAnalyzer] = [:]
  private var frameFlows: [Int: FlowAnalyzer] = [:]
  private var frameOrder: [Int] = []
  /// The first frame remembered (once a second client came).
  private var rememberedFrom: Int?

  package init?(
    id: Int, key: DeviceKey, codec: String, origin: Double, time: Double, catalog: RuleCatalog,
    budget: FindingBudget?
  ) {
    guard let behaviour = catalog.behaviour(forCodec: codec),
      let model = try? behaviour.makeModel(
        mode: .analysis, settings: catalog.options.modelSettings[codec] ?? [:])
    else { return nil }
    self.id = id
    self.key = key
    self.codec = codec
    self.description = behaviour.device
    self.model = model
    self.origin = origin
    self.firstTime = time
    self.lastTime = time
    self.serverRole = behaviour.device.name
    findings = FindingLog(budget: budget)
    if catalog.scope(forCodec: codec) == .device {
      rules = catalog.rules(forCodec: codec)
    }
  }

  /// "the <device> at 127.0.0.1:5005".
  package var name: String { "the \(description.name) at \(key.name)" }

  // MARK: Clients

  package func attach(_ flow: FlowAnalyzer) {
    clients.append(flow)
    if let peer = flow.peerEnd { peers[peer] = flow }
    flow.attach(to: self)
  }

  /// One record of a client, in capture order.
  package func take(_ message: FlowMessage, from flow: FlowAnalyzer) {
    guard let end = flow.deviceEnd, let heading = DeviceEnd.heading(of: message, end: end) else {
      if message.error != nil, message.layerError == nil { flow.decodeFinding(message, claimedBy: rules) }
      return
    }
    firstTime = min(firstTime, message.time)
    lastTime = max(lastTime, message.time)
    // With one client every event is its own: frames are remembered only when there are more.
    if clients.count > 1, let frame = message.frame {
      if rememberedFrom == nil { rememberedFrom = frame }
      remember(frame, flow)
    }
    advance(to: message.time)
    current = flow
    for rule in rules { rule.observe(message, flow: self) }
    if rolesSet, flow.client == nil {
      flow.setRoles(client: flow.peerEnd, server: end, clientRole: clientRole, serverRole: serverRole)
    }
    // The model reads its codec's payloads and the transport's events, not
    // other traffic of the link (a GATT descriptor write).
    if message.event != nil || message.codec == codec {
      deliver(model.take(message, heading: heading))
    }
    // After the model's events: the rules may have said what the device did with it.
    if message.error != nil, message.layerError == nil { flow.decodeFinding(message, claimedBy: rules) }
  }

  /// The TCP connection (or BLE link) under a client ended: the device's
  /// code sees its socket close.
  package func connectionEnded(frame: Int, time: Double, reason: String, of flow: FlowAnalyzer) {
    current = flow
    for rule in rules { rule.connectionEnded(frame: frame, time: time, reason: reason, flow: self) }
    guard reason == "fin" || reason == "rst", let peer = flow.peerEnd, let end = flow.deviceEnd else {
      return
    }
    advance(to: time)
    let message = FlowMessage(
      frame: frame, time: time, source: peer, destination: end, transport: flow.transport,
      event: ("tcp.end", [.init("reason", .string(reason))]))
    deliver(model.take(message, heading: .toDevice))
  }

  // MARK: Time

  package var deadline: Double? { model.nextDeadline }

  /// Passes the model's time to `time`, so its timers that fell before
  /// fire now (the sink calls it for every device whose deadline passed).
  package func advance(to time: Double) {
    guard let deadline = model.nextDeadline, deadline <= time else { return }
    current = nil
    deliver(model.advance(to: time))
  }

  /// The capture missed `from`…`to` (between files).
  package func unobserved(from: Double, to: Double) {
    advance(to: from)
    current = nil
    deliver(model.unobserved(from: from, to: to))
  }

  package func finish(captureEnd: Double) {
    // Records of other flows up to `captureEnd` show the capture was still running.
    advance(to: captureEnd)
    current = nil
    deliver(model.finish(end: captureEndRecorded ? captureEnd : nil))
    for rule in rules { rule.finish(flow: self, captureEnd: captureEnd) }
  }

  // MARK: Events

  private func deliver(_ events: [DeviceEvent]) {
    let reading = current
    defer { current = reading }
    for event in events {
      let flow = client(of: event)
      if let mismatch = event.mismatch {
        report(
          Finding(
            "\(codec).model-mismatch", .warning, time: event.time, frame: event.frame,
            text: mismatch, details: [.init("event", .string(event.name))]))
      }
      current = flow
      for rule in rules { rule.modelled(event, flow: self) }
      if let flow, !flow.rules.isEmpty { flow.modelled(event) }
      deviceTrack.add(event, client: flow?.id)
      onDeviceEvent?(event, self, flow)
    }
  }

  /// The client an event concerns: the peer the model names, else the
  /// sender of its frame.
  package func client(of event: DeviceEvent) -> FlowAnalyzer? {
    if clients.count == 1 { return event.frame != nil || event.peer != nil ? clients[0] : nil }
    if let peer = event.peer, let flow = peers[peer] { return flow }
    if let frame = event.frame, let flow = frameFlows[frame] { return flow }
    // Before a second client came, every frame was the first's.
    if let frame = event.frame, let since = rememberedFrom, frame < since { return clients.first }
    return nil
  }

  private func remember(_ frame: Int, _ flow: FlowAnalyzer) {
    if frameFlows[frame] == nil { frameOrder.append(frame) }
    frameFlows[frame] = flow
    if frameOrder.count > Self.frameMemory {
      let forget = frameOrder.count - Self.frameMemory / 2
      for old in frameOrder.prefix(forget) { frameFlows[old] = nil }
      frameOrder.removeFirst(forget)
    }
  }

  // MARK: FlowContext, for the device's rules

  package var client: String? { current?.client ?? current?.peerEnd }
  package var server: String? { current?.deviceEnd ?? key.endpoint }
  package var handshake: (frame: Int?, time: Double)? { current?.handshake }

  package func report(_ finding: Finding) {
    var finding = finding
    finding.deviceID = id
    finding.flowID = clients.count == 1 ? clients[0].id : finding.frame.flatMap { frameFlows[$0]?.id }
    findings.add(finding)
  }

  @discardableResult
  package func count(_ name: String, direction: String?, expected: ExpectedRate?, frame: Int?, time: Double)
    -> Gap?
  {
    current?.count(name, direction: direction, expected: expected, frame: frame, time: time)
  }

  package func measure(_ name: String, text: String, unit: MeasureUnit, _ value: Double) {
    current?.measure(name, text: text, unit: unit, value)
  }

  package func median(of name: String) -> Double? { current?.median(of: name) }

  package func setRoles(client: String?, server: String?, clientRole: String, serverRole: String) {
    // Rules say it with every message: once named, only a new client needs it.
    guard !rolesSet || current?.client == nil else { return }
    rolesSet = true
    self.clientRole = clientRole
    self.serverRole = serverRole
    current?.setRoles(client: client, server: server, clientRole: clientRole, serverRole: serverRole)
  }

  package func role(of endpoint: String?) -> String {
    if let endpoint, endpoint == key.endpoint || clients.contains(where: { $0.deviceEnd == endpoint }) {
      return serverRole
    }
    if let endpoint, peers[endpoint] != nil { return clientRole }
    return endpoint ?? "?"
  }

  // MARK: For the reports

  /// Every finding of the device and its clients, in time order.
  var allFindings: [Finding] {
    (findings.kept + clients.flatMap(\.findings.kept)).sorted { $0.time < $1.time }
  }

  package func count(_ severity: Finding.Severity) -> Int {
    findings.count(severity) + clients.reduce(0) { $0 + $1.findings.count(severity) }
  }

  /// "error", "warning" or "ok", over the device and its clients.
  package var verdict: String {
    count(.error) > 0 ? "error" : count(.warning) > 0 ? "warning" : "ok"
  }

  /// "two senders reached the <device>: 127.0.0.1:37465 (frames 1–73) and
  /// 127.0.0.1:45785 (frames 31–61)"; nil for one client.
  var clientsLine: String? {
    guard clients.count > 1 else { return nil }
    let noun = key.family == "udp" ? "senders" : "connections"
    let listed = clients.prefix(8).map { flow in
      let frames = [flow.firstFrame, flow.lastFrame].compactMap { $0 }.map(String.init).joined(separator: "–")
      return "\(flow.peerEnd ?? "?") (frames \(frames))"
    }
    let more = clients.count > listed.count ? " and \(clients.count - listed.count) more" : ""
    let list =
      listed.count == 2
      ? listed.joined(separator: " and ")
      : listed.dropLast().joined(separator: ", ") + ", and " + (listed.last ?? "")
    return "\(Self.number(clients.count)) \(noun) reached the \(description.name): \(list)\(more)"
  }

  package static func number(_ count: Int) -> String {
    let words = [2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"]
    return words[count] ?? String(count)
  }
}
