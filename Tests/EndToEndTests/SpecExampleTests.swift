import Foundation
import Testing

/// `Examples/beacon.ksy`, the README's spec-file example: the Beacon
/// protocol of `Examples/ExternalCodec/` without Swift. It decodes that
/// example's capture to the values its Python generator packed, and crafts
/// the bytes Python's `struct` packs for the README's reading.
@Suite struct SpecExampleTests {
  static let spec = "Examples/beacon.ksy"
  static let capture = "Examples/ExternalCodec/Captures/beacon.pcap"

  @Test func decodesTheExampleCaptureAsItsGeneratorWroteIt() throws {
    let result = try Pktbench.run(["decode", "--spec", Self.spec, Self.capture, "--format", "ndjson"])
    #expect(result.status == 0, "\(result.stderr)")
    let records = result.text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(records.count == 11)
    let readings = records.filter { $0["message"] as? String == "reading" }
    let acks = records.filter { $0["message"] as? String == "ack" }
    #expect(acks.count == 5)
    // make_beacon_capture.py: seq 0…5, moisture 40 + seq, tenths 185 − 3·seq,
    // 3700 − 10·seq mV, low_battery at seq 5; seq 3's check byte spoiled.
    #expect(readings.count == 5)
    for reading in readings {
      let fields = try #require(reading["fields"] as? [String: Any])
      let seq = try #require(fields["seq"] as? Int)
      #expect(fields["moisture"] as? Int == 40 + seq)
      #expect(fields["temperature_tenths"] as? Int == 185 - 3 * seq)
      #expect(fields["battery_mv"] as? Int == 3700 - 10 * seq)
      #expect(fields["status"] as? String == (seq == 5 ? "low_battery" : "ok"))
    }
    let spoiled = try #require(records.first { $0["error"] is [String: Any] })
    let error = try #require(spoiled["error"] as? [String: Any])
    #expect(spoiled["frame"] as? Int == 7)
    #expect(error["code"] as? String == "bad-check")
    #expect(error["offset"] as? Int == 9)
  }

  @Test func craftsTheReadmesReadingAsPythonPacksIt() throws {
    let python = try #require(Pktbench.which("python3"))
    let packed = try Pktbench.runProgram(
      python,
      [
        "-c",
        """
        import functools, struct
        body = struct.pack("<BBBhHBB", 0xB1, 7, 42, 185, 3700, 0, 0)
        print((body + bytes([functools.reduce(lambda a, b: a ^ b, body)])).hex())
        """,
      ])
    let crafted = try Pktbench.run([
      "craft", "--spec", Self.spec, "reading", "--seq", "7", "--moisture", "42", "--temp-tenths", "185",
      "--battery-mv", "3700", "--status", "ok",
    ])
    #expect(crafted.status == 0, "\(crafted.stderr)")
    let hex = crafted.stdout.map { String(format: "%02x", $0) }.joined()
    #expect(hex == packed.text.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  @Test func filtersOnTheSpecsFields() throws {
    let result = try Pktbench.run([
      "decode", "--spec", Self.spec, Self.capture, "-Y", "beacon.moisture >= 44", "--format", "ndjson",
    ])
    let lines = result.text.split(separator: "\n")
    // Readings of seq 4 and 5 (moisture 44 and 45).
    #expect(lines.count == 2, "\(result.text)\(result.stderr)")
  }
}
