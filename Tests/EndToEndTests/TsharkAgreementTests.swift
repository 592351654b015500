import Foundation
import Testing

/// Frame counts, timestamps and UDP payloads of every capture in Captures/
/// agree with tshark (when tshark is installed; scripts/test.sh installs it).
@Suite struct TsharkAgreementTests {
  static var captures: [String] {
    let root = Pktbench.root.appendingPathComponent("Captures")
    var found: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
      if path.hasSuffix(".pcap") || path.hasSuffix(".pcapng") { found.append("Captures/\(path)") }
    }
    return found.sorted()
  }

  @Test func capturesExist() {
    #expect(Self.captures.count >= 8)
  }

  @Test(arguments: captures)
  func agreesWithTshark(capture: String) throws {
    guard let tshark = Pktbench.which("tshark") else { return }
    let shark = try Pktbench.runProgram(
      tshark,
      [
        "-r", capture, "-T", "fields", "-E", "separator=/t", "-e", "frame.number", "-e", "frame.time_epoch",
        "-e", "udp.length",
        "-e", "udp.payload",
      ])
    // (frame, time, UDP payload hex, or nil when the frame carries no UDP)
    var sharkFrames: [(Int, Double, String?)] = []
    for line in shark.text.split(separator: "\n") {
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard columns.count >= 2, let frame = Int(columns[0]), let time = Double(columns[1]) else { continue }
      let isUDP = columns.count > 2 && !columns[2].isEmpty
      sharkFrames.append((frame, time, isUDP ? (columns.count > 3 ? columns[3] : "") : nil))
    }
    #expect(!sharkFrames.isEmpty)

    let stats = try Pktbench.run(["decode", capture, "--stats", "--format", "json"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout)) as? [String: Any])
    #expect(object["records"] as? Int == sharkFrames.count, "\(capture) record count")
    if let first = sharkFrames.first, let last = sharkFrames.last {
      #expect(abs((object["first_time"] as? Double ?? 0) - first.1) < 1e-6)
      #expect(abs((object["last_time"] as? Double ?? 0) - last.1) < 1e-6)
    }

    let decoded = try Pktbench.run(["decode", capture, "--format", "ndjson", "--payload-hex"])
    var ours: [Int: (Double, String)] = [:]
    for line in decoded.text.split(separator: "\n") {
      guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        record["transport"] as? String == "udp", let frame = record["frame"] as? Int
      else { continue }
      ours[frame] = (record["time"] as? Double ?? 0, record["payload"] as? String ?? "")
    }
    let sharkUDP = sharkFrames.compactMap { frame, time, payload in payload.map { (frame, time, $0) } }
    #expect(
      ours.count == sharkUDP.count, "\(capture): \(ours.count) UDP datagrams vs tshark \(sharkUDP.count)")
    for (frame, time, payload) in sharkUDP {
      let mine = try #require(ours[frame], "\(capture) frame \(frame) missing")
      #expect(abs(mine.0 - time) < 1e-6, "\(capture) frame \(frame) time")
      #expect(mine.1 == payload, "\(capture) frame \(frame) payload")
    }
  }
}
