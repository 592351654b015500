import PacketCapture
import PacketKit

/// Carrier events as records of their own: `ws.handshake`, `ws.close`,
/// `tcp.gap`, what the capture layer dropped, Bluetooth connections and ATT
/// operations, damage.
extension PayloadRecords {
  package func event(_ event: CarrierEvent, _ context: CarrierContext) {
    switch event {
    case .webSocketHandshake(let connection, let handshake, let frame, let time):
      var record = endpoints(connection, .clientToServer, frame: frame, time: time, transport: "websocket")
      var fields: [FieldValue.Member] = [.init("path", .string(handshake.path))]
      if let named = pathField.of(handshake.path) {
        fields.append(.init(named.field, .string(named.value)))
      }
      if let extensions = handshake.requestedExtensions {
        fields.append(.init("extensions", .string(extensions)))
      }
      record.event = ("ws.handshake", fields)
      deliver(record, context: context)
    case .webSocketAccept(let connection, let status, let extensions, let frame, let time):
      var record = endpoints(connection, .serverToClient, frame: frame, time: time, transport: "websocket")
      var fields: [FieldValue.Member] = [.init("status", .integer(Int64(status)))]
      if let extensions { fields.append(.init("extensions", .string(extensions))) }
      record.event = ("ws.accept", fields)
      deliver(record, context: context)
    case .webSocketControl(let connection, let direction, let control, let frame, let time):
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "websocket")
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
      deliver(record, context: context)
    case .webSocketError(let connection, let direction, let frame, let time, let code, let text):
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "websocket")
      record.layerError = DecodeError(code: code) { .init(text) }
      deliver(record, context: context)
    case .streamGap(let connection, let direction, let frame, let time, let missingBytes):
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
      record.event = ("tcp.gap", [.init("missing_bytes", .integer(Int64(missingBytes)))])
      record.layerDiagnostics = [
        .warning("tcp-gap", "\(missingBytes) bytes missing from the stream; delivery resumes after them")
      ]
      deliver(record, context: context)
    case .streamCut(let connection, let direction, let frame, let time, let kept, let original, let missing):
      var record = endpoints(connection, direction, frame: frame, time: time, transport: "tcp")
      record.event = (
        "tcp.gap",
        [
          .init("missing_bytes", .integer(Int64(missing))), .init("kept", .integer(Int64(kept))),
          .init("original", .integer(Int64(original))),
        ]
      )
      record.layerDiagnostics = [.captureCut(kept: kept, original: original)]
      deliver(record, context: context)
    case .streamDesync(let connection, let direction, let frame, let time, let sequence, let expected):
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
      deliver(record, context: context)
    case .streamClosed(let connection, let frame, let time, let reason):
      sink.streamClosed(
        client: connection.client.description, server: connection.server.description, frame: frame,
        time: time, reason: reason)
    case .notice(let notice):
      captureNotice(notice, context: context)
    case .undecoded(_, _, let reason):
      stats.undecoded[reason, default: 0] += 1
    case .damaged(let frame, let time, let layer, let offset, let text):
      var record = DecodedRecord(frame: frame, time: time, transport: layer, payloadLength: 0)
      record.layerError = DecodeError(code: "damaged-\(layer)", offset: offset) { .init(text) }
      deliver(record, context: context)
    case .att(let operation):
      attOperation(operation, context: context)
    case .bluetoothConnection(let change):
      bluetoothConnection(change, context: context)
    case .hci(_, _, let kind):
      stats.events[kind, default: 0] += 1
    case .log(let entry):
      bluetoothLog(entry, context: context)
    }
  }

  /// A notice of the capture layer as a record of its own, with the words
  /// as its diagnostic.
  private func captureNotice(_ notice: CaptureNotice, context: CarrierContext) {
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
      let names = noticeNames(source, destination)
      record = DecodedRecord(
        frame: notice.frame, time: notice.time, transport: Self.transport(of: notice), source: names.source,
        destination: names.destination, payloadLength: 0)
    case .none:
      record = DecodedRecord(
        frame: notice.frame, time: notice.time, transport: Self.transport(of: notice), payloadLength: 0)
    }
    var fields: [FieldValue.Member] = []
    if let reason = notice.reason { fields.append(.init("reason", .string(reason))) }
    for detail in notice.details { fields.append(.init(detail.name, .integer(Int64(detail.value)))) }
    record.event = (notice.kind.rawValue, fields)
    record.layerDiagnostics = [Diagnostic(notice.severity, notice.kind.code, notice.text)]
    deliver(record, context: context)
  }

  /// The transport a notice's record is shown under.
  package static func transport(of notice: CaptureNotice) -> String {
    switch notice.ends {
    case .tcp: "tcp"
    case .ip(let source, _): source.isV6 ? "ipv6" : "ipv4"
    case .none: "capture"
    }
  }
}
