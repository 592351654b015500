import Crypto
import Foundation
import PacketKit

/// The auth token: base64 of HMAC-SHA256 keyed with the UTF-8 shared secret.
///
/// The app and the server's generator sign different messages, the server
/// only checks the token's shape (16…256 characters of base64), and the
/// signed timestamp is never sent — so no one, the server included, can
/// verify a token. pktbench says so on every auth exchange.
public enum FalconEyeAuthToken {
  /// What the iPhone app sends (seed 004, `generateAuthToken`): it signs
  /// `"<deviceId>:<timestamp>"`, the timestamp formatted by Swift's `"\(Double)"`
  /// interpolation (`1700000000.5`, `1700000000.0`).
  public static func client(deviceId: String, timestamp: Double, secret: String) -> String {
    sign(message: "\(deviceId):\(timestamp)", secret: secret)
  }

  /// What the server's own token generator produces: it signs
  /// `"<deviceId>:<timestamp>:<nonce>:<secret>"`.
  public static func server(deviceId: String, timestamp: Double, nonce: String, secret: String)
    -> String
  {
    sign(message: "\(deviceId):\(timestamp):\(nonce):\(secret)", secret: secret)
  }

  /// base64(HMAC-SHA256(key: secret, message)).
  public static func sign(message: String, secret: String) -> String {
    let key = SymmetricKey(data: Data(secret.utf8))
    let code = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)
    return FalconEyeBase64.encode(Array(code))
  }

  /// The server's only check: 16…256 characters of valid base64.
  public static let serverRule = TextRule.base64(characters: 16...256)

  /// Whether the server accepts `token` (`serverRule`).
  public static func isAcceptedByServer(_ token: String) -> Bool {
    serverRule.characters.contains(token.utf8.count) && FalconEyeBase64.isValid(token)
  }

  /// A nonce for server signing: 32 lower-case hex digits (16 random bytes).
  public static func randomNonce() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return Hex.compact(bytes)
  }
}
