import Foundation
import Testing

/// `pktbench decode` on payload bytes through the real binary.
@Suite struct DecodeBytesEndToEndTests {
  @Test func legctrlTelemetryTree() throws {
    let result = try Pktbench.run([
      "decode", "--codec", "legctrl", "--hex", "01 10 08 00 02 01 C8 00 E8 1C 00 00",
    ])
    #expect(result.status == 0)
    #expect(result.text.contains("state: FAULT (2)"))
    #expect(result.text.contains("error_code: DEADMAN_TIMEOUT (1)"))
    #expect(result.text.contains("last_cmd_age_ms: 200 ms"))
  }

  @Test func jsonFollowsTheOutputContract() throws {
    let result = try Pktbench.run([
      "decode", "--codec", "legctrl", "--format", "json", "--hex", "01 03 02 00 DC 05",
    ])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    #expect(object["codec"] as? String == "legctrl")
    #expect(object["message"] as? String == "set_servo_ch0")
    let fields = try #require(object["fields"] as? [String: Any])
    #expect(fields["pulse_us"] as? Int == 1500)
    #expect(object["error"] is NSNull)
    #expect((object["diagnostics"] as? [Any])?.isEmpty == true)
  }

  @Test func damagedPayloadNamesOffsetAndExitsNonZero() throws {
    let result = try Pktbench.run([
      "decode", "--codec", "legctrl", "--format", "json", "--hex", "01 03 02 00 DC",
    ])
    #expect(result.status == 1)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    let error = try #require(object["error"] as? [String: Any])
    #expect(error["code"] as? String == "bad-length")
    #expect(error["offset"] as? Int == 5)
  }

  @Test func withoutCodecTheProbeChoosesAndSaysSo() throws {
    let result = try Pktbench.run(["decode", "--hex", "01 03 02 00 DC 05"])
    #expect(result.status == 0)
    #expect(result.text.contains("probe: legctrl"))
  }

  @Test func hexMarksEachFieldsBytes() throws {
    let result = try Pktbench.run(["decode", "--codec", "legctrl", "-x", "--hex", "01 03 02 00 DC 05"])
    #expect(result.text.contains("pulse_us"))
    #expect(result.text.contains("DC 05"))
  }

  @Test func badHexIsOneLine() throws {
    let result = try Pktbench.run(["decode", "--hex", "01 0G"])
    #expect(result.status != 0)
    #expect(result.stderr.split(separator: "\n").count == 1)
  }
}
