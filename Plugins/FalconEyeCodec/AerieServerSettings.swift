import PacketKit

/// The Aerie server model's settings (`emulate falconeye --aerie-bugs
/// --auth-timeout 10s …`), checked once when the model is made.
struct AerieServerSettings: Sendable, Equatable {
  /// The server's auth timer (`WebSocketController.authTimeout`).
  var authTimeout = 10.0
  /// `SessionManager`'s session lifetime.
  var sessionTTL = 3600.0
  /// Reproduce the recorded server's two bugs: the auth race and Vapor's
  /// default 16 KiB frame limit. Analysis always models the recorded server.
  var aerieBugs = false
  /// The shared secret: the server never checks tokens against it; the model
  /// only notes whether a token is its HMAC.
  var secret: String?
  /// Session ids are drawn from it, so an emulator run can be replayed.
  var seed: UInt64 = 0

  static let schema: [ModelSettingSchema] = [
    ModelSettingSchema(
      flag: "aerie-bugs",
      help: "Reproduce the recorded server's auth race (messages within 30 ms of the 101 are dropped) "
        + "and its 16 KiB frame limit (close 1009).", kind: .flag),
    ModelSettingSchema(
      flag: "auth-timeout", help: "Close an unauthenticated socket with 1008 this long after the 101.",
      kind: .value("DURATION"), defaultValue: "10s"),
    ModelSettingSchema(
      flag: "session-ttl", help: "A session expires this long after authentication (the socket stays open).",
      kind: .value("DURATION"), defaultValue: "3600s"),
    ModelSettingSchema(
      flag: "secret",
      help: "The shared secret: say whether each token is its HMAC (tokens are accepted by shape, as the "
        + "server does).", kind: .value("SECRET")),
    ModelSettingSchema(
      flag: "seed", help: "Draw session ids from this number (emulate passes a random one).",
      kind: .value("N"), defaultValue: "0"),
  ]

  init() {}

  init(_ settings: ModelSettings, mode: ModelMode) throws(ModelSettingError) {
    let known = Set(Self.schema.map(\.flag))
    if let unknown = settings.keys.sorted().first(where: { !known.contains($0) }) {
      throw ModelSettingError(
        "the Aerie server has no setting --\(unknown); it takes "
          + Self.schema.map { "--\($0.flag)" }.joined(separator: ", "))
    }
    if let text = settings["auth-timeout"] { authTimeout = try Self.duration(text, flag: "auth-timeout") }
    if let text = settings["session-ttl"] { sessionTTL = try Self.duration(text, flag: "session-ttl") }
    if let text = settings["aerie-bugs"] { aerieBugs = try Self.flag(text, flag: "aerie-bugs") }
    // A capture is read against the server as recorded, bugs and all.
    if mode == .analysis { aerieBugs = true }
    if let text = settings["secret"] {
      guard !text.isEmpty else { throw ModelSettingError("--secret must not be empty") }
      secret = text
    }
    if let text = settings["seed"] {
      guard let value = UInt64(text) else {
        throw ModelSettingError("--seed must be a whole number from 0 to \(UInt64.max), not \"\(text)\"")
      }
      seed = value
    }
  }

  /// `10s`, `500ms`, `2m`, `1h` or plain seconds; more than 0.
  static func duration(_ text: String, flag: String) throws(ModelSettingError) -> Double {
    let lowered = text.lowercased()
    var number = Substring(lowered)
    var scale = 1.0
    for (suffix, factor) in [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
    where lowered.hasSuffix(suffix) {
      number = lowered.dropLast(suffix.count)
      scale = factor
      break
    }
    guard let value = Double(number), value.isFinite, value > 0, value * scale < 1e9 else {
      throw ModelSettingError(
        "--\(flag) must be a duration more than 0 such as 10s, 500ms, 2m or 1h, not \"\(text)\"")
    }
    return value * scale
  }

  /// "10 s", "1 h", "500 ms": a setting's duration for texts.
  static func words(_ seconds: Double) -> String {
    for (unit, scale) in [("h", 3600.0), ("min", 60.0), ("s", 1.0)] where seconds >= scale {
      let value = seconds / scale
      if value == value.rounded(), value < 1e9 { return "\(Int(value)) \(unit)" }
    }
    return Format.duration(seconds)
  }

  /// A flag's value as the driver passes it: given alone, or spelled out.
  static func flag(_ text: String, flag: String) throws(ModelSettingError) -> Bool {
    switch text.lowercased() {
    case "", "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default: throw ModelSettingError("--\(flag) takes no value (or true/false), not \"\(text)\"")
    }
  }
}
