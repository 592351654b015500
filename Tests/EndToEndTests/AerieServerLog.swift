import Foundation

/// What the real Aerie server logged (device-truth/falconeye/*.server.log,
/// Vapor's lines without times): the order it handled things in, one
/// outcome per connection opened or closed and per message received.
enum AerieServerLog {
  struct Outcome: Equatable, CustomStringConvertible {
    /// `opened`, `closed`, `frame_accepted`, `error_report`, `pong`,
    /// `authenticated`.
    var event: String
    /// For `authenticated`: the session id, whether it was reused, and
    /// whether the server marked the connection authenticated.
    var sessionId: String?
    var reused = false
    var marked = false

    var description: String {
      event == "authenticated"
        ? "authenticated(\(sessionId ?? "?"), \(reused ? "reused" : "new"), \(marked ? "marked" : "not marked"))"
        : event
    }
  }

  static func outcomes(_ path: String) throws -> [Outcome] {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    var outcomes: [Outcome] = []
    var pending = false
    for line in lines {
      if line.contains("New WebSocket connection") {
        outcomes.append(Outcome(event: "opened"))
      } else if line.contains("WebSocket connection closed") {
        outcomes.append(Outcome(event: "closed"))
      } else if line.contains("Message received") {
        pending = true
      } else if pending, line.contains("Camera frame received") {
        outcomes.append(Outcome(event: "frame_accepted"))
        pending = false
      } else if pending, line.contains("Failed to handle message") {
        outcomes.append(Outcome(event: "error_report"))
        pending = false
      } else if pending, line.contains("Heartbeat received and acknowledged") {
        outcomes.append(Outcome(event: "pong"))
        pending = false
      } else if pending, line.contains("Processing auth request") {
        outcomes.append(Outcome(event: "authenticated"))
        pending = false
      } else if line.contains("reusing session") || line.contains("new session created") {
        outcomes[outcomes.count - 1].sessionId = field("sessionId", in: line)
        outcomes[outcomes.count - 1].reused = line.contains("reusing session")
      } else if line.contains("Connection authenticated"), outcomes.last?.event == "authenticated" {
        outcomes[outcomes.count - 1].marked = true
      }
    }
    return outcomes
  }

  /// `sessionId: 7607C7E5-…` in a log line's bracketed metadata.
  static func field(_ name: String, in line: String) -> String? {
    guard let range = line.range(of: "\(name): ") else { return nil }
    return String(line[range.upperBound...].prefix { $0 != "," && $0 != "]" })
  }
}
