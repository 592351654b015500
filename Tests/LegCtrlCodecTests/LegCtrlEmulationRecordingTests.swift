import Foundation
import PacketKit
import Testing

@testable import LegCtrlCodec

/// The firmware's recordings, beside the repository.
enum LegCtrlRecordings {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../shared/device-truth/legctrl").standardizedFileURL
  static var arePresent: Bool { FileManager.default.fileExists(atPath: root.path) }
}

/// The emulated firmware fed the writes the real firmware logged, at the
/// times it logged them (`../shared/device-truth/legctrl`), sends telemetry
/// whose state/error_code sequence is the firmware's — and still does when
/// every write comes up to 8 ms late, as a loaded machine delivers them.
@Suite(.enabled(if: LegCtrlRecordings.arePresent, "needs ../shared/device-truth beside the repository"))
struct LegCtrlEmulationRecordingTests {

  typealias Pair = [UInt8]

  struct Recording {
    /// The writes as the firmware got them: its clock, the bytes.
    var writes: [(time: Double, bytes: [UInt8])] = []
    /// Its telemetry's (state, error_code), repeats collapsed, from its first command on.
    var telemetry: [Pair] = []
  }

  static func collapsed(_ pairs: [Pair]) -> [Pair] {
    pairs.reduce(into: []) { out, pair in if out.last != pair { out.append(pair) } }
  }

  static func recording(_ name: String) throws -> Recording {
    let text = try String(
      contentsOf: LegCtrlRecordings.root.appendingPathComponent("\(name).firmware.jsonl"), encoding: .utf8)
    var recording = Recording()
    var pairs: [Pair] = []
    for line in text.split(separator: "\n") {
      let entry = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let time = try #require(entry["t"] as? Double)
      let logged = entry["text"] as? String ?? ""
      if entry["event"] as? String == "log", logged.hasPrefix("CMD received: ") {
        let bytes = logged.dropFirst("CMD received: ".count).split(separator: " ").compactMap {
          UInt8($0, radix: 16)
        }
        recording.writes.append((time, bytes))
      } else if entry["event"] as? String == "telemetry_sent", !recording.writes.isEmpty,
        let hex = entry["hex"] as? String, hex.count >= 12
      {
        let bytes = Array(hex.utf8)
        func byte(_ index: Int) -> UInt8 {
          UInt8(String(decoding: bytes[(2 * index)..<(2 * index + 2)], as: UTF8.self), radix: 16) ?? 0xFF
        }
        pairs.append([byte(4), byte(5)])
      }
    }
    recording.telemetry = collapsed(pairs)
    return recording
  }

  /// The emulated firmware's telemetry for `writes`, each `delay(index)` late.
  static func emulated(
    _ writes: [(time: Double, bytes: [UInt8])], settings: ModelSettings, delay: (Int) -> Double
  ) throws -> [Pair] {
    var flow = try LegCtrlFirmwareModelTests.Flow(mode: .emulation, settings: settings)
    var time = -Double.infinity
    for (index, write) in writes.enumerated() {
      // Late, but in order: one socket delivers in order.
      time = max(time, write.time + delay(index))
      flow.write(write.bytes, at: time)
    }
    flow.pass((writes.last?.time ?? 0) + 1)
    let pairs = flow.named("telemetry").compactMap { event -> Pair? in
      guard case .send(let bytes)? = event.replies.first, bytes.count >= 6 else { return nil }
      return [bytes[4], bytes[5]]
    }
    return collapsed(pairs)
  }

  // The reconnect recording's link drop is invisible to an emulator on a
  // socket (EmulateLegCtrlTests says what it does instead).
  @Test(arguments: ["deadman", "keepalive", "edge", "i2c"])
  func telemetryFollowsTheFirmwareThroughLateWrites(_ name: String) throws {
    let recording = try Self.recording(name)
    #expect(recording.writes.count > 10)
    #expect(recording.telemetry.count > 2)
    let settings: ModelSettings = name == "i2c" ? ["i2c-fail-us": "1234"] : [:]
    #expect(try Self.emulated(recording.writes, settings: settings) { _ in 0 } == recording.telemetry)
    // Late by up to 8 ms, each write on its own (a fixed seed, so a failure repeats).
    var generator = SplitMix64(seed: 0x5EED)
    for run in 0..<20 {
      let delays = recording.writes.indices.map { _ in Double(generator.next() % 8_001) / 1e6 }
      let late = try Self.emulated(recording.writes, settings: settings) { delays[$0] }
      #expect(late == recording.telemetry, "\(name), run \(run): \(late)")
    }
  }
}
