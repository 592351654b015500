import PacketKit

/// Checks a FalconEye auth token against a known secret. The app signs
/// `"<deviceId>:<timestamp>"` (docs/protocols.md §4) but never sends the signed
/// timestamp, so the check tries the seconds just before the envelope was
/// stamped, written as an integer and as Swift writes a Double.
enum FalconEyeTokenCheck {
  /// How far before the envelope's timestamp the token may have been made.
  static let lookBack = 30
  static let lookAhead = 2

  /// The signed string that reproduces `token`, or nil.
  static func signedString(
    token: String, deviceId: String, envelopeTimestamp: Double?, secret: String
  ) -> String? {
    for candidate in candidates(deviceId: deviceId, around: envelopeTimestamp)
    where FalconEyeAuthToken.sign(message: candidate, secret: secret) == token {
      return candidate
    }
    return nil
  }

  static func candidates(deviceId: String, around timestamp: Double?) -> [String] {
    guard let timestamp, timestamp.isFinite, abs(timestamp) < 1e15 else { return [] }
    var out = ["\(deviceId):\(timestamp)"]
    let whole = Int64(timestamp.rounded(.down))
    for second in (whole - Int64(lookBack))...(whole + Int64(lookAhead)) {
      out.append("\(deviceId):\(second)")
      out.append("\(deviceId):\(Double(second))")
    }
    return out
  }
}
