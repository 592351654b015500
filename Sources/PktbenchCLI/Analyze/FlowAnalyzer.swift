import PacketKit

/// Everything the analysis keeps about one flow: bookkeeping, the series
/// and distributions its rules feed, the findings they log, and the model
/// of its device. Memory is bounded: summaries, reservoirs and capped
/// findings, never the records.
final class FlowAnalyzer: FlowContext {
  let id: Int
  let key: FlowKey
  /// Where every timeline of the capture starts (its first analysed record).
  let origin: Double
  private let options: AnalysisOptions
  /// "udp", "tcp", "websocket" (once a WebSocket record was seen), "ble-att".
  private(set) var transport: String
  /// The first codec that claimed a payload of this flow.
  private(set) var codec: String?
  /// The endpoint that starts the conversation (the app, the WebSocket
  /// client) and the one that answers, with their names in the protocol.
  private(set) var client: String?
  private(set) var server: String?
  private(set) var clientRole = "client"
  private(set) var serverRole = "server"
  private(set) var firstFrame: Int?
  private(set) var lastFrame: Int?
  private(set) var firstTime: Double
  private(set) var lastTime: Double
  /// Payloads a codec claimed (decoded or not), and their bytes.
  private(set) var messages = 0
  private(set) var bytes = 0
  private(set) var events = 0
  private(set) var decodeErrors = 0
  /// Codec warnings by code (out-of-range values and the like).
  private(set) var codecWarnings: [String: Int] = [:]
  private(set) var series: [MessageSeries] = []
  private(set) var values: [ValueSeries] = []
  private(set) var findings: FindingLog
  private(set) var rules: [any FlowRules] = []
  /// The modelled device of the flow's codec, once the codec is known.
  private(set) var device: FlowDevice?
  /// The device's state over time, for the HTML report.
  private(set) var deviceTrack = DeviceTrack()
  /// Transport events before the codec was known (the WebSocket handshake
  /// and 101), given to the model when it is made.
  private var earlyEvents: [FlowMessage] = []
  /// Whether the sink checks this flow's model deadlines.
  var isTrackedForTime = false
  /// Whether the capture recorded its end (set before `finish`).
  var captureEndRecorded = false
  /// Called with each event of the device model, in the order the model
  /// gives them (`analyze --timeline`).
  var onDeviceEvent: ((DeviceEvent, FlowAnalyzer) -> Void)?
  private var rulesFor: Set<String> = []
  /// The WebSocket upgrade request, when the capture holds it.
  private(set) var handshake: (frame: Int?, time: Double)?
  /// How the TCP connection under the flow ended, when it did.
  private(set) var ended: (frame: Int, time: Double, reason: String)?

  init(
    id: Int, key: FlowKey, origin: Double, transport: String, time: Double, options: AnalysisOptions,
    budget: FindingBudget? = nil
  ) {
    self.id = id
    self.findings = FindingLog(budget: budget)
    self.key = key
    self.origin = origin
    self.transport = transport
    self.firstTime = time
    self.lastTime = time
    self.options = options
  }

  // MARK: Input

  func observe(_ record: DecodedRecord) {
    guard let message = FlowMessage(record) else { return }
    if firstFrame == nil { firstFrame = message.frame }
    if let frame = message.frame { lastFrame = max(lastFrame ?? frame, frame) }
    firstTime = min(firstTime, message.time)
    lastTime = max(lastTime, message.time)
    if record.event != nil {
      events += 1
      if record.event?.name == "ws.handshake", handshake == nil { handshake = (message.frame, message.time) }
    } else if let name = record.codecName {
      messages += 1
      bytes += record.payloadLength
      if codec == nil { codec = name }
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
      rules += RuleCatalog.rules(forCodec: name, options: options)
      if device == nil, let made = FlowDevice(codec: name, settings: options.modelSettings[name] ?? [:]) {
        device = made
        for early in earlyEvents { feedDevice(early) }
      }
    }
    earlyEvents = device == nil && record.event != nil && earlyEvents.count < 4 ? earlyEvents + [message] : []
    for diagnostic in record.allDiagnostics where diagnostic.severity >= .warning {
      codecWarnings[diagnostic.code, default: 0] += 1
    }
    advanceDevice(to: message.time)
    for rule in rules { rule.observe(message, flow: self) }
    feedDevice(message)
    layerFindings(message)
    // A BLE link's end arrives as an event ("ble.disconnect"): it ends the
    // flow as FIN or RST end a TCP connection.
    if let event = record.event?.name, event.hasPrefix("ble"), event.hasSuffix("disconnect"),
      let frame = message.frame
    {
      connectionEnded(frame: frame, time: message.time, reason: "disconnect")
    }
  }

  // MARK: The device model

  /// When the device model next needs time to pass.
  var deviceDeadline: Double? { device?.model.nextDeadline }

  /// Passes the model's time to `time`, so its timers that fell before
  /// fire now (the sink calls it for every flow whose deadline passed).
  func advanceDevice(to time: Double) {
    guard let device, let deadline = device.model.nextDeadline, deadline <= time else { return }
    deliver(device.advance(to: time))
  }

  private func feedDevice(_ message: FlowMessage) {
    guard let device else { return }
    deliver(device.take(message))
  }

  private func deliver(_ events: [DeviceEvent]) {
    for event in events {
      if let mismatch = event.mismatch, let codec = device?.codec {
        report(
          Finding(
            "\(codec).model-mismatch", .warning, time: event.time, frame: event.frame,
            text: mismatch, details: [.init("event", .string(event.name))]))
      }
      for rule in rules { rule.modelled(event, flow: self) }
      deviceTrack.add(event)
      onDeviceEvent?(event, self)
    }
  }

  func connectionEnded(frame: Int, time: Double, reason: String) {
    guard ended == nil else { return }
    ended = (frame, time, reason)
    lastFrame = max(lastFrame ?? frame, frame)
    lastTime = max(lastTime, time)
    for rule in rules { rule.connectionEnded(frame: frame, time: time, reason: reason, flow: self) }
  }

  func finish(captureEnd: Double) {
    if let device {
      // Records of other flows up to `captureEnd` show the capture was still running.
      advanceDevice(to: captureEnd)
      deliver(device.finish(end: captureEndRecorded ? captureEnd : nil))
    }
    for rule in rules { rule.finish(flow: self, captureEnd: captureEnd) }
    for series in series { judgeRate(series) }
  }

  // MARK: For the rules

  func report(_ finding: Finding) {
    var finding = finding
    finding.flowID = id
    findings.add(finding)
  }

  @discardableResult
  func count(_ name: String, direction: String?, expected: ExpectedRate?, frame: Int?, time: Double) -> Gap? {
    let found: MessageSeries
    if let existing = series.first(where: { $0.name == name }) {
      found = existing
    } else {
      found = MessageSeries(name: name, direction: direction, expected: expected, origin: origin)
      series.append(found)
    }
    return found.add(frame: frame, time: time)
  }

  func measure(_ name: String, text: String, unit: MeasureUnit, _ value: Double) {
    if let existing = values.first(where: { $0.name == name }) { return existing.add(value) }
    let made = ValueSeries(name: name, text: text, unit: unit)
    values.append(made)
    made.add(value)
  }

  func median(of name: String) -> Double? {
    values.first { $0.name == name }?.values.percentiles?.p50
  }

  /// Who is who, as the first rule that knows says it.
  func setRoles(client: String?, server: String?, clientRole: String, serverRole: String) {
    guard self.client == nil, let client, let server else { return }
    self.client = client
    self.server = server
    self.clientRole = clientRole
    self.serverRole = serverRole
  }

  /// The protocol name of an endpoint ("app", "robot"), or the endpoint.
  func role(of endpoint: String?) -> String {
    if let endpoint, endpoint == client { return clientRole }
    if let endpoint, endpoint == server { return serverRole }
    return endpoint ?? "?"
  }

  // MARK: For the reports

  /// "udp 127.0.0.1:40001 → 127.0.0.1:9000", client first when known.
  var name: String {
    if let client, let server { return "\(transport) \(client) → \(server)" }
    return "\(transport) \(key.ends.joined(separator: " ↔ "))"
  }

  /// "error", "warning" or "ok" (notes alone leave a flow ok).
  var verdict: String {
    switch findings.worst {
    case .error: "error"
    case .warning: "warning"
    default: "ok"
    }
  }

  // MARK: Findings below the protocols

  private func layerFindings(_ message: FlowMessage) {
    if message.eventName == "tcp.gap" {
      let missing = message.number("missing_bytes").flatMap { Int(exactly: $0) } ?? 0
      report(
        Finding(
          "capture.tcp-gap", .warning, time: message.time, frame: message.frame,
          text: "\(missing) bytes of the TCP stream \(message.source ?? "") → \(message.destination ?? "") "
            + "never reached the capture; messages across the gap are lost or cut",
          details: [.init("missing_bytes", .integer(Int64(missing)))]))
      return
    }
    guard let error = message.error else { return }
    decodeErrors += 1
    if rules.contains(where: { $0.claims(error, in: message) }) { return }
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
