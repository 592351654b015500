import CodecRegistry
import FalconEyeCodec
import Foundation
import PacketKit

/// `listen ws --respond`: answers the FalconEye app as the Aerie server does
/// (PROTOCOLS.md §4). An authRequest whose token has the server's shape
/// (16…256 characters of base64) gets an authResponse with a fresh session
/// id; a heartbeat gets `{"pong": true}`; every reply is an envelope. The
/// connection handler enforces the timers (auth timeout, session expiry).
struct FalconEyeResponder {
  struct Configuration: Sendable {
    /// The shared secret: the server never verifies tokens with it, and
    /// neither does pktbench; it only notes whether the token matches.
    var secret: String?
    /// An unauthenticated socket is closed with 1008 after this long.
    var authTimeoutSeconds: Double = 10
    /// An authenticated session is closed with 1008 after this long.
    var sessionSeconds: Double = 3600
  }

  enum Reply {
    /// The bytes to send, and what they are for the log.
    case authAccepted(sessionId: String, bytes: [UInt8])
    case authRefused(reason: String, bytes: [UInt8])
    case pong(bytes: [UInt8])
  }

  var configuration: Configuration

  /// The reply to one decoded message, if it needs one.
  func reply(to frame: DecodedFrame) -> Reply? {
    guard frame.codec == "falconeye" else { return nil }
    switch frame.message {
    case "authRequest":
      let token = frame.fields.first(named: "token")?.value.stringValue ?? ""
      guard FalconEyeAuthToken.isAcceptedByServer(token) else {
        let reason = "Invalid token"
        return craft("authResponse", ["success": .bool(false), "error": .string(reason)]).map {
          .authRefused(reason: reason, bytes: $0)
        }
      }
      let sessionId = UUID().uuidString
      return craft("authResponse", ["success": .bool(true), "sessionId": .string(sessionId)]).map {
        .authAccepted(sessionId: sessionId, bytes: $0)
      }
    case "heartbeat":
      // The server's own pong is not answered.
      if frame.fields.first(named: "pong")?.value.boolValue == true { return nil }
      return craft("heartbeat", ["pong": .bool(true)]).map { .pong(bytes: $0) }
    default:
      return nil
    }
  }

  /// A note on whether the token is HMAC(secret, "deviceId:timestamp") for
  /// the envelope's timestamp. The app signs a timestamp it never sends, so
  /// a mismatch is expected from the app; pktbench's own `send` matches.
  func secretNote(for frame: DecodedFrame) -> Diagnostic? {
    guard let secret = configuration.secret, frame.message == "authRequest",
      let token = frame.fields.first(named: "token")?.value.stringValue,
      let deviceId = frame.fields.first(named: "deviceId")?.value.stringValue,
      let timestamp = frame.fields.first(named: "timestamp")?.value.numericValue,
      let codec = Codecs.named("falconeye"),
      let expected = try? codec.craft(
        "authRequest",
        values: CraftValues([
          "deviceId": .string(deviceId), "secret": .string(secret), "timestamp": .number(timestamp),
        ])),
      let expectedToken = codec.decodeFrame(expected).decodedFields?.first(named: "token")?.value
        .stringValue
    else { return nil }
    if expectedToken == token {
      return .note(
        "token-matches-secret",
        "the token is HMAC-SHA256(--secret, \"deviceId:timestamp\") for the envelope's timestamp")
    }
    return .note(
      "token-not-checked",
      "the token does not match --secret for the envelope's timestamp (the app signs a timestamp it "
        + "does not send); accepted anyway, as the server only checks its shape")
  }

  private func craft(_ message: String, _ values: [String: FieldValue]) -> [UInt8]? {
    guard let codec = Codecs.named("falconeye") else { return nil }
    return try? codec.craft(message, values: CraftValues(values))
  }
}

extension FrameDecode {
  var decodedFields: [DissectionNode]? {
    if case .decoded(let frame) = self { return frame.fields }
    return nil
  }
}
