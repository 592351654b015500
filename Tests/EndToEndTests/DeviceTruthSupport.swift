import Foundation
import Testing

/// The recordings of the real devices' code at work (`../shared/device-truth`):
/// a capture and the device's own log on one clock. A device model is right
/// when `analyze --timeline` on the capture predicts the log.
enum DeviceTruth {
  static let root = Pktbench.root.deletingLastPathComponent().appendingPathComponent("shared/device-truth")

  static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

  static var isPresent: Bool { FileManager.default.fileExists(atPath: root.path) }

  /// One JSON object per line.
  static func log(_ relative: String) throws -> [[String: Any]] {
    let text = try String(contentsOfFile: path(relative), encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  /// One event of `analyze --timeline`.
  struct Event {
    var json: [String: Any]
    var name: String { json["event"] as? String ?? "" }
    var time: Double { json["time"] as? Double ?? .nan }
    var frame: Int? { json["frame"] as? Int }
    var certain: Bool { json["certain"] as? Bool ?? false }
    var state: [String: Any] { json["state"] as? [String: Any] ?? [:] }
  }

  /// `pktbench analyze CAPTURE --timeline` with `extra` arguments, for a
  /// recording under device-truth.
  static func timeline(_ capture: String, _ extra: [String] = []) throws -> [Event] {
    try timelineOf(path(capture), extra)
  }

  /// `pktbench analyze PATH --timeline` with `extra` arguments.
  static func timelineOf(_ capture: String, _ extra: [String] = []) throws -> [Event] {
    let result = try Pktbench.run(["analyze", capture, "--timeline"] + extra)
    #expect(result.status == 0, "\(capture): \(result.stderr)")
    return try result.text.split(separator: "\n").map { line in
      Event(json: try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
    }
  }
}
