/// What the Aerie server keeps per `deviceId` (the WebSocket path's last
/// segment), whichever socket brought it: one entry in
/// its `ConnectionManager` — the device's latest socket, authenticated or
/// not — and one session in its `SessionManager`.
struct AerieDevice: Sendable {
  /// The socket (client endpoint) whose 101 made the entry; nil once any
  /// of the device's sockets closed and removed it.
  var entry: String?
  /// The entry is marked authenticated (for every socket of the device).
  var authenticated = false
  /// False while only a socket seen mid-session speaks for the device:
  /// what the server holds is unknown.
  var known = false
  /// The device has a session (until a close revokes it), with its id
  /// once known (analysis learns it from the server's authResponse).
  var hasSession = false
  var sessionId: String?
  var sessionExpired = false
  var expiryDeadline: Double?

  /// Whether an authRequest reuses the session (the server looks the
  /// device's session up before making one).
  var hasLiveSession: Bool { hasSession && !sessionExpired }

  /// A new socket's 101: it becomes the entry, unauthenticated.
  mutating func opened(_ socket: String) {
    entry = socket
    authenticated = false
    known = true
  }

  /// A socket of the device closed: the entry goes and the session is revoked.
  mutating func removed() {
    entry = nil
    authenticated = false
    known = true
    hasSession = false
    sessionId = nil
    sessionExpired = false
    expiryDeadline = nil
  }

  /// An authRequest the server handled: the session (`id`, nil when the
  /// capture does not show it) and the entry, if there still is one.
  mutating func authenticate(sessionId id: String?, at time: Double, ttl: Double) {
    if !hasLiveSession || (id != nil && sessionId != nil && id != sessionId) {
      hasSession = true
      sessionExpired = false
      expiryDeadline = time + ttl
      sessionId = id
    } else if sessionId == nil {
      sessionId = id
    }
    known = true
    if entry != nil { authenticated = true }
  }
}
