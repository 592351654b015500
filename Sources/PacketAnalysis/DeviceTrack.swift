import PacketKit

/// What a modelled device did over time, for the HTML report's lanes: its
/// state at each change (with the client whose record changed it), and the
/// events that came of time (a watchdog stop, a deadman trip). Bounded:
/// past `limit` points the rest is counted, not kept.
struct DeviceTrack {
  package static let limit = 4096

  struct Point {
    package var time: Double
    package var state: [FieldValue.Member]
    /// The event, when it came of time rather than of a message.
    package var timed: (name: String, certain: Bool, text: String)?
    /// The client flow whose record (or connection) the event concerns.
    package var client: Int?
  }

  package private(set) var points: [Point] = []
  /// State keys in the order the model first gave them.
  package private(set) var keys: [String] = []
  package private(set) var dropped = 0
  private var last: [FieldValue.Member] = []

  package mutating func add(_ event: DeviceEvent, client: Int? = nil) {
    let timed = event.frame == nil
    guard timed || !Self.same(event.state, last) else { return }
    last = event.state
    guard points.count < Self.limit else {
      dropped += 1
      return
    }
    for member in event.state where !keys.contains(member.key) { keys.append(member.key) }
    points.append(
      Point(
        time: event.time, state: event.state, timed: timed ? (event.name, event.certain, event.text) : nil,
        client: client))
  }

  /// Key by key and value by value, which costs less here than the arrays'
  /// `==` (it runs for every device event).
  private static func same(_ a: [FieldValue.Member], _ b: [FieldValue.Member]) -> Bool {
    guard a.count == b.count else { return false }
    for index in a.indices where a[index].key != b[index].key || a[index].value != b[index].value {
      return false
    }
    return true
  }
}
