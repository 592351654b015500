import Foundation
import Testing

/// Every codec through the binary: craft → decode, and the listing.
@Suite struct CodecsEndToEndTests {
  @Test func codecsListsAllFourWithUnits() throws {
    let result = try Pktbench.run(["codecs"])
    #expect(result.status == 0)
    for name in ["rider", "legctrl", "rallie", "falconeye"] {
      #expect(result.text.contains("\(name) —"), "\(name) missing")
    }
    #expect(result.text.contains("--us N"))
    #expect(result.text.contains("µs"))
    #expect(result.text.contains("--upper"))
    #expect(result.text.contains("--device-id"))
  }

  @Test func riderDriveIsCanonicalJSON() throws {
    let result = try Pktbench.run([
      "craft", "drive", "--left", "50", "--right", "-37.5", "--timestamp", "1.5",
    ])
    #expect(result.text == #"{"left":50,"right":-37.5,"timestamp":1.5}"#)
  }

  @Test func joystickMixingMatchesTheApp() throws {
    // left = 100y + 100x = 130, right = 100y − 100x = 70, scaled by 100/130:
    // python3 -c "print(130*100/130, 70*100/130)" → 100.0 53.84615384615385
    let result = try Pktbench.run(["craft", "drive", "--x", "0.3", "--y", "1.0", "--timestamp", "2"])
    #expect(result.text == #"{"left":100,"right":53.84615384615385,"timestamp":2}"#)
  }

  @Test func rallieCommandBothCheckVariants() throws {
    // docs/protocols.md §3: 5A A5 83 32 32 2D 2D 32 00 → XOR 4E, MODBUS-low 41 (control stop).
    let base = [
      "craft", "rallie", "--upper", "50", "--lower", "50", "--pitch", "45", "--yaw", "45", "--feed", "50",
    ]
    let xor = try Pktbench.run(base + ["--stop"])
    #expect(xor.stdout == [0x5A, 0xA5, 0x83, 0x32, 0x32, 0x2D, 0x2D, 0x32, 0x00, 0x4E])
    let modbus = try Pktbench.run(base + ["--stop", "--checksum", "modbus16lo"])
    #expect(modbus.stdout.last == 0x41)
    let bad = try Pktbench.run(base + ["--stop", "--bad-check"])
    #expect(bad.stdout.last != 0x4E && bad.stdout.last != 0x41)
  }

  @Test func rallieDecodeSaysWhichCheckMatched() throws {
    let result = try Pktbench.run(["decode", "--format", "json", "--hex", "5AA58332322D2D320041"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    let fields = try #require(object["fields"] as? [String: Any])
    #expect(fields["check_variant"] as? String == "modbus16lo")
    #expect(object["codec"] as? String == "rallie")
  }

  @Test func rallieNeitherCheckShowsBothExpectedValues() throws {
    let result = try Pktbench.run(["decode", "--codec", "rallie", "--hex", "5AA58332322D2D320000"])
    #expect(result.status == 1)
    #expect(result.text.contains("0x4E"))
    #expect(result.text.contains("0x41"))
  }

  @Test func riderFromStdin() throws {
    let result = try Pktbench.run(
      ["decode", "--codec", "rider", "-"], stdin: Array(#"{"left":50,"right":-50,"timestamp":1.5}"#.utf8))
    #expect(result.status == 0)
    #expect(result.text.contains("left: 50"))
    #expect(result.text.contains("right: -50"))
  }

  @Test func authEnvelopeCarriesAnHMACTokenAndTheSecurityNote() throws {
    // python3: import hmac,hashlib,base64
    //   base64.b64encode(hmac.new(b"S", b"D:1700000000.0", hashlib.sha256).digest())
    //   → b'MIPVkgd2ZYrg/csGfTjmn0/JwdjmoSwp0nO7/vdbHi8='
    let result = try Pktbench.run([
      "craft", "auth", "--device-id", "D", "--secret", "S", "--timestamp", "1700000000", "--format", "json",
    ])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    #expect(object["message"] as? String == "authRequest")
    let fields = try #require(object["fields"] as? [String: Any])
    let payload = try #require(fields["payload"] as? [String: Any])
    #expect(payload["token"] as? String == "MIPVkgd2ZYrg/csGfTjmn0/JwdjmoSwp0nO7/vdbHi8=")
    let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
    #expect(diagnostics.contains { $0["code"] as? String == "token-unverifiable" })
  }

  @Test func cameraFrameCarriesTheJPEG() throws {
    let jpeg: [UInt8] = [0xFF, 0xD8] + Array(repeating: 0x42, count: 1000) + [0xFF, 0xD9]
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-e2e.jpg")
    try Data(jpeg).write(to: path)
    let crafted = try Pktbench.run(["craft", "frame", "--jpeg", path.path, "--timestamp", "5"])
    #expect(crafted.status == 0)
    let decoded = try Pktbench.run(["decode", "--codec", "falconeye", "-"], stdin: crafted.stdout)
    #expect(decoded.status == 0)
    #expect(decoded.text.contains("cameraFrame"))
    #expect(!decoded.text.contains("not-jpeg"))
  }

  @Test func missingRequiredFlagSaysWhichOne() throws {
    let result = try Pktbench.run(["craft", "auth"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("--device-id"))
  }
}
