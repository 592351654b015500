import PacketKit

/// What the Aerie server sends back to one message. Every failure is an
/// `authResponse` with `success` false and the error's localized text:
/// the server's only way to report an error, so most of them are not
/// refused logins.
enum AerieReply: Sendable, Hashable {
  /// authResponse, success, with a session id.
  case accepted
  /// authResponse, success false: the token has not the server's shape.
  case refused
  /// heartbeat `{"pong": true}`.
  case pong
  /// Error report: a camera frame on a socket that is not authenticated
  /// (`MessageError.notAuthenticated`).
  case notAuthenticated
  /// Error report: the message did not decode.
  case malformed

  /// `MessageError.notAuthenticated` as the server's Foundation words it
  /// (the recordings' log and authResponses).
  static let notAuthenticatedText = "The operation could not be completed. (Aerie.MessageError error 1.)"
  /// A `DecodingError` as the server words it (the real capture's answer to
  /// a payload that is not base64).
  static let malformedText =
    "The operation could not be completed. The data isn\u{2019}t in the correct format."
  /// `AuthController`'s refusal.
  static let refusedText = "Invalid authentication token"
  /// The server writes its pong payload by hand, with a space.
  static let pongJSON = "{\"pong\": true}"

  /// A server message as a reply; nil for one that answers nothing (a
  /// poseBroadcast) or does not decode.
  init?(_ message: FlowMessage) {
    switch message.message {
    case "heartbeat":
      self = .pong
    case "authResponse":
      if message.bool("success") == true {
        self = .accepted
        return
      }
      switch message.string("error") {
      case Self.notAuthenticatedText: self = .notAuthenticated
      case Self.refusedText: self = .refused
      default: self = .malformed
      }
    default:
      return nil
    }
  }

  /// "its notAuthenticated error", for findings and timeline texts.
  var words: String {
    switch self {
    case .accepted: "an authResponse with a session"
    case .refused: "a refusal (\"\(Self.refusedText)\")"
    case .pong: "{\"pong\": true}"
    case .notAuthenticated: "its notAuthenticated error"
    case .malformed: "its could-not-decode error"
    }
  }

  /// Whether it is an error report rather than an answer to a login.
  var isErrorReport: Bool { self == .notAuthenticated || self == .malformed }

  /// The envelope the server writes: `authResponse` or `heartbeat`, with its
  /// timestamp, made with the codec's own craft.
  func envelope(timestamp: Double, sessionId: String?) -> [UInt8] {
    let values: [String: FieldValue]
    let kind: String
    switch self {
    case .accepted:
      kind = "authResponse"
      values = ["success": .bool(true), "sessionId": .string(sessionId ?? "")]
    case .refused:
      kind = "authResponse"
      values = ["success": .bool(false), "error": .string(Self.refusedText)]
    case .notAuthenticated:
      kind = "authResponse"
      values = ["success": .bool(false), "error": .string(Self.notAuthenticatedText)]
    case .malformed:
      kind = "authResponse"
      values = ["success": .bool(false), "error": .string(Self.malformedText)]
    case .pong:
      kind = "heartbeat"
      values = ["innerJSON": .string(Self.pongJSON)]
    }
    var all = values
    all["timestamp"] = .number(timestamp.isFinite ? timestamp : 0)
    return (try? FalconEyeCodec().craft(kind, values: CraftValues(all))) ?? []
  }
}
