import PacketCapture
import PacketKit

/// Payloads and carrier events to records: each payload through the codec
/// the router chooses, each event as a record of its own; then `-Y`, `-c`,
/// `-w`'s selection and the counters, and the sink. Nothing here knows what
/// any protocol's frame is.
final class PayloadRecords: PayloadConsumer {
  /// The codecs, called directly per payload.
  package let codecs: CodecSet
  /// What a WebSocket handshake's path names.
  package let pathField: WebSocketPathField
  package let router: PayloadRouter
  package let sink: MessageSink
  // Set before the first record and read for every BLE value: unchecked,
  // or each read is checked at run time (they are visible outside the
  // module, and in a build with testing enabled).
  @exclusivity(unchecked) package var bleMap: [BLEMapRule] = []
  @exclusivity(unchecked) var bleRoles: [UInt16: BluetoothRole] = [:]
  /// The addresses of the last IP-level notice, and their text.
  private var noticeAddresses:
    (source: IPAddress, destination: IPAddress, sourceText: String, destinationText: String)?
  @exclusivity(unchecked) package var stats: CaptureStats
  /// What the sink reads, asked once rather than per message.
  let wantsRecords: Bool
  let wantsCounts: Bool
  package let wantsPayload: Bool
  /// Clean messages go to the sink as flat fields, without a tree.
  private let flatRecords: Bool
  /// `-Y`: only the records it keeps reach the sink and the counters.
  private let displayFilter: RecordFilter?
  private let flatMessage = FlatMessage()
  @exclusivity(unchecked) var endpointNames = EndpointNames()
  @exclusivity(unchecked) var bleNames = BluetoothNames()
  private var processNames = ProcessNames()
  /// The codecs probes found on flows, for their later payloads.
  @exclusivity(unchecked) private var udpCodecs = FlowCodecs<UDPFlowKey>()
  @exclusivity(unchecked) private var streamCodecs = FlowCodecs<TCPConnectionID>()
  @exclusivity(unchecked) var bleCodecs = FlowCodecs<BLEHandleKey>()
  /// `--stats`: the flows clean messages were last counted for.
  @exclusivity(unchecked) private var recentUDPFlows = RecentFlowSlots<DirectedFlow>()
  @exclusivity(unchecked) var recentBLEFlows = RecentFlowSlots<BLEFlow>()
  /// `decode -w`: the records behind every message shown; nil unless asked.
  @exclusivity(unchecked) package var selection: FrameSelection?
  /// `-c N`: messages still to show; nil for no limit. At 0 nothing more
  /// is delivered and the reader is told to stop.
  @exclusivity(unchecked) package var messagesLeft: Int?

  package init(router: PayloadRouter, sink: MessageSink, displayFilter: RecordFilter?, recordsNeeded: Bool) {
    codecs = router.codecs
    pathField = WebSocketPathField(router.codecs)
    stats = CaptureStats(codecs: router.codecs)
    self.router = router
    self.sink = sink
    self.displayFilter = displayFilter
    // A filter reads records, so `--stats` with one counts what it keeps
    // rather than classifying clean payloads without a record.
    wantsRecords = sink.wantsRecords || displayFilter != nil || recordsNeeded
    wantsCounts = sink.wantsCounts
    wantsPayload = sink.wantsPayload
    // Counters take flat records too: `--stats -Y` reads each message's
    // fields without a tree, as summary lines do.
    flatRecords = (sink.acceptsFlatRecords || !sink.wantsRecords) && !sink.wantsPayload
  }

  // MARK: Payloads

  package func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes payload: UnsafeRawBufferPointer
  ) {
    var choice = router.chooseUDP(
      sourcePort: source.port, destinationPort: destination.port, payload: payload)
    if choice == nil { choice = udpCodecs.choice(for: UDPFlowKey(source, destination)) }
    if !wantsRecords, let choice, let kind = codecs.cleanKind(choice.index, payload) {
      let flow = DirectedFlow(source: source, destination: destination)
      if let slot = recentUDPFlows.slot(flow, codec: choice.index, kind: kind) {
        stats.countClean(slot: slot, bytes: payload.count, time: time)
      } else if let slot = stats.flows.cleanSlot(
        source: endpointNames.name(source), destination: endpointNames.name(destination),
        codec: codecs.names[choice.index], message: codecs.messageNames[choice.index][kind],
        kind: .init(codec: choice.index, kind: kind, transport: .udp))
      {
        recentUDPFlows.remember(flow, codec: choice.index, kind: kind, slot: slot)
        stats.countClean(slot: slot, bytes: payload.count, time: time)
      } else {
        stats.countClean(codec: choice.index, kind: kind, bytes: payload.count, time: time, transport: .udp)
      }
      udpCodecs.learn(UDPFlowKey(source, destination), choice, decoded: true)
      return
    }
    var record = DecodedRecord(
      frame: frame, time: time, transport: "udp", source: endpointNames.name(source),
      destination: endpointNames.name(destination), payloadLength: payload.count)
    decode(payload, choice: choice, into: &record)
    udpCodecs.learn(UDPFlowKey(source, destination), choice, decoded: record.decodedByCodec)
    deliver(record, context: nil)
  }

  /// A datagram with diagnostics from the layers below, or from a PKTAP record.
  package func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer,
    diagnostics: [Diagnostic], context: CarrierContext
  ) {
    var choice = router.choose(
      .udp, sourcePort: source.port, destinationPort: destination.port, payload: bytes)
    if choice == nil { choice = udpCodecs.choice(for: UDPFlowKey(source, destination)) }
    var record = DecodedRecord(
      frame: frame, time: time, transport: "udp", source: endpointNames.name(source),
      destination: endpointNames.name(destination), payloadLength: bytes.count)
    record.layerDiagnostics = diagnostics
    if let cut = diagnostics.first(where: { $0.code == "capture-cut" }) {
      // A codec given the kept part would report only where the capture
      // cut it (JSON ends early, a frame is short): say the cut instead,
      // as for WebSocket messages that lost bytes, naming the codec.
      if wantsPayload { record.payload = [UInt8](bytes) }
      let error = DecodeError(code: "incomplete", offset: bytes.count) { .init(cut.text + "; not decoded") }
      if let choice {
        record.routing = router.reason(choice)
        record.result = .failed(codec: codecs.names[choice.index], error: error)
      }
      deliver(record, context: context)
      return
    }
    decode(bytes, choice: choice, into: &record)
    udpCodecs.learn(UDPFlowKey(source, destination), choice, decoded: record.decodedByCodec)
    deliver(record, context: context)
  }

  package func streamData(
    _ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int, time: Double,
    bytes: UnsafeRawBufferPointer, context: CarrierContext
  ) {
    var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
    record.payloadLength = bytes.count
    decodePayload(
      bytes, carrier: .tcp, connection: connection, sourcePort: record.sourcePort,
      destinationPort: record.destinationPort, into: &record)
    deliver(record, context: context)
  }

  package func webSocketMessage(
    _ message: WebSocketMessage, _ connection: TCPConnectionID, _ direction: StreamDirection, path: String?,
    context: CarrierContext
  ) {
    message.payload.withUnsafeBytes { bytes in
      webSocketMessage(message, bytes, connection, direction, path: path, context: context)
    }
  }

  private func webSocketMessage(
    _ message: WebSocketMessage, _ bytes: UnsafeRawBufferPointer, _ connection: TCPConnectionID,
    _ direction: StreamDirection, path: String?, context: CarrierContext
  ) {
    var record = endpoints(
      connection, direction, frame: message.firstFrame, time: message.time, transport: "websocket")
    record.payloadLength = bytes.count
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
    if message.missingBytes == 0 {
      decodePayload(
        bytes, carrier: carrier, connection: connection, sourcePort: record.sourcePort,
        destinationPort: record.destinationPort, into: &record)
    } else {
      // Bytes lost in the capture: decoding what is left would only report
      // the seam. Name the codec it was for, and the loss as its error.
      if wantsPayload { record.payload = [UInt8](bytes) }
      let frames = message.holes.map { "\($0.frame)" }
      let text =
        "\(message.missingBytes) bytes of this message were lost in the capture "
        + "(TCP gap\(frames.count == 1 ? "" : "s") at frame\(frames.count == 1 ? "" : "s") "
        + "\(frames.joined(separator: ", ")))"
      let error = DecodeError(code: "incomplete", offset: message.holes.first?.offset) { .init(text) }
      if let choice = router.choose(
        carrier, sourcePort: record.sourcePort, destinationPort: record.destinationPort, payload: bytes)
        ?? streamCodecs.choice(for: connection)
      {
        record.routing = router.reason(choice)
        record.result = .failed(codec: codecs.names[choice.index], error: error)
      } else {
        record.layerError = error
      }
    }
    deliver(record, context: context)
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
  package func decode(
    _ payload: UnsafeRawBufferPointer, choice: PayloadRouter.Choice?, into record: inout DecodedRecord
  ) {
    if wantsPayload { record.payload = [UInt8](payload) }
    guard let choice else { return }
    record.routing = router.reason(choice)
    if flatRecords, codecs.cleanFields(choice.index, payload, into: &flatMessage.fields.pointee) {
      flatMessage.codec = codecs.names[choice.index]
      flatMessage.payload = payload
      record.flat = flatMessage
      return
    }
    record.result = codecs.decodeFrame(choice.index, payload)
  }

  /// A record to the sink, with the process a PKTAP record named and the
  /// records that carried it (`-w`).
  package func deliver(_ record: DecodedRecord, context: CarrierContext?) {
    if let process = context?.process {
      var carried = record
      processNames.attach(process, to: &carried)
      return send(carried, context: context)
    }
    send(record, context: context)
  }

  /// The context goes as far as `-w` needs it, unread and uncopied otherwise.
  @inline(__always)
  private func send(_ record: DecodedRecord, context: CarrierContext?) {
    if messagesLeft == 0 { return }
    if let displayFilter, !displayFilter.matches(record) { return sink.skipped(record) }
    if selection != nil { select(record, context?.otherFrames ?? []) }
    if wantsCounts { stats.add(record) }
    if wantsRecords { sink.emit(record) }
    if let left = messagesLeft { messagesLeft = left - 1 }
  }

  /// Marks the records that carried `record` for `-w`.
  private func select(_ record: DecodedRecord, _ otherFrames: [Int]) {
    if let frame = record.frame { selection?.insert(frame) }
    for frame in otherFrames { selection?.insert(frame) }
  }

  /// An IP notice's addresses as text: a flood comes from few addresses,
  /// so the last pair's text is kept.
  func noticeNames(_ source: IPAddress, _ destination: IPAddress) -> (
    source: String, destination: String
  ) {
    if noticeAddresses?.source != source || noticeAddresses?.destination != destination {
      noticeAddresses = (source, destination, source.description, destination.description)
    }
    return (noticeAddresses?.sourceText ?? "", noticeAddresses?.destinationText ?? "")
  }

  package func endpoints(
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
}
