import PacketKit

/// `--decode-as udp:9000=CODEC`: payloads on that transport and port go
/// to that codec, whatever the probes say (tshark's `-d`).
package struct DecodeAsRule: Equatable {
  package enum Transport: String {
    case udp, tcp
  }

  package var transport: Transport
  package var port: UInt16
  package var codec: String

  package static func parse(_ text: String, codecs: CodecSet) throws -> DecodeAsRule {
    let usage =
      "expected TRANSPORT:PORT=CODEC with TRANSPORT udp or tcp, e.g. udp:9000=\(codecs.names.first ?? "CODEC")"
    guard let equals = text.firstIndex(of: "="), let colon = text.firstIndex(of: ":"), colon < equals
    else {
      throw CommandFailure("--decode-as '\(text)': \(usage)")
    }
    let transportText = text[..<colon].lowercased()
    guard let transport = Transport(rawValue: transportText) else {
      throw CommandFailure("--decode-as '\(text)': transport '\(transportText)' is not udp or tcp")
    }
    guard let port = UInt16(text[text.index(after: colon)..<equals]), port > 0 else {
      throw CommandFailure("--decode-as '\(text)': the port must be 1…65535")
    }
    let codec = text[text.index(after: equals)...].lowercased()
    guard codecs.named(codec) != nil else {
      throw CommandFailure(
        "--decode-as '\(text)': unknown codec '\(codec)'; known: \(codecs.names.joined(separator: ", "))")
    }
    return DecodeAsRule(transport: transport, port: port, codec: codec)
  }
}
