import PacketKit

/// One application message as every output format sees it: where it came
/// from (frame, time, transport, endpoints) and what the codec made of it.
package struct DecodedRecord {
  package var frame: Int?
  package var time: Double?
  package var transport: String
  package var source: String?
  package var destination: String?
  package var result: FrameDecode?
  /// The payload bytes, kept only when an output needs them (-x, raw).
  package var payload: [UInt8]?
  package var payloadLength: Int
  package var sourcePort: UInt16 = 0
  package var destinationPort: UInt16 = 0
  /// How the codec was chosen: "udp port 9000", "probe 95", "--decode-as".
  package var routing: String?
  /// Diagnostics from the layers below the codec (checksums, gaps).
  package var layerDiagnostics: [Diagnostic] = []
  /// Transport details worth showing (WebSocket opcode, BLE handle...).
  package var extra: [FieldValue.Member] = []
  /// A short note for the summary line about where the message travelled
  /// (a BLE handle and ATT operation).
  package var carrierNote: String?
  /// Damage found below the codec (a broken IP header, a WebSocket
  /// protocol violation): the record is shown as damaged.
  package var layerError: DecodeError?
  /// A transport event that is not a codec message (WebSocket handshake,
  /// close, ping): its name and fields.
  package var event: (name: String, fields: [FieldValue.Member])?
  /// A clean message as its codec's flat fields, for the outputs that can
  /// write it without a dissection tree (summary lines, ndjson); `result`
  /// is nil then. Only sinks that say `acceptsFlatRecords` receive these,
  /// and only during `emit`: the pipeline reuses the object for the next
  /// message rather than copying some 700 bytes of fields per record.
  /// The record borrows it, unretained: the pipeline owns it for the whole
  /// of `emit`, and a strong reference made every record's copies costly.
  package unowned(unsafe) var flat: FlatMessage?

  package var codecName: String? { result?.codec ?? flat?.codec }

  package var messageName: String? {
    if case .decoded(let frame) = result { return frame.message }
    if let flat { return flat.fields.pointee.message.description }
    return event?.name
  }

  package var allDiagnostics: [Diagnostic] {
    var all = layerDiagnostics
    if case .decoded(let frame) = result { all.append(contentsOf: frame.diagnostics) }
    return all
  }

  package var error: DecodeError? {
    if let layerError { return layerError }
    if case .failed(_, let error) = result { return error }
    return nil
  }
}

extension DecodedRecord {
  /// The memberwise initializer, for the other modules: Swift synthesizes
  /// none at package level, and one written in the struct's body would
  /// replace the synthesized one, which builds a record in place (written
  /// out, it made the per-record path copy every record once more). This
  /// one delegates to it; its last parameter only keeps the two apart, so
  /// that this module calls the synthesized one.
  package init(
    frame: Int? = nil, time: Double? = nil, transport: String, source: String? = nil,
    destination: String? = nil, result: FrameDecode? = nil, payload: [UInt8]? = nil, payloadLength: Int,
    sourcePort: UInt16 = 0, destinationPort: UInt16 = 0, routing: String? = nil,
    layerDiagnostics: [Diagnostic] = [], extra: [FieldValue.Member] = [], carrierNote: String? = nil,
    layerError: DecodeError? = nil, event: (name: String, fields: [FieldValue.Member])? = nil,
    flat: FlatMessage? = nil, _ anotherModule: Void = ()
  ) {
    self.init(
      frame: frame, time: time, transport: transport, source: source, destination: destination,
      result: result, payload: payload, payloadLength: payloadLength, sourcePort: sourcePort,
      destinationPort: destinationPort, routing: routing, layerDiagnostics: layerDiagnostics, extra: extra,
      carrierNote: carrierNote, layerError: layerError, event: event, flat: flat)
  }
}
