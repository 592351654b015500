import PacketDecode
import PacketKit

/// Everything the analysis keeps about one flow (a client of a device, or
/// traffic no model reads): bookkeeping, the series and distributions its
/// rules feed, the findings they log. Its device (`DeviceAnalyzer`) reads
/// its records with every other client's. Memory is bounded: summaries,
/// reservoirs and capped findings, never the records.
final class FlowAnalyzer: FlowContext {
  /// Records held while the flow's device is not known yet (its first
  /// codec message names it); past this the oldest are not modelled.
  static let heldLimit = 64

  package let id: Int
  package let key: FlowKey
  /// Where every timeline of the capture starts (its first analysed record).
  package let origin: Double
  private let catalog: RuleCatalog
  /// "udp", "tcp", "websocket" (once a WebSocket record was seen), "ble-att".
  package private(set) var transport: String
  /// The first codec that claimed a payload of this flow.
  package private(set) var codec: String?
  /// The endpoint that starts the conversation (the app, the WebSocket
  /// client) and the one that answers, with their names in the protocol.
  package private(set) var client: String?
  package private(set) var server: String?
  package private(set) var clientRole = "client"
  package private(set) var serverRole = "server"
  package private(set) var firstFrame: Int?
  package private(set) var lastFrame: Int?
  package private(set) var firstTime: Double
  package private(set) var lastTime: Double
  /// Payloads a codec claimed (decoded or not), and their bytes.
  package private(set) var messages = 0
  package private(set) var bytes = 0
  package private(set) var events = 0
  private(set) var decodeErrors = 0
  /// Codec warnings by code (out-of-range values and the like).
  private(set) var codecWarnings: [String: Int] = [:]
  package private(set) var series: [MessageSeries] = []
  package private(set) var values: [ValueSeries] = []
  package private(set) var findings: FindingLog
  /// The flow's own rules: the WebSocket's, and a protocol's whose rules
  /// read one connection.
  package private(set) var rules: [any FlowRules] = []
  /// The device the flow reaches, once known, and which end of the flow
  /// it is. Not retained (the device holds its clients); the sink and the
  /// report hold both for as long as either is read.
  package private(set) unowned(unsafe) var device: DeviceAnalyzer?
  private(set) var deviceEnd: String?
  /// Records waiting for the device to be known.
  private var held: [FlowMessage] = []
  /// The flow's codec models no device: its records go to no model.
  private(set) var unmodelled = false
  /// The BLE connection's peer address, when the capture shows the connection made.
  private(set) var blePeer: String?
  /// Whether the capture recorded its end (set before `finish`).
  package var captureEndRecorded = false
  private var rulesFor: Set<String> = []
  /// The WebSocket upgrade request, when the capture holds it.
  package private(set) var handshake: (frame: Int?, time: Double)?
  /// How the TCP connection under the flow ended, when it did.
  package private(set) var ended: (frame: Int, time: Double, reason: String)?

  package init(
    id: Int, key: FlowKey, origin: Double, transport: String, time: Double, catalog: RuleCatalog,
    budget: FindingBudget? = nil
  ) {
    self.id = id
    self.findings = FindingLog(budget: budget)
    self.key = key
    self.origin = origin
    self.transport = transport
    self.firstTime = time
    self.lastTime = time
    self.catalog = catalog
  }

  // MARK: Input

  /// Takes one record, `message` as rules and models read it.
  package func observe(_ record: DecodedRecord, _ message: FlowMessage) {
    if firstFrame == nil { firstFrame = message.frame }
    if let frame = message.frame { lastFrame = max(lastFrame ?? frame, frame) }
    firstTime = min(firstTime, message.time)
    lastTime = max(lastTime, message.time)
    if record.event != nil {
      events += 1
      if record.event?.name == "ws.handshake", handshake == nil { handshake = (message.frame, message.time) }
      if record.event?.name == "ble.connected", blePeer == nil { blePeer = message.string("peer") }
    } else if let name = record.codecName {
      messages += 1
      bytes += record.payloadLength
      if codec == nil { codec = name }
      if deviceEnd == nil { deviceEnd = DeviceEnd.byRouting(record) }
    }
    if record.transport == "websocket", transport != "websocket" {
      transport = "websocket"
    }
    if record.transport == "websocket", !rulesFor.contains("websocket") {
      rulesFor.insert("websocket")
      rules.append(WebSocketCloseRules())
    }
    if let name = record.codecName, !rulesFor.contains(name) {
      rulesFor.insert(name)
      if catalog.scope(forCodec: name) == .connection {
        rules += catalog.rules(forCodec: name)
      }
    }
    for diagnostic in record.allDiagnostics where diagnostic.severity >= .warning {
      codecWarnings[diagnostic.code, default: 0] += 1
    }
    if !rules.isEmpty {
      // The device's timers that fell before this record come before the rules read it.
      device?.advance(to: message.time)
      for rule in rules { rule.observe(message, flow: self) }
    }
    gapFinding(message)
    if message.error != nil {
      decodeErrors += 1
      // A device's rules may report it in their words: they judge it when
      // the device reads it.
      let devicesRules = message.codec.map { catalog.scope(forCodec: $0) == .device } ?? false
      if !devicesRules || message.layerError != nil { decodeFinding(message, claimedBy: []) }
    }
    // A BLE link's end arrives as an event ("ble.disconnected"): it ends
    // the flow as FIN or RST end a TCP connection.
    if let event = record.event?.name, event.hasPrefix("ble"), event.hasSuffix("disconnected"),
      let frame = message.frame
    {
      connectionEnded(frame: frame, time: message.time, reason: "disconnect")
    }
  }

  // MARK: The device

  /// Holds `message` until the flow's device is known, learning which end
  /// it is; returns the held records once `attach` may take them.
  package func hold(_ message: FlowMessage, description: DeviceDescription?) {
    if deviceEnd == nil { deviceEnd = DeviceEnd.of(message, description: description) }
    // A model reads its codec's payloads and the transport's events: nothing else waits.
    guard message.event != nil || message.codec != nil else { return }
    if held.count >= Self.heldLimit { unheld(held.removeFirst()) }
    held.append(message)
  }

  /// The flow's codec models no device: nothing will read what was held.
  func noDevice() {
    unmodelled = true
    for message in held { unheld(message) }
    held = []
  }

  /// Learns the device end again with the codec's description (the codec
  /// may have become known after the first records), or from a device
  /// already known at one of the flow's ends.
  func learnDeviceEnd(description: DeviceDescription?, knownEnds: (String) -> Bool) {
    guard deviceEnd == nil else { return }
    if let known = key.ends.first(where: knownEnds) {
      deviceEnd = known
      return
    }
    for message in held {
      if let end = DeviceEnd.of(message, description: description) {
        deviceEnd = end
        return
      }
    }
  }

  /// The flow reaches `device`: what it held goes to it, in order.
  package func attach(to device: DeviceAnalyzer) {
    self.device = device
    let waiting = held
    held = []
    for message in waiting { device.take(message, from: self) }
  }

  /// The device model's event about this flow, for rules that read one connection.
  package func modelled(_ event: DeviceEvent) {
    for rule in rules { rule.modelled(event, flow: self) }
  }

  package func connectionEnded(frame: Int, time: Double, reason: String) {
    guard ended == nil else { return }
    ended = (frame, time, reason)
    lastFrame = max(lastFrame ?? frame, frame)
    lastTime = max(lastTime, time)
    for rule in rules { rule.connectionEnded(frame: frame, time: time, reason: reason, flow: self) }
    device?.connectionEnded(frame: frame, time: time, reason: reason, of: self)
  }

  /// A record no device will read: its damage is said here.
  private func unheld(_ message: FlowMessage) {
    if message.layerError == nil, message.error != nil { decodeFinding(message, claimedBy: []) }
  }

  package func finish(captureEnd: Double) {
    for message in held { unheld(message) }
    held = []
    for rule in rules { rule.finish(flow: self, captureEnd: captureEnd) }
    for series in series { judgeRate(series) }
  }

  /// The end of the flow that is not its device: the client.
  var peerEnd: String? {
    guard let deviceEnd else { return nil }
    return key.ends.first { $0 != deviceEnd } ?? deviceEnd
  }

  // MARK: For the rules

  package func report(_ finding: Finding) {
    var finding = finding
    finding.flowID = id
    findings.add(finding)
  }

  @discardableResult
  package func count(_ name: String, direction: String?, expected: ExpectedRate?, frame: Int?, time: Double)
    -> Gap?
  {
    let found: MessageSeries
    if let existing = series.first(where: { $0.name == name }) {
      found = existing
    } else {
      found = MessageSeries(name: name, direction: direction, expected: expected, origin: origin)
      series.append(found)
    }
    return found.add(frame: frame, time: time)
  }

  package func measure(_ name: String, text: String, unit: MeasureUnit, _ value: Double) {
    if let existing = values.first(where: { $0.name == name }) { return existing.add(value) }
    let made = ValueSeries(name: name, text: text, unit: unit)
    values.append(made)
    made.add(value)
  }

  package func median(of name: String) -> Double? {
    values.first { $0.name == name }?.values.percentiles?.p50
  }

  /// Who is who, as the first rule that knows says it.
  package func setRoles(client: String?, server: String?, clientRole: String, serverRole: String) {
    guard self.client == nil, let client, let server else { return }
    self.client = client
    self.server = server
    self.clientRole = clientRole
    self.serverRole = serverRole
  }

  /// The protocol name of an endpoint ("app", "robot"), or the endpoint.
  package func role(of endpoint: String?) -> String {
    if let endpoint, endpoint == client { return clientRole }
    if let endpoint, endpoint == server { return serverRole }
    return endpoint ?? "?"
  }

  // MARK: For the reports

  /// "udp 127.0.0.1:40001 → 127.0.0.1:9000", client first when known.
  package var name: String {
    if let client, let server { return "\(transport) \(client) → \(server)" }
    return "\(transport) \(key.ends.joined(separator: " ↔ "))"
  }

  /// "error", "warning" or "ok" (notes alone leave a flow ok).
  package var verdict: String {
    switch findings.worst {
    case .error: "error"
    case .warning: "warning"
    default: "ok"
    }
  }

  // MARK: Findings below the protocols

  private func gapFinding(_ message: FlowMessage) {
    if message.eventName == "tcp.gap" {
      let missing = message.number("missing_bytes").flatMap { Int(exactly: $0) } ?? 0
      report(
        Finding(
          "capture.tcp-gap", .warning, time: message.time, frame: message.frame,
          text: "\(missing) bytes of the TCP stream \(message.source ?? "") → \(message.destination ?? "") "
            + "never reached the capture; messages across the gap are lost or cut",
          details: [.init("missing_bytes", .integer(Int64(missing)))]))
    }
  }

  /// A payload that did not decode, unless rules that read it (the flow's,
  /// or `others`, its device's) report it themselves.
  func decodeFinding(_ message: FlowMessage, claimedBy others: [any FlowRules]) {
    guard let error = message.error else { return }
    if (rules + others).contains(where: { $0.claims(error, in: message) }) { return }
    let damaged = message.layerError != nil
    let what = damaged ? "\(message.transport) layer" : "\(message.codec ?? "payload")"
    report(
      Finding(
        damaged ? "decode.damaged" : "decode.error", .warning, time: message.time, frame: message.frame,
        text: "\(what) from the \(role(of: message.source)) did not decode (\(error.code)): \(error.text)",
        details: [.init("code", .string(error.code)), .init("length", .integer(Int64(message.size)))]))
  }

  private func judgeRate(_ series: MessageSeries) {
    guard let expected = series.expected, let rule = expected.rule, let rate = series.activeRate else {
      return
    }
    let verdict = expected.judge(series)
    guard verdict == .tooSlow || verdict == .tooFast, let time = series.firstTime else { return }
    let median = series.intervals.percentiles?.p50
    report(
      Finding(
        rule, .warning, time: time, frame: series.firstFrame, related: [series.lastFrame],
        text: "\(series.name) at \(Format.hertz(rate)) while sending"
          + (median.map { " (median interval \(Format.duration($0)))" } ?? "")
          + ": \(verdict.rawValue); the protocol expects \(expected.text)",
        details: [
          .init("rate_hz", .number(rate)), .init("expected_low_hz", .number(expected.lowHz)),
          .init("expected_high_hz", .number(expected.highHz)),
          .init("messages", .integer(Int64(series.count))),
          .init("last_frame", series.lastFrame.map { .integer(Int64($0)) } ?? .null),
        ]))
  }
}
