/// A client message the model keeps while its fate is open (analysis): the
/// reply the server owes for it, or — for one that arrived while the
/// server's text handler was being registered — whether it was handled at
/// all. The server's own replies settle both.
struct AerieExpectation: Sendable {
  enum Fate: Sendable, Equatable {
    /// Handled: `reply` is owed.
    case handled
    /// It arrived during the auth race: handled or dropped, as the
    /// registration fell; `predictedDropped` is what the model said.
    case racing(predictedDropped: Bool)
  }

  /// A serial number, to find it again.
  var id: Int
  var frame: Int?
  var time: Double
  var request: AerieRequest
  /// What the server sends if it handled the message; nil for nothing.
  var reply: AerieReply?
  var fate: Fate
  /// For a camera frame while the auth race is open: the authRequest whose
  /// fate decides whether the frame is accepted or reported.
  var hinge: Int?
  /// Sent after a message over Vapor's limit, while the 1009 is only
  /// expected: owed a reply only if the server turns out to take it.
  var afterLimit = false

  var isRacing: Bool {
    if case .racing = fate { return true }
    return false
  }

  /// "the authRequest at frame 8".
  var named: String { "the \(request.kind) at frame \(frame.map(String.init) ?? "?")" }
}
