/// What every connection of one WebSocket listener holds, against
/// `--max-buffered`: bytes read for frames and messages not yet whole, and
/// bytes written (pongs, replies) that the peer has not taken. Past the
/// limit the connection holding the most is cut: one flood cannot take the
/// machine's memory, and the cut is said, never silent. It also keeps the
/// connections to `--max-connections`: past it a new client is refused.
final class ConnectionBudget {
  /// Why a connection was cut (or refused), as the summary counts them.
  package enum Cut: CaseIterable {
    case slowHead, overBudget, protocolError, invalidText, idle, refused
  }

  package let limit: Int
  package let headTimeoutNanoseconds: UInt64
  package let idleTimeoutNanoseconds: UInt64
  package let maxConnections: Int
  package private(set) var total = 0
  private var guards: [ObjectIdentifier: ConnectionGuard] = [:]
  private var cuts: [Cut: Int] = [:]

  package init(settings: WebSocketServerSettings) {
    limit = settings.maxBufferedBytes
    headTimeoutNanoseconds = settings.headTimeoutNanoseconds
    idleTimeoutNanoseconds = settings.idleTimeoutNanoseconds
    maxConnections = settings.maxConnections
  }

  var connectionCount: Int { guards.count }

  /// Whether one more connection fits under `--max-connections`.
  var hasRoom: Bool { guards.count < maxConnections }

  package func register(_ connection: ConnectionGuard) {
    guards[ObjectIdentifier(connection)] = connection
  }

  func unregister(_ connection: ConnectionGuard) {
    guards[ObjectIdentifier(connection)] = nil
  }

  /// More bytes held; cuts the largest holders until the total fits.
  func charge(_ bytes: Int) {
    total += bytes
    while total > limit, let largest = guards.values.max(by: { $0.holding < $1.holding }), largest.holding > 0
    {
      largest.cutOverBudget(total: total, limit: limit, connections: guards.count)
      // A connection that could not be cut (already closing) still leaves the reckoning, so this ends.
      if guards[ObjectIdentifier(largest)] != nil {
        release(largest.holding)
        unregister(largest)
      }
    }
  }

  package func release(_ bytes: Int) {
    total = max(0, total - bytes)
  }

  package func count(_ cut: Cut) {
    cuts[cut, default: 0] += 1
  }

  /// One line for the summary, or none when nothing was cut.
  package func summaryLines(headTimeout: String, idleTimeout: String) -> [String] {
    var lines: [String] = []
    let all = cuts.filter { $0.key != .refused }.values.reduce(0, +)
    if all > 0 {
      var parts: [String] = []
      if let n = cuts[.slowHead] { parts.append("\(n) with no whole request head within \(headTimeout)") }
      if let n = cuts[.overBudget] {
        parts.append("\(n) over --max-buffered \(ByteCountArgument.text(limit))")
      }
      if let n = cuts[.protocolError] { parts.append("\(n) for a protocol error (closed with 1002)") }
      if let n = cuts[.invalidText] { parts.append("\(n) for text that is not UTF-8 (closed with 1007)") }
      if let n = cuts[.idle] { parts.append("\(n) idle for \(idleTimeout)") }
      lines.append("connections cut: \(all) (\(parts.joined(separator: ", ")))")
    }
    if let n = cuts[.refused] {
      lines.append("connections refused: \(n) (--max-connections \(maxConnections) were open)")
    }
    return lines
  }
}
