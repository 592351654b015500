import PacketKit

/// Capture records to application payloads with their carriers, and the
/// transport events around them: the link, IP, UDP and TCP layers, WebSocket
/// streams (detected by their upgrade, or assumed on given ports), PKTAP
/// process attribution, and HCI/L2CAP/ATT for Bluetooth records. What a
/// payload *is* (which codec) is the router's business, downstream.
///
/// Streaming and bounded as the decoders below it are. A WebSocket stream
/// whose connection the TCP table evicts is kept (a bounded number) and
/// carries on where it left off when the connection resumes.
public final class PayloadStage {
  public struct Options: Sendable {
    public var limits: CaptureLimits
    /// Server ports whose TCP streams are WebSocket from their first byte
    /// (the capture began after the handshake).
    public var webSocketPorts: Set<UInt16>
    /// Whether to note every record that carried each payload and event
    /// (`carrierFrames`), for writing them out.
    public var tracksCarrierFrames: Bool

    public init(
      limits: CaptureLimits = .default, webSocketPorts: Set<UInt16> = [], tracksCarrierFrames: Bool = false
    ) {
      self.limits = limits
      self.webSocketPorts = webSocketPorts
      self.tracksCarrierFrames = tracksCarrierFrames
    }
  }

  public let options: Options
  let consumer: any PayloadConsumer
  private let decoder: PacketDecoder
  let bluetooth = BluetoothDecoder()
  @exclusivity(unchecked) private var webSockets: [TCPConnectionID: WebSocketStream] = [:]
  /// WebSocket streams of evicted connections, oldest first.
  private var parkedWebSockets: [TCPConnectionID: WebSocketStream] = [:]
  private var parkedOrder: [TCPConnectionID] = []
  static let parkedLimit = 256
  /// TCP connections that are not WebSocket.
  @exclusivity(unchecked) private var plainStreams: Set<TCPConnectionID> = []
  @exclusivity(unchecked) var frames = CarrierFrames()
  /// What goes with the payload or event being delivered: the PKTAP
  /// record's process, the other records that carried it.
  @exclusivity(unchecked) var context = CarrierContext()
  /// The latest record's frame and time, for what ends with the capture.
  /// Unchecked as the tables above: written per record, and a build with
  /// testing enabled would check each write at run time.
  @exclusivity(unchecked) var lastFrame = 0
  @exclusivity(unchecked) var lastTime = 0.0

  public init(options: Options = Options(), consumer: any PayloadConsumer) {
    self.options = options
    self.consumer = consumer
    decoder = PacketDecoder(limits: options.limits)
  }

  /// Out-of-order TCP bytes plus IP fragment bytes held now.
  public var bufferedBytes: Int { decoder.bufferedBytes }

  /// One record of a pcap or pcapng capture (any link type, Bluetooth ones included).
  public func process(_ record: CaptureRecord) {
    // Most captures are Ethernet: one comparison takes their records past
    // the link types that go elsewhere.
    if record.linkType != LinkType.ethernet {
      if let bluetoothLink = BluetoothLinkType.forPcapLinkType(record.linkType) {
        return processBluetooth(
          bluetoothLink, frame: record.frame, time: record.time, flags: 0, data: record.data)
      }
      if PKTAP.isPKTAP(record.linkType) { return processPKTAP(record) }
    }
    lastFrame = record.frame
    lastTime = record.time
    decoder.decode(
      record,
      plainDatagram: { source, destination, payload in
        self.consumer.datagram(
          frame: record.frame, time: record.time, source: source, destination: destination, bytes: payload)
      }
    ) { self.handle($0) }
  }

  /// A PKTAP record (macOS, an iPhone's traffic through rvictl): the packet
  /// inside it, with the process its header names on what its own bytes
  /// complete. Events of other records that its arrival sets off (idle
  /// connections closing) carry none.
  @inline(never)
  private func processPKTAP(_ record: CaptureRecord) {
    lastFrame = record.frame
    lastTime = record.time
    let named = PKTAP.process(record.data)
    decoder.decode(record) { event in
      switch event {
      case .datagram, .streamData:
        self.context.process = named
        self.handle(event)
        self.context.process = nil
      default:
        self.handle(event)
      }
    }
  }

  /// A notice of the capture reader (libpcap's, about the file).
  public func notice(_ notice: CaptureNotice) {
    handle(.notice(notice))
  }

  /// The end of the capture: what is held is given up and said, and
  /// connections still open close with "end of capture".
  public func finish() {
    decoder.finish { self.handle($0) }
    // Connections evicted and never heard from again were open at the end,
    // as far as anyone can tell: closed as those are.
    for connection in parkedOrder {
      guard let stream = parkedWebSockets.removeValue(forKey: connection) else { continue }
      webSockets[connection] = stream
      handle(.streamClosed(connection, frame: lastFrame, time: lastTime, reason: "end of capture"))
    }
    parkedOrder.removeAll()
    bluetooth.finish { self.handleBluetooth($0) }
  }

  // MARK: Transport events

  private func handle(_ event: TransportEvent) {
    switch event {
    case .datagram(let frame, let time, let source, let destination, let payload, let diagnostics):
      if diagnostics.isEmpty, context.process == nil {
        consumer.datagram(frame: frame, time: time, source: source, destination: destination, bytes: payload)
      } else {
        consumer.datagram(
          frame: frame, time: time, source: source, destination: destination, bytes: payload,
          diagnostics: diagnostics, context: context)
      }
    case .streamOpened:
      break
    case .streamData(let connection, let direction, let frame, let time, let bytes):
      streamData(connection, direction, frame: frame, time: time, bytes: bytes)
    case .streamGap(let connection, let direction, let frame, let time, let missingBytes):
      _ = changeWebSocket(connection) { stream, emit in
        stream.gap(
          direction: Self.ws(direction), frame: frame, time: time, missingBytes: missingBytes, emit: emit)
      }
      deliver(.streamGap(connection, direction, frame: frame, time: time, missingBytes: missingBytes))
    case .streamCut(let connection, let direction, let frame, let time, let kept, let original, let missing):
      _ = changeWebSocket(connection) { stream, emit in
        stream.gap(direction: Self.ws(direction), frame: frame, time: time, missingBytes: missing, emit: emit)
      }
      deliver(
        .streamCut(
          connection, direction, frame: frame, time: time, kept: kept, original: original,
          missingBytes: missing))
    case .streamDesync(let connection, let direction, let frame, let time, let sequence, let expected):
      _ = changeWebSocket(connection) { stream, emit in
        stream.gap(direction: Self.ws(direction), frame: frame, time: time, missingBytes: nil, emit: emit)
      }
      deliver(
        .streamDesync(connection, direction, frame: frame, time: time, sequence: sequence, expected: expected)
      )
    case .notice(let notice):
      if notice.kind == .resumed, case .tcp(let connection, _) = notice.ends,
        let stream = parkedWebSockets.removeValue(forKey: connection)
      {
        webSockets[connection] = stream
        parkedOrder.removeAll { $0 == connection }
      }
      deliver(.notice(notice))
    case .streamClosed(let connection, _, _, "evicted") where webSockets[connection] != nil:
      // Not the end of the connection: its stream waits, mid-frame as it
      // may be, for the capture layer to resume it.
      if parkedWebSockets.count >= Self.parkedLimit, !parkedOrder.isEmpty {
        parkedWebSockets[parkedOrder.removeFirst()] = nil
      }
      parkedWebSockets[connection] = webSockets.removeValue(forKey: connection)
      parkedOrder.append(connection)
    case .streamClosed(let connection, let frame, let time, let reason):
      _ = changeWebSocket(connection) { stream, emit in
        for direction in [WebSocketDirection.clientToServer, .serverToClient] {
          stream.finish(direction: direction, frame: frame, time: time, emit: emit)
        }
      }
      deliver(.streamClosed(connection, frame: frame, time: time, reason: reason))
      webSockets[connection] = nil
      plainStreams.remove(connection)
      if options.tracksCarrierFrames { frames.closed(connection) }
    case .undecoded(let frame, let time, let reason):
      deliver(.undecoded(frame: frame, time: time, reason: reason))
    case .damaged(let frame, let time, let layer, let offset, let text):
      deliver(.damaged(frame: frame, time: time, layer: layer, offset: offset, text: text))
    }
  }

  private func streamData(
    _ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int, time: Double,
    bytes: UnsafeRawBufferPointer
  ) {
    if webSockets[connection] == nil, !plainStreams.contains(connection) {
      if direction == .clientToServer, WebSocketStream.looksLikeUpgradeRequest(bytes) {
        webSockets[connection] = WebSocketStream()
      } else if options.webSocketPorts.contains(connection.server.port) {
        var stream = WebSocketStream()
        stream.assumeUpgraded()
        webSockets[connection] = stream
      } else {
        plainStreams.insert(connection)
      }
    }
    if options.tracksCarrierFrames, webSockets[connection] != nil {
      frames.streamData(connection, direction, frame: frame)
    }
    let fed = changeWebSocket(connection) { stream, emit in
      stream.feed(bytes, direction: Self.ws(direction), frame: frame, time: time, emit: emit)
    }
    if fed { return }
    consumer.streamData(connection, direction, frame: frame, time: time, bytes: bytes, context: context)
  }

  /// Changes the connection's WebSocket stream with it taken out of
  /// `webSockets`, and says whether there was one. Changed through a copy
  /// while the table kept its own, the stream's open message was shared and
  /// each segment appended to it copied the whole message.
  private func changeWebSocket(
    _ connection: TCPConnectionID,
    _ change: (inout WebSocketStream, _ emit: (WebSocketEvent) -> Void) -> Void
  ) -> Bool {
    guard var stream = webSockets.removeValue(forKey: connection) else { return false }
    let path = stream.handshake?.path
    change(&stream) { self.webSocketEvent($0, connection: connection, path: path) }
    webSockets[connection] = stream
    return true
  }

  private func webSocketEvent(_ event: WebSocketEvent, connection: TCPConnectionID, path: String?) {
    switch event {
    case .handshakeRequest(let handshake, let frame, let time):
      deliver(.webSocketHandshake(connection, handshake, frame: frame, time: time))
    case .handshakeResponse(let status, let extensions, let frame, let time):
      deliver(.webSocketAccept(connection, status: status, extensions: extensions, frame: frame, time: time))
    case .message(let message):
      let direction = Self.stream(message.direction)
      if options.tracksCarrierFrames {
        var context = context
        context.otherFrames = frames.streamFrames(
          connection, direction, first: message.firstFrame, last: message.lastFrame)
        consumer.webSocketMessage(message, connection, direction, path: path, context: context)
      } else {
        consumer.webSocketMessage(message, connection, direction, path: path, context: context)
      }
    case .control(let control, let direction, let frame, let time):
      deliver(.webSocketControl(connection, Self.stream(direction), control, frame: frame, time: time))
    case .error(let direction, let frame, let time, let code, let text):
      deliver(
        .webSocketError(connection, Self.stream(direction), frame: frame, time: time, code: code, text: text))
    }
  }

  /// An event with what goes with it now.
  func deliver(_ event: CarrierEvent) {
    consumer.event(event, context)
  }

  static func ws(_ direction: StreamDirection) -> WebSocketDirection {
    direction == .clientToServer ? .clientToServer : .serverToClient
  }

  static func stream(_ direction: WebSocketDirection) -> StreamDirection {
    direction == .clientToServer ? .clientToServer : .serverToClient
  }
}
