import PacketKit

/// RFC 6455 §7.4.1 close codes, as a person reads them, and the `ws.close`
/// event every command shows (decode, listen, send).
package enum WebSocketCloseCode {
  package static func meaning(_ code: UInt16) -> String {
    switch code {
    case 1000: "normal closure"
    case 1001: "going away"
    case 1002: "protocol error"
    case 1003: "unsupported data"
    case 1007: "invalid payload data"
    case 1008: "policy violation"
    case 1009: "message too big"
    case 1010: "mandatory extension missing"
    case 1011: "internal server error"
    default: code >= 4000 ? "application-defined" : "unassigned"
    }
  }

  /// The fields of a `ws.close` event and, for anything but a normal close,
  /// a warning naming who closed and why.
  package static func event(code: UInt16?, reason: String, by: String) -> (
    fields: [FieldValue.Member], diagnostics: [Diagnostic]
  ) {
    var fields: [FieldValue.Member] = [.init("by", .string(by))]
    fields.append(.init("code", code.map { .integer(Int64($0)) } ?? .null))
    if let code { fields.append(.init("meaning", .string(meaning(code)))) }
    fields.append(.init("reason", .string(reason)))
    guard let code, code != 1000, code != 1001 else { return (fields, []) }
    return (fields, [.warning("ws-close-\(code)", "\(by) closed with \(code) (\(meaning(code)))")])
  }
}
