import NIOCore
import PacketDecode
import PacketKit

/// How `send` reaches its destination: a connected UDP socket or a
/// WebSocket client connection. Used on the event loop only.
protocol SendTransport: AnyObject {
  var transportName: String { get }
  var localEndpoint: String? { get }
  var remoteEndpoint: String? { get }
  var carrier: PayloadRouter.Carrier { get }
  /// Hands one message to the kernel; false when it did not take it.
  func send(_ bytes: [UInt8]) -> Bool
  /// Ends the conversation (a WebSocket close handshake), then calls `done`.
  func close(_ done: @escaping () -> Void)
}

/// What `send` was asked to do, as a plain value for the event loop.
package struct SendConfiguration: Sendable {
  package var codecs: CodecSet
  package var target: TargetURL
  var steps: [SendAction]
  package var output: LiveOutputSettings
  /// How long to keep listening for replies after the last message.
  package var lingerNanoseconds: UInt64

  package init(
    codecs: CodecSet, target: TargetURL, steps: [SendAction], output: LiveOutputSettings,
    lingerNanoseconds: UInt64
  ) {
    self.codecs = codecs
    self.target = target
    self.steps = steps
    self.output = output
    self.lingerNanoseconds = lingerNanoseconds
  }
}

/// One `send` run, on its event loop: sends step by step on a drift-free
/// schedule (message k of a step at start + k·period on the monotonic
/// clock, never "sleep a period after each send"), logs each message sent
/// and each reply, and reports count, duration, mean rate and lateness.
package final class SendSession {
  package let configuration: SendConfiguration
  package let loop: EventLoop
  package let recorder: LiveRecorder
  let decoding: LiveDecoding
  private let out: OutputWriter
  private let done: EventLoopPromise<Int32>
  private var transport: SendTransport?
  private var stepIndex = 0
  private var sentInStep = 0
  private var stepStart = NIODeadline.now()
  private var nextTask: Scheduled<Void>?
  private(set) var report: SendReport
  private var stopReason: String?
  private var finished = false
  private var failure: String?
  /// The report's step for each send action (waits and expectations have none).
  private let reportIndex: [Int?]
  /// Messages from the peer not yet looked at by an `expect` (the newest
  /// `inboxLimit`): a reply may arrive before its expect step starts.
  private var inbox: [DecodedFrame] = []
  static let inboxLimit = 256
  /// The `expect` step waiting, and when it started.
  private var expecting: (expectation: SendExpectation, since: NIODeadline)?

  package init(configuration: SendConfiguration, loop: EventLoop, done: EventLoopPromise<Int32>) {
    self.configuration = configuration
    self.loop = loop
    self.done = done
    out = OutputWriter()
    let sink = configuration.output.makeSink(out: out, codecs: configuration.codecs)
    recorder = LiveRecorder(inner: sink, out: out, codecs: configuration.codecs, countLimit: nil)
    decoding = LiveDecoding(
      router: PayloadRouter(rules: [], forcedCodec: nil, codecs: configuration.codecs),
      keepPayload: sink?.wantsPayload ?? false)
    var index = 0
    reportIndex = configuration.steps.map { action in
      guard case .send = action else { return nil }
      defer { index += 1 }
      return index
    }
    report = SendReport(
      target: configuration.target.display,
      steps: configuration.steps.compactMap { if case .send(let step) = $0 { step.label } else { nil } })
  }

  /// The transport is ready: start the first step.
  func start(_ transport: SendTransport) {
    guard self.transport == nil, stopReason == nil else { return }
    self.transport = transport
    startStep(at: NIODeadline.now())
  }

  /// Gives up when no transport is ready by then (a server that accepts the
  /// connection but never answers the WebSocket upgrade).
  package func expectTransport(within seconds: Double) {
    loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
      guard self.transport == nil else { return }
      self.stop(
        "an error",
        failure: "\(self.configuration.target.display): no answer to the WebSocket upgrade within "
          + "\(DurationText.of(seconds))")
    }
  }

  /// Stops sending (Ctrl-C, or the peer went away) and closes.
  package func stop(_ reason: String, failure: String? = nil) {
    if let failure, self.failure == nil {
      self.failure = failure
      OutputWriter.standardError.line("pktbench: \(failure)")
    }
    guard stopReason == nil else { return }
    stopReason = reason
    nextTask?.cancel()
    nextTask = nil
    guard let transport else { return finish() }
    transport.close { self.finish() }
  }

  /// A problem worth a line in the report that makes the exit status 1,
  /// though sending went on.
  func noteFailure(_ text: String) {
    report.notes.append(text)
    if failure == nil { failure = text }
  }

  /// How many datagrams the peer refused (ICMP port unreachable): counted
  /// in the report, and the exit status is 1 as for any failure.
  func noteRefused(_ count: Int) {
    report.refused = count
    if count > 0, failure == nil {
      failure = "\(count) refused by the peer"
    }
  }

  /// A message from the peer (a WebSocket reply, a UDP datagram back).
  package func received(_ bytes: [UInt8], extra: [FieldValue.Member] = []) {
    guard let transport else { return }
    var record = DecodedRecord(
      frame: recorder.nextFrame(), time: LiveClock.now(), transport: transport.transportName,
      source: transport.remoteEndpoint, destination: transport.localEndpoint, payloadLength: bytes.count)
    record.sourcePort = UInt16(clamping: configuration.target.port)
    record.extra = extra + [.init("direction", .string("received"))]
    decoding.decode(bytes, carrier: transport.carrier, into: &record)
    report.received += 1
    recorder.emit(record, counts: true)
    if case .decoded(let frame) = record.result {
      inbox.append(frame)
      if inbox.count > Self.inboxLimit { inbox.removeFirst(inbox.count - Self.inboxLimit) }
      checkExpectation()
    }
  }

  /// A transport event worth a line (ws.close, ws.ping), as decode shows it.
  package func event(
    _ name: String, _ fields: [FieldValue.Member], fromPeer: Bool, diagnostics: [Diagnostic] = []
  ) {
    var record = DecodedRecord(
      frame: recorder.nextFrame(), time: LiveClock.now(), transport: transport?.transportName ?? "websocket",
      source: fromPeer ? transport?.remoteEndpoint : transport?.localEndpoint,
      destination: fromPeer ? transport?.localEndpoint : transport?.remoteEndpoint, payloadLength: 0)
    record.event = (name, fields)
    record.layerDiagnostics = diagnostics
    recorder.emit(record, counts: false)
  }

  // MARK: Schedule

  private func startStep(at start: NIODeadline) {
    guard stopReason == nil else { return }
    guard stepIndex < configuration.steps.count else { return allSent() }
    stepStart = start
    sentInStep = 0
    switch configuration.steps[stepIndex] {
    case .send: fire()
    case .wait(let nanoseconds):
      stepIndex += 1
      let next = start + .nanoseconds(Int64(nanoseconds))
      nextTask = loop.assumeIsolated().scheduleTask(deadline: next) { self.startStep(at: next) }
    case .expect(let expectation):
      expecting = (expectation, start)
      nextTask = loop.assumeIsolated().scheduleTask(
        deadline: start + .nanoseconds(Int64(expectation.withinNanoseconds))
      ) { self.expectationTimedOut() }
      checkExpectation()
    }
  }

  /// Looks for the expected message among those received since the last
  /// expectation was met; moves on when found.
  private func checkExpectation() {
    guard let (expectation, since) = expecting,
      let found = inbox.firstIndex(where: { expectation.matches($0) })
    else { return }
    inbox.removeFirst(found + 1)
    expecting = nil
    nextTask?.cancel()
    let waited = NIODeadline.now() - since
    report.notes.append(
      "\(expectation.label): met after \(Format.duration(Double(max(0, waited.nanoseconds)) / 1e9))")
    stepIndex += 1
    startStep(at: NIODeadline.now())
  }

  private func expectationTimedOut() {
    guard let (expectation, _) = expecting else { return }
    expecting = nil
    let seen = inbox.last { $0.codec == expectation.codec && $0.message == expectation.message }
    let got =
      seen.map { frame in "; got \(frame.message) " + expectation.found(in: frame) }
      ?? (inbox.isEmpty
        ? "; nothing was received" : "; got \(inbox.map(\.message).suffix(5).joined(separator: ", "))")
    stop("an unmet expectation", failure: "\(expectation.label): not met\(got)")
  }

  private func fire() {
    guard stopReason == nil, let transport else { return }
    guard case .send(let step) = configuration.steps[stepIndex] else { return }
    let due = stepStart + .nanoseconds(Int64((step.periodNanoseconds ?? 0) * UInt64(sentInStep)))
    let bytes: [UInt8]
    do {
      bytes = try SendPlan.bytes(for: step, message: sentInStep)
    } catch {
      return stop("error", failure: error.message)
    }
    let now = NIODeadline.now()
    let lateness = now > due ? now - due : .nanoseconds(0)
    if transport.send(bytes) {
      report.sent(
        step: reportIndex[stepIndex] ?? 0, at: now.uptimeNanoseconds,
        latenessNanoseconds: lateness.nanoseconds)
      log(bytes, step: step, transport: transport, lateness: lateness)
    } else {
      report.notSent += 1
    }
    sentInStep += 1
    let next = stepStart + .nanoseconds(Int64((step.periodNanoseconds ?? 0) * UInt64(sentInStep)))
    if step.isFinished(afterSending: sentInStep) {
      stepIndex += 1
      // The next step keeps the cadence: it starts one period after this one's last message.
      if step.periodNanoseconds == nil {
        startStep(at: NIODeadline.now())
      } else {
        nextTask = loop.assumeIsolated().scheduleTask(deadline: next) { self.startStep(at: next) }
      }
      return
    }
    nextTask = loop.assumeIsolated().scheduleTask(deadline: next) { self.fire() }
  }

  private func allSent() {
    guard configuration.lingerNanoseconds > 0 else { return stop("the last step") }
    nextTask = loop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(configuration.lingerNanoseconds))) {
      self.stop("the last step")
    }
  }

  private func log(_ bytes: [UInt8], step: SendStep, transport: SendTransport, lateness: TimeAmount) {
    // With -q nothing shows what was sent (the report counts it): skip decoding it again.
    guard !recorder.isSilent else { return }
    var record = DecodedRecord(
      frame: recorder.nextFrame(), time: LiveClock.now(), transport: transport.transportName,
      source: transport.localEndpoint, destination: transport.remoteEndpoint, payloadLength: bytes.count)
    record.destinationPort = UInt16(clamping: configuration.target.port)
    if decoding.keepPayload { record.payload = bytes }
    record.result = step.codec.decodeFrame(bytes)
    record.extra = [
      .init("direction", .string("sent")),
      .init("lateness_ms", .number((Double(lateness.nanoseconds) / 1e3).rounded() / 1e3)),
    ]
    recorder.emit(record, counts: false)
  }

  private func finish() {
    guard !finished else { return }
    finished = true
    recorder.finish(name: configuration.target.display)
    report.stopReason = stopReason ?? "the last step"
    // A run that failed before sending anything has said why in one line already.
    if report.total > 0 || failure == nil { report.write(options: configuration.output, out: out) }
    out.flush()
    done.succeed(failure == nil ? 0 : 1)
  }
}
