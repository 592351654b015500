/// The bytes every connection of one WebSocket listener holds for frames
/// and messages not yet whole, against `--max-buffered`. Past the limit the
/// connection holding the most is cut: one flood of partial frames cannot
/// take the machine's memory, and the cut is said, never silent.
final class ConnectionBudget {
  /// Why a connection was cut, as the summary counts them.
  enum Cut: CaseIterable {
    case slowHead, overBudget, protocolError
  }

  let limit: Int
  let headTimeoutNanoseconds: UInt64
  private(set) var total = 0
  private var guards: [ObjectIdentifier: ConnectionGuard] = [:]
  private var cuts: [Cut: Int] = [:]

  init(settings: WebSocketServerSettings) {
    limit = settings.maxBufferedBytes
    headTimeoutNanoseconds = settings.headTimeoutNanoseconds
  }

  var connectionCount: Int { guards.count }

  func register(_ connection: ConnectionGuard) {
    guards[ObjectIdentifier(connection)] = connection
  }

  func unregister(_ connection: ConnectionGuard) {
    guards[ObjectIdentifier(connection)] = nil
  }

  /// More bytes held; cuts the largest holders until the total fits.
  func charge(_ bytes: Int) {
    total += bytes
    while total > limit, let largest = guards.values.max(by: { $0.buffered < $1.buffered }),
      largest.buffered > 0
    {
      largest.cutOverBudget(total: total, limit: limit, connections: guards.count)
      // A connection that could not be cut (already closing) still leaves the reckoning, so this ends.
      if guards[ObjectIdentifier(largest)] != nil {
        release(largest.buffered)
        unregister(largest)
      }
    }
  }

  func release(_ bytes: Int) {
    total = max(0, total - bytes)
  }

  func count(_ cut: Cut) {
    cuts[cut, default: 0] += 1
  }

  /// One line for the summary, or none when nothing was cut.
  func summaryLines(headTimeout: String) -> [String] {
    let all = cuts.values.reduce(0, +)
    guard all > 0 else { return [] }
    var parts: [String] = []
    if let n = cuts[.slowHead] { parts.append("\(n) with no whole request head within \(headTimeout)") }
    if let n = cuts[.overBudget] {
      parts.append("\(n) over --max-buffered \(ByteCountArgument.text(limit))")
    }
    if let n = cuts[.protocolError] { parts.append("\(n) for a protocol error (closed with 1002)") }
    return ["connections cut: \(all) (\(parts.joined(separator: ", ")))"]
  }
}
