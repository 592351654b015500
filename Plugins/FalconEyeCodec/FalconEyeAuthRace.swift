import PacketKit

/// The messages one socket lost to the Aerie server's auth race, as the
/// model says: predicted dropped (they came right after the 101), then
/// confirmed by what the server did later, or shown handled after all.
struct FalconEyeAuthRace {
  struct Dropped {
    var frame: Int?
    var time: Double
    var kind: String
    /// Seconds after the 101.
    var sinceAccept: Double?
    /// What showed it: "the server closed …", "the server answered …".
    var confirmation: String?
    var confirmedAt: Int?
  }

  private(set) var dropped: [Dropped] = []
  static let kept = 16

  mutating func predicted(frame: Int?, time: Double, kind: String, accept: Double?) {
    guard dropped.count < Self.kept else { return }
    dropped.append(Dropped(frame: frame, time: time, kind: kind, sinceAccept: accept.map { time - $0 }))
  }

  mutating func confirmed(frame: Int?, because: String, at evidence: Int?) {
    guard let index = dropped.firstIndex(where: { $0.frame == frame }) else { return }
    dropped[index].confirmation = because
    dropped[index].confirmedAt = evidence
  }

  /// The model showed it handled after all.
  mutating func handled(frame: Int?) {
    dropped.removeAll { $0.frame == frame && $0.confirmation == nil }
  }

  func isDropped(frame: Int?) -> Bool { dropped.contains { $0.frame == frame } }

  func time(of frame: Int?) -> Double? { dropped.first { $0.frame == frame }?.time }

  func kind(of frame: Int?) -> String? { dropped.first { $0.frame == frame }?.kind }

  /// The dropped authRequest, if the race took one.
  var authRequest: Dropped? { dropped.first { $0.kind == "authRequest" } }

  /// "596 µs after the 101 at frame 6".
  static func after(_ item: Dropped, accept: Int?) -> String {
    guard let since = item.sinceAccept else { return "right after the handshake" }
    return "\(Format.duration(since)) after the 101" + (accept.map { " at frame \($0)" } ?? "")
  }
}
