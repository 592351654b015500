import Foundation
import PacketKit
import RallieCodec
import Testing

/// Where the Rallie app's recordings live: beside the repository.
private let rallieRecordings = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("../shared/device-truth/rallie").standardizedFileURL

private let rallieRecordingsArePresent = FileManager.default.fileExists(atPath: rallieRecordings.path)

/// The Rallie app's own code, recorded (../shared/device-truth/rallie): its
/// parser's verdict on each response frame and the frames its encoder wrote.
/// The recordings live beside the repository, as the other device-truth
/// suites' do: without them the suite is skipped, not failed.
@Suite(.enabled(if: rallieRecordingsArePresent, "needs ../shared/device-truth beside the repository"))
struct RallieDeviceTruthTests {
  static let directory = rallieRecordings

  /// The lines of a recording, each a JSON object.
  static func lines(_ name: String) throws -> [[String: Any]] {
    let data = try Data(contentsOf: directory.appendingPathComponent(name))
    return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }
  }

  static func response(_ bytes: [UInt8], frame: Int) -> FlowMessage {
    FlowMessage(
      frame: frame, time: 100 + Double(frame), source: "machine:9100", destination: "app:40000",
      transport: "udp", codec: "rallie", result: RallieCodec().decodeFrame(bytes), payload: bytes)
  }

  @Test func everyParserLineIsTheAppsOutcome() throws {
    let lines = try Self.lines("app-parser.jsonl")
    #expect(lines.count >= 15)
    var model = RallieModel(mode: .analysis, checksum: nil)
    var stored: String?
    for (index, line) in lines.enumerated() {
      let hex = try #require(line["frame"] as? String)
      let bytes = try Hex.parse(hex)
      let events = model.take(Self.response(bytes, frame: index + 1), heading: .fromDevice)
      let event = try #require(events.first, "\(hex)")
      #expect(events.count == 1)
      #expect(event.certain, "\(hex): this app build's parser is known")
      #expect(event.mismatch == nil)
      switch line["app"] as? String {
      case "accepted":
        let code = try #require(line["code"] as? Int)
        #expect(RallieAppParser.parse(bytes) == .accepted(code: UInt8(code)), "\(hex)")
        #expect(event.name == "response_accepted", "\(hex)")
        let names = [0: "rejected", 1: "accepted", 2: "completed"]
        stored = names[code] ?? "unknown(\(code))"
        #expect(event.state("last_code") == .string(stored ?? ""), "\(hex)")
      case "dropped":
        let why = try #require(line["why"] as? String)
        let drop = try #require(RallieAppParser.Drop(rawValue: why), "\(why) is a word of the app's log")
        #expect(RallieAppParser.parse(bytes) == .dropped(drop), "\(hex)")
        #expect(event.name == "response_dropped", "\(hex)")
        #expect(event.text.hasPrefix("\(why):"), "\(hex): \(event.text)")
        // A dropped frame leaves the code the app stored before.
        #expect(event.state("last_code") == stored.map { .string($0) } ?? .null, "\(hex)")
      default:
        Issue.record("unknown outcome in \(line)")
      }
    }
  }

  /// Each frame written for direct inputs is the codec's encoding of those
  /// inputs clamped as the app clamps them. The court-zone frames come from
  /// the app's lookup table, which is not documented: they are skipped.
  @Test func everyEncoderFrameWithInputsIsTheClampedCommand() throws {
    let lines = try Self.lines("app-encoder.jsonl")
    var checked = 0
    for line in lines {
      let hex = try #require(line["frame"] as? String)
      #expect(line["write"] as? String == "withResponse", "§3: written with response")
      guard let inputs = line["inputs"] as? [String: Int] else {
        #expect(line["zone"] != nil, "\(hex) has neither inputs nor a zone")
        continue
      }
      func byte(_ key: String) throws -> UInt8 {
        let value = try #require(inputs[key], "\(key) in \(inputs)")
        return try #require(UInt8(exactly: value), "the app's inputs are bytes")
      }
      let message = RallieAppEncoder.command(
        upper: try byte("upper"), lower: try byte("lower"), pitch: try byte("pitch"), yaw: try byte("yaw"),
        feed: try byte("feed"), control: try byte("control"))
      #expect(try RallieCodec().encode(message) == Hex.parse(hex), "\(inputs)")
      checked += 1
    }
    #expect(checked >= 5)
  }

  /// Every frame the app wrote is one the machine model takes (XOR, in
  /// range) when it checks XOR.
  @Test func everyAppFrameIsTakenByAnXorMachine() throws {
    for line in try Self.lines("app-encoder.jsonl") {
      let bytes = try Hex.parse(try #require(line["frame"] as? String))
      let verdict = RallieMachineVerdict.judge(bytes, check: RallieMachineCheck(configured: .xor))
      #expect(verdict.taken && verdict.certain, "\(line)")
    }
  }
}
