import PacketKit

/// The Aerie server's error reports on one socket, paired with the message
/// each answered: the model says which client messages the server reports
/// an error for, the capture shows the reports (an authResponse with
/// success false), and reports of one kind come in order.
struct FalconEyeErrorReports {
  struct Stamp {
    var frame: Int?
    var time: Double
  }

  struct Report {
    var request: Stamp?
    var requestKind: String
    var reply: Stamp
    var error: String
  }

  /// Messages the model said the server reports an error for, not yet answered.
  private var awaiting: [(request: Stamp, kind: String, reply: AerieReply)] = []
  /// Answered, by kind: notAuthenticated first, then the could-not-decode ones.
  private(set) var reports: [AerieReply: [Report]] = [:]
  static let kept = 64

  /// The model predicted an error report for this message.
  mutating func expect(_ request: Stamp, kind: String) {
    let reply: AerieReply = kind == "cameraFrame" ? .notAuthenticated : .malformed
    if awaiting.count >= Self.kept { awaiting.removeFirst() }
    awaiting.append((request, kind, reply))
  }

  /// The model took back a prediction (the message was handled otherwise).
  mutating func forget(frame: Int?) {
    awaiting.removeAll { $0.request.frame == frame }
  }

  /// The server sent an error report: pairs it with the oldest message
  /// awaiting one of its kind.
  mutating func observed(_ reply: AerieReply, at stamp: Stamp, error: String) {
    guard reply.isErrorReport else { return }
    var request: Stamp?
    var kind = "message"
    if let index = awaiting.firstIndex(where: { $0.reply == reply }) {
      request = awaiting[index].request
      kind = awaiting[index].kind
      awaiting.remove(at: index)
    }
    var list = reports[reply, default: []]
    if list.count < Self.kept {
      list.append(Report(request: request, requestKind: kind, reply: stamp, error: error))
    }
    reports[reply] = list
  }

  /// The latest report answered a raced message the model now says was handled.
  mutating func attachLast(to request: Stamp, kind: String) {
    for reply in [AerieReply.notAuthenticated, .malformed] {
      guard var list = reports[reply], let index = list.lastIndex(where: { $0.request == nil }) else {
        continue
      }
      list[index].request = request
      list[index].requestKind = kind
      reports[reply] = list
      return
    }
  }

  var count: Int { reports.values.reduce(0) { $0 + $1.count } }
}
