import PacketKit

/// One application message as every output format sees it: where it came
/// from (frame, time, transport, endpoints) and what the codec made of it.
struct DecodedRecord {
  var frame: Int?
  var time: Double?
  var transport: String
  var source: String?
  var destination: String?
  var result: FrameDecode?
  /// The payload bytes, kept only when an output needs them (-x, raw).
  var payload: [UInt8]?
  var payloadLength: Int
  var sourcePort: UInt16 = 0
  var destinationPort: UInt16 = 0
  /// How the codec was chosen: "udp port 9000", "probe 95", "--decode-as".
  var routing: String?
  /// Diagnostics from the layers below the codec (checksums, gaps).
  var layerDiagnostics: [Diagnostic] = []
  /// Transport details worth showing (WebSocket opcode, BLE handle...).
  var extra: [FieldValue.Member] = []
  /// A short note for the summary line about where the message travelled
  /// (a BLE handle and ATT operation).
  var carrierNote: String?
  /// Damage found below the codec (a broken IP header, a WebSocket
  /// protocol violation): the record is shown as damaged.
  var layerError: DecodeError?
  /// A transport event that is not a codec message (WebSocket handshake,
  /// close, ping): its name and fields.
  var event: (name: String, fields: [FieldValue.Member])?
  /// A clean message as its codec's flat fields, for the outputs that can
  /// write it without a dissection tree (summary lines, ndjson); `result`
  /// is nil then. Only sinks that say `acceptsFlatRecords` receive these,
  /// and only during `emit`: the pipeline reuses the object for the next
  /// message rather than copying some 700 bytes of fields per record.
  /// The record borrows it, unretained: the pipeline owns it for the whole
  /// of `emit`, and a strong reference made every record's copies costly.
  unowned(unsafe) var flat: FlatMessage?

  var codecName: String? { result?.codec ?? flat?.codec }

  var messageName: String? {
    if case .decoded(let frame) = result { return frame.message }
    if let flat { return flat.fields.pointee.message.description }
    return event?.name
  }

  var allDiagnostics: [Diagnostic] {
    var all = layerDiagnostics
    if case .decoded(let frame) = result { all.append(contentsOf: frame.diagnostics) }
    return all
  }

  var error: DecodeError? {
    if let layerError { return layerError }
    if case .failed(_, let error) = result { return error }
    return nil
  }
}
