import PacketKit

/// Where a `PayloadStage` delivers, in capture order: one method per kind
/// of carrier, each given what it needs without a copy (the bytes are
/// views, valid during the call). `SimplePayloadConsumer` takes every
/// payload through one method instead.
public protocol PayloadConsumer: AnyObject {
  /// The common packet in parts: a whole UDP datagram from one record with
  /// no diagnostics at any layer and no PKTAP process.
  func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer)
  /// Any other whole UDP datagram: with the layers' diagnostics (checksums,
  /// a snap length that cut it: code `capture-cut`), or from a PKTAP record.
  func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer,
    diagnostics: [Diagnostic], context: CarrierContext)
  /// Bytes of a TCP stream that is not WebSocket, in order, as delivered.
  func streamData(
    _ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int, time: Double,
    bytes: UnsafeRawBufferPointer, context: CarrierContext)
  /// A whole WebSocket data message; `path` is the request path of the
  /// connection's handshake, when it was captured.
  func webSocketMessage(
    _ message: WebSocketMessage, _ connection: TCPConnectionID, _ direction: StreamDirection, path: String?,
    context: CarrierContext)
  /// The common ATT value (a write, notification, indication or read
  /// result): the stage tracks no other records that carried it.
  func attValue(_ value: ATTValue, bytes: UnsafeRawBufferPointer)
  /// An ATT value with the other records that carried it
  /// (`PayloadStage.Options.tracksCarrierFrames`).
  func attValue(_ value: ATTValue, bytes: UnsafeRawBufferPointer, context: CarrierContext)
  /// Anything else the layers report.
  func event(_ event: CarrierEvent, _ context: CarrierContext)
}

extension PayloadConsumer {
  public func attValue(_ value: ATTValue, bytes: UnsafeRawBufferPointer) {
    attValue(value, bytes: bytes, context: CarrierContext())
  }
}

/// A `PayloadConsumer` that takes every payload as one `Payload` value:
/// simpler to write, at the cost of a copy of each payload's carrier.
public protocol SimplePayloadConsumer: PayloadConsumer {
  func payload(_ payload: Payload)
}

extension SimplePayloadConsumer {
  public func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer
  ) {
    payload(
      Payload(frame: frame, time: time, carrier: .udp(source: source, destination: destination), bytes: bytes)
    )
  }

  public func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer,
    diagnostics: [Diagnostic], context: CarrierContext
  ) {
    payload(
      Payload(
        frame: frame, time: time, carrier: .udp(source: source, destination: destination), bytes: bytes,
        diagnostics: diagnostics, context: context))
  }

  public func streamData(
    _ connection: TCPConnectionID, _ direction: StreamDirection, frame: Int, time: Double,
    bytes: UnsafeRawBufferPointer, context: CarrierContext
  ) {
    payload(
      Payload(frame: frame, time: time, carrier: .tcp(connection, direction), bytes: bytes, context: context))
  }

  public func webSocketMessage(
    _ message: WebSocketMessage, _ connection: TCPConnectionID, _ direction: StreamDirection, path: String?,
    context: CarrierContext
  ) {
    message.payload.withUnsafeBytes { bytes in
      payload(
        Payload(
          frame: message.firstFrame, time: message.time,
          carrier: .webSocket(connection, direction, path: path, message: message), bytes: bytes,
          diagnostics: message.diagnostics, context: context))
    }
  }

  public func attValue(_ value: ATTValue, bytes: UnsafeRawBufferPointer, context: CarrierContext) {
    payload(
      Payload(frame: value.frame, time: value.time, carrier: .att(value), bytes: bytes, context: context))
  }
}
