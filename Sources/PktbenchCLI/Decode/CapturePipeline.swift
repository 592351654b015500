import CodecRegistry
import PacketCapture
import PacketKit

/// Bytes → link/IP/transport layers → WebSocket → router → codec → sink.
/// Data flows one way; nothing here knows what any protocol's frame is.
final class CapturePipeline {
  let router: PayloadRouter
  let sink: MessageSink
  private let decoder: PacketDecoder
  let bluetooth = BluetoothDecoder()
  var bleMap: [BLEMapRule] = []
  var bleRoles: [UInt16: BluetoothRole] = [:]
  @exclusivity(unchecked) private var websockets: [TCPConnectionID: WebSocketStream] = [:]
  /// WebSocket streams of connections the capture layer evicted, kept (a
  /// bounded number, oldest dropped first) until their connection resumes.
  private var parkedWebSockets: [TCPConnectionID: WebSocketStream] = [:]
  private var parkedOrder: [TCPConnectionID] = []
  static let parkedLimit = 256
  /// The addresses of the last IP-level notice, and their text.
  private var noticeAddresses:
    (source: IPAddress, destination: IPAddress, sourceText: String, destinationText: String)?
  /// TCP connections that are not WebSocket (their data is probed per chunk).
  @exclusivity(unchecked) private var plainStreams: Set<TCPConnectionID> = []
  private let rules: [DecodeAsRule]
  @exclusivity(unchecked) var stats = CaptureStats()
  /// What the sink reads, asked once rather than per message.
  let wantsRecords: Bool
  let wantsCounts: Bool
  let wantsPayload: Bool
  /// Clean messages go to the sink as flat fields, without a tree.
  private let flatRecords: Bool
  /// `-Y`: only the records it keeps reach the sink and the counters.
  private let displayFilter: RecordFilter?
  private let flatMessage = FlatMessage()
  @exclusivity(unchecked) var endpointNames = EndpointNames()
  @exclusivity(unchecked) var bleNames = BluetoothNames()
  /// The codecs probes found on flows, for their later payloads.
  @exclusivity(unchecked) private var udpCodecs = FlowCodecs<UDPFlowKey>()
  @exclusivity(unchecked) private var streamCodecs = FlowCodecs<TCPConnectionID>()
  @exclusivity(unchecked) var bleCodecs = FlowCodecs<BLEHandleKey>()

  init(router: PayloadRouter, rules: [DecodeAsRule], sink: MessageSink, displayFilter: RecordFilter? = nil) {
    self.router = router
    self.rules = rules
    self.sink = sink
    self.decoder = PacketDecoder()
    self.displayFilter = displayFilter
    // A filter reads records, so `--stats` with one counts what it keeps
    // rather than classifying clean payloads without a record.
    wantsRecords = sink.wantsRecords || displayFilter != nil
    wantsCounts = sink.wantsCounts
    wantsPayload = sink.wantsPayload
    // Counters take flat records too: `--stats -Y` reads each message's
    // fields without a tree, as summary lines do.
    flatRecords = (sink.acceptsFlatRecords || !sink.wantsRecords) && !sink.wantsPayload
  }

  func process(_ record: CaptureRecord) {
    if let bluetoothLink = BluetoothLinkType.forPcapLinkType(record.linkType) {
      processBluetooth(bluetoothLink, frame: record.frame, time: record.time, flags: 0, data: record.data)
      return
    }
    stats.record(frame: record.frame, time: record.time)
    decoder.decode(
      record,
      plainDatagram: { source, destination, payload in
        self.datagram(
          frame: record.frame, time: record.time, source: source, destination: destination, payload: payload,
          diagnostics: [])
      }
    ) { self.handle($0) }
  }

  func finish(readEnd: ReadEnd) {
    decoder.finish { self.handle($0) }
    // Connections evicted and never heard from again were open at the end,
    // as far as anyone can tell: closed as those are.
    for connection in parkedOrder {
      guard let stream = parkedWebSockets.removeValue(forKey: connection) else { continue }
      websockets[connection] = stream
      handle(
        .streamClosed(connection, frame: stats.records, time: stats.lastTime ?? 0, reason: "end of capture"))
    }
    parkedOrder.removeAll()
    finishBluetooth()
    if case .damaged(let afterFrame, let byteOffset, let reason) = readEnd {
      let at = byteOffset.map { " at byte offset \($0)" } ?? ""
      stats.stoppedEarly = "after record \(afterFrame)\(at): \(reason)"
    }
  }

  // MARK: Events

  private func handle(_ event: TransportEvent) {
    switch event {
    case .datagram(let frame, let time, let source, let destination, let payload, let diagnostics):
      datagram(
        frame: frame, time: time, source: source, destination: destination, payload: payload,
        diagnostics: diagnostics)
    case .streamOpened:
      break
    case .streamData(let connection, let direction, let frame, let time, let bytes):
      streamData(connection, direction, frame: frame, time: time, bytes: bytes)
    case .streamGap(let connection, let direction, let frame, let time, let missingBytes):
      _ = changeWebSocket(connection) { stream, emit in
        stream.gap(
          direction: wsDirection(direction), frame: frame, time: time, missingBytes: missingBytes, emit: emit)
      }
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
      record.event = ("tcp.gap", [.init("missing_bytes", .integer(Int64(missingBytes)))])
      record.layerDiagnostics = [
        .warning("tcp-gap", "\(missingBytes) bytes missing from the stream; delivery resumes after them")
      ]
      deliver(record)
    case .streamCut(let connection, let direction, let frame, let time, let kept, let original, let missing):
      _ = changeWebSocket(connection) { stream, emit in
        stream.gap(
          direction: wsDirection(direction), frame: frame, time: time, missingBytes: missing, emit: emit)
      }
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
      record.event = (
        "tcp.gap",
        [
          .init("missing_bytes", .integer(Int64(missing))), .init("kept", .integer(Int64(kept))),
          .init("original", .integer(Int64(original))),
        ]
      )
      record.layerDiagnostics = [.captureCut(kept: kept, original: original)]
      deliver(record)
    case .streamDesync(let connection, let direction, let frame, let time, let sequence, let expected):
      _ = changeWebSocket(connection) { stream, emit in
        stream.gap(direction: wsDirection(direction), frame: frame, time: time, missingBytes: nil, emit: emit)
      }
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
      record.event = (
        "tcp.desync",
        [.init("sequence", .integer(Int64(sequence))), .init("expected", .integer(Int64(expected)))]
      )
      record.layerDiagnostics = [
        .warning(
          "tcp-desync",
          "the sequence numbers jumped from \(expected) to \(sequence), further than any TCP window, "
            + "and the segments after it follow on: how many bytes were lost is unknown; decoding resumes at \(sequence)"
        )
      ]
      deliver(record)
    case .notice(let notice):
      captureNotice(notice)
    case .streamClosed(let connection, _, _, "evicted") where websockets[connection] != nil:
      // Not the end of the connection: its stream waits, mid-frame as it
      // may be, for the capture layer to resume it.
      if parkedWebSockets.count >= Self.parkedLimit, !parkedOrder.isEmpty {
        parkedWebSockets[parkedOrder.removeFirst()] = nil
      }
      parkedWebSockets[connection] = websockets.removeValue(forKey: connection)
      parkedOrder.append(connection)
    case .streamClosed(let connection, let frame, let time, let reason):
      _ = changeWebSocket(connection) { stream, emit in
        for direction in [WebSocketDirection.clientToServer, .serverToClient] {
          stream.finish(direction: direction, frame: frame, time: time, emit: emit)
        }
      }
      sink.streamClosed(
        client: connection.client.description, server: connection.server.description, frame: frame,
        time: time, reason: reason)
      websockets[connection] = nil
      plainStreams.remove(connection)
    case .undecoded(_, _, let reason):
      stats.undecoded[reason, default: 0] += 1
    case .damaged(let frame, let time, let layer, let offset, let text):
      var record = DecodedRecord(frame: frame, time: time, transport: layer, payloadLength: 0)
      record.layerError = DecodeError(code: "damaged-\(layer)", offset: offset) { .init(text) }
      deliver(record)
    }
  }

  /// A notice of the capture layer as a record of its own, with the words
  /// as its diagnostic; a resumed connection gets its WebSocket stream back.
  func captureNotice(_ notice: CaptureNotice) {
    if notice.kind == .resumed, case .tcp(let connection, _) = notice.ends,
      let stream = parkedWebSockets.removeValue(forKey: connection)
    {
      websockets[connection] = stream
      parkedOrder.removeAll { $0 == connection }
    }
    // Counted, not shown: a flood of them must not cost a record each.
    guard wantsRecords else {
      if wantsCounts {
        stats.events[notice.kind.rawValue, default: 0] += 1
        stats.transports[Self.transport(of: notice), default: 0] += 1
      }
      return
    }
    var record: DecodedRecord
    switch notice.ends {
    case .tcp(let connection, let direction):
      record = endpoints(connection, direction, frame: notice.frame, time: notice.time, transport: "tcp")
    case .ip(let source, let destination):
      // A flood comes from few addresses: their text is kept for the next.
      if noticeAddresses?.source != source || noticeAddresses?.destination != destination {
        noticeAddresses = (source, destination, source.description, destination.description)
      }
      record = DecodedRecord(
        frame: notice.frame, time: notice.time, transport: Self.transport(of: notice),
        source: noticeAddresses?.sourceText, destination: noticeAddresses?.destinationText, payloadLength: 0)
    case .none:
      record = DecodedRecord(
        frame: notice.frame, time: notice.time, transport: Self.transport(of: notice), payloadLength: 0)
    }
    var fields: [FieldValue.Member] = []
    if let reason = notice.reason { fields.append(.init("reason", .string(reason))) }
    for detail in notice.details { fields.append(.init(detail.name, .integer(Int64(detail.value)))) }
    record.event = (notice.kind.rawValue, fields)
    record.layerDiagnostics = [Diagnostic(notice.severity, notice.kind.code, notice.text)]
    deliver(record)
  }

  /// The transport a notice's record is shown under.
  static func transport(of notice: CaptureNotice) -> String {
    switch notice.ends {
    case .tcp: "tcp"
    case .ip(let source, _): source.isV6 ? "ipv6" : "ipv4"
    case .none: "capture"
    }
  }

  private func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, payload: UnsafeRawBufferPointer,
    diagnostics: [Diagnostic]
  ) {
    var choice = router.choose(
      .udp, sourcePort: source.port, destinationPort: destination.port, payload: payload)
    if choice == nil { choice = udpCodecs.choice(for: UDPFlowKey(source, destination)) }
    if !wantsRecords, diagnostics.isEmpty, let choice, let kind = choice.cleanKind(payload) {
      stats.countClean(codec: choice.index, kind: kind, bytes: payload.count, transport: .udp)
      udpCodecs.learn(UDPFlowKey(source, destination), choice, decoded: true)
      return
    }
    var record = DecodedRecord(
      frame: frame, time: time, transport: "udp", source: endpointNames.name(source),
      destination: endpointNames.name(destination), payloadLength: payload.count)
    record.layerDiagnostics = diagnostics
    if !diagnostics.isEmpty, let cut = diagnostics.first(where: { $0.code == "capture-cut" }) {
      // A codec given the kept part would report only where the capture
      // cut it (JSON ends early, a frame is short): say the cut instead,
      // as for WebSocket messages that lost bytes, naming the codec.
      if wantsPayload { record.payload = [UInt8](payload) }
      let error = DecodeError(code: "incomplete", offset: payload.count) { .init(cut.text + "; not decoded") }
      if let choice {
        record.routing = choice.reason
        record.result = .failed(codec: choice.codec.name, error: error)
      }
      deliver(record)
      return
    }
    decode(payload, choice: choice, into: &record)
    udpCodecs.learn(UDPFlowKey(source, destination), choice, decoded: record.decodedByCodec)
    deliver(record)
  }

  private func streamData(
    _ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int, time: Double,
    bytes: UnsafeRawBufferPointer
  ) {
    if websockets[connection] == nil, !plainStreams.contains(connection) {
      if direction == .clientToServer, WebSocketStream.looksLikeUpgradeRequest(bytes) {
        websockets[connection] = WebSocketStream()
      } else if rules.contains(where: {
        $0.transport == .tcp && $0.port == connection.server.port && Self.speaksWebSocket($0.codec)
      }) {
        // The capture started after the handshake: decode frames directly.
        var stream = WebSocketStream()
        stream.assumeUpgraded()
        websockets[connection] = stream
      } else {
        plainStreams.insert(connection)
      }
    }
    let fed = changeWebSocket(connection) { stream, emit in
      stream.feed(bytes, direction: wsDirection(direction), frame: frame, time: time, emit: emit)
    }
    if fed { return }
    var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
    record.payloadLength = bytes.count
    decodePayload(
      bytes, carrier: .tcp, connection: connection, sourcePort: record.sourcePort,
      destinationPort: record.destinationPort, into: &record)
    deliver(record)
  }

  /// Changes the connection's WebSocket stream with it taken out of
  /// `websockets`, and says whether there was one. Changed through a copy
  /// while the table kept its own, the stream's open message was shared,
  /// and each segment appended to it copied the whole message: a 300 KB
  /// camera frame about eight times (a third of the mixed session's
  /// instructions). `emit` delivers the stream's events, with the
  /// handshake path as it was before the change.
  private func changeWebSocket(
    _ connection: TCPConnectionID,
    _ change: (inout WebSocketStream, _ emit: (WebSocketEvent) -> Void) -> Void
  ) -> Bool {
    guard var stream = websockets.removeValue(forKey: connection) else { return false }
    let path = stream.handshake?.path
    change(&stream) { self.websocketEvent($0, connection: connection, path: path) }
    websockets[connection] = stream
    return true
  }

  /// A stream's event as records; `path`: the handshake path its messages
  /// are routed by.
  private func websocketEvent(_ event: WebSocketEvent, connection: TCPConnectionID, path: String?) {
    switch event {
    case .handshakeRequest(let handshake, let frame, let time):
      var record = endpoints(connection, .clientToServer, frame: frame, time: time, transport: "websocket")
      var fields: [FieldValue.Member] = [.init("path", .string(handshake.path))]
      if let named = WebSocketPathField.of(handshake.path) {
        fields.append(.init(named.field, .string(named.value)))
      }
      if let extensions = handshake.requestedExtensions {
        fields.append(.init("extensions", .string(extensions)))
      }
      record.event = ("ws.handshake", fields)
      deliver(record)
    case .handshakeResponse(let status, let extensions, let frame, let time):
      var record = endpoints(connection, .serverToClient, frame: frame, time: time, transport: "websocket")
      var fields: [FieldValue.Member] = [.init("status", .integer(Int64(status)))]
      if let extensions { fields.append(.init("extensions", .string(extensions))) }
      record.event = ("ws.accept", fields)
      deliver(record)
    case .message(let message):
      let direction: StreamDirection =
        message.direction == .clientToServer ? .clientToServer : .serverToClient
      var record = endpoints(
        connection, direction, frame: message.firstFrame, time: message.time, transport: "websocket")
      record.payloadLength = message.payload.count
      record.layerDiagnostics = message.diagnostics
      record.extra = [
        .init(
          "ws",
          .object(
            [
              .init("opcode", .string(message.isText ? "text" : "binary")),
              .init("fragments", .integer(Int64(message.fragments))),
              .init("compressed", .bool(message.wasCompressed)),
              .init("last_frame", .integer(Int64(message.lastFrame))),
            ] + (message.isComplete ? [] : [.init("missing_bytes", .integer(Int64(message.missingBytes)))])))
      ]
      let carrier = PayloadRouter.Carrier.websocket(path: path)
      message.payload.withUnsafeBytes { payload in
        guard message.missingBytes > 0 else {
          decodePayload(
            payload, carrier: carrier, connection: connection, sourcePort: record.sourcePort,
            destinationPort: record.destinationPort, into: &record)
          return
        }
        // Bytes lost in the capture: decoding what is left would only report
        // the seam. Name the codec it was for, and the loss as its error.
        if wantsPayload { record.payload = [UInt8](payload) }
        let frames = message.holes.map { "\($0.frame)" }
        let text =
          "\(message.missingBytes) bytes of this message were lost in the capture "
          + "(TCP gap\(frames.count == 1 ? "" : "s") at frame\(frames.count == 1 ? "" : "s") "
          + "\(frames.joined(separator: ", ")))"
        let error = DecodeError(code: "incomplete", offset: message.holes.first?.offset) { .init(text) }
        if let choice = router.choose(
          carrier, sourcePort: record.sourcePort, destinationPort: record.destinationPort, payload: payload)
          ?? streamCodecs.choice(for: connection)
        {
          record.routing = choice.reason
          record.result = .failed(codec: choice.codec.name, error: error)
        } else {
          record.layerError = error
        }
      }
      deliver(record)
    case .control(let control, let direction, let frame, let time):
      let streamDirection: StreamDirection = direction == .clientToServer ? .clientToServer : .serverToClient
      var record = endpoints(connection, streamDirection, frame: frame, time: time, transport: "websocket")
      let by = direction == .clientToServer ? "client" : "server"
      switch control {
      case .ping(let data):
        record.event = ("ws.ping", [.init("bytes", .integer(Int64(data.count))), .init("by", .string(by))])
      case .pong(let data):
        record.event = ("ws.pong", [.init("bytes", .integer(Int64(data.count))), .init("by", .string(by))])
      case .close(let code, let reason):
        let close = WebSocketCloseCode.event(code: code, reason: reason, by: by)
        record.event = ("ws.close", close.fields)
        record.layerDiagnostics = close.diagnostics
      }
      deliver(record)
    case .error(let direction, let frame, let time, let code, let text):
      let streamDirection: StreamDirection = direction == .clientToServer ? .clientToServer : .serverToClient
      var record = endpoints(connection, streamDirection, frame: frame, time: time, transport: "websocket")
      record.layerError = DecodeError(code: code) { .init(text) }
      deliver(record)
    }
  }

  // MARK: Helpers

  private func decodePayload(
    _ payload: UnsafeRawBufferPointer, carrier: PayloadRouter.Carrier, connection: TCPConnectionID,
    sourcePort: UInt16, destinationPort: UInt16, into record: inout DecodedRecord
  ) {
    let choice =
      router.choose(carrier, sourcePort: sourcePort, destinationPort: destinationPort, payload: payload)
      ?? streamCodecs.choice(for: connection)
    decode(payload, choice: choice, into: &record)
    streamCodecs.learn(connection, choice, decoded: record.decodedByCodec)
  }

  /// The payload through the codec the router chose (none: kept as unclaimed bytes).
  func decode(
    _ payload: UnsafeRawBufferPointer, choice: PayloadRouter.Choice?, into record: inout DecodedRecord
  ) {
    if wantsPayload { record.payload = [UInt8](payload) }
    guard let choice else { return }
    record.routing = choice.reason
    if flatRecords, choice.cleanFields(payload, into: &flatMessage.fields.pointee) {
      flatMessage.codec = Codecs.names[choice.index]
      flatMessage.payload = payload
      record.flat = flatMessage
      return
    }
    record.result = choice.decodeFrame(payload)
  }

  func deliver(_ record: DecodedRecord) {
    if let displayFilter, !displayFilter.matches(record) { return sink.skipped(record) }
    if wantsCounts { stats.add(record) }
    if wantsRecords { sink.emit(record) }
  }

  private func endpoints(
    _ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int, time: Double,
    transport: String
  ) -> DecodedRecord {
    let (source, destination) =
      direction == .clientToServer
      ? (connection.client, connection.server) : (connection.server, connection.client)
    var record = DecodedRecord(
      frame: frame, time: time, transport: transport, source: endpointNames.name(source),
      destination: endpointNames.name(destination), payloadLength: 0)
    record.sourcePort = source.port
    record.destinationPort = destination.port
    return record
  }

  private func wsDirection(_ direction: StreamDirection) -> WebSocketDirection {
    direction == .clientToServer ? .clientToServer : .serverToClient
  }

  /// Whether the codec named travels in WebSocket messages (it names a WebSocket path).
  static func speaksWebSocket(_ codec: String) -> Bool {
    Codecs.named(codec)?.info.wellKnown.contains { if case .webSocket = $0 { true } else { false } } ?? false
  }
}
