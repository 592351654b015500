import Foundation
import Testing

/// Rallie in the summary line and in -V, against the bytes tshark reads
/// from the same datagrams (docs/protocols.md: a command's byte 8 is control,
/// 0 stop and 1 start; byte 2 is the source, 0x83 for the app, 0x82 for
/// the machine; the last byte is the check).
@Suite struct RallieSummaryTests {
  static let capture = "Captures/rallie-udp.pcap"

  static func payloads() throws -> [Int: [UInt8]] {
    guard let tshark = Pktbench.which("tshark") else { return [:] }
    let result = try Pktbench.runProgram(
      tshark, ["-r", capture, "-Y", "udp", "-T", "fields", "-e", "frame.number", "-e", "udp.payload"])
    var out: [Int: [UInt8]] = [:]
    for line in result.text.split(separator: "\n") {
      let parts = line.split(separator: "\t")
      guard parts.count == 2, let frame = Int(parts[0]) else { continue }
      let hex = Array(parts[1].replacingOccurrences(of: ":", with: ""))
      out[frame] = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
        UInt8(String(hex[$0...$0 + 1]), radix: 16)
      }
    }
    return out
  }

  @Test func summaryLinesShowStartAndStop() throws {
    let payloads = try Self.payloads()
    guard !payloads.isEmpty else { return }
    let lines = try Pktbench.run(["decode", Self.capture]).text.split(separator: "\n")
    var seen: Set<String> = []
    for line in lines where line.contains("rallie command") {
      let frame = try #require(Int(line.split(separator: " ")[0]))
      let payload = try #require(payloads[frame])
      let control = payload[8] == 1 ? "start" : "stop"
      #expect(line.contains(" control=\(control)"), "frame \(frame): \(line)")
      seen.insert(control)
    }
    #expect(seen == ["start", "stop"])
  }

  @Test func verboseShowsSourceAndCheckInHex() throws {
    let payloads = try Self.payloads()
    guard !payloads.isEmpty else { return }
    let text = try Pktbench.run(["decode", Self.capture, "-V"]).text
    var checked = 0
    for block in text.components(separatedBy: "\n\n") where block.hasPrefix("Frame ") {
      let frame = try #require(Int(block.split(separator: " ")[1]))
      let payload = try #require(payloads[frame])
      let source = String(format: "0x%02X", payload[2])
      let check = String(format: "0x%02X", payload[payload.count - 1])
      #expect(block.contains("    source: \(source) "), "frame \(frame)")
      #expect(block.contains("    check: \(check) "), "frame \(frame)")
      checked += 1
    }
    #expect(checked == payloads.count)
  }
}
