import Foundation
import Testing

/// `pktbench craft` through the real binary: pipes get raw bytes, a
/// terminal gets a hex dump, bad flags get one clear line.
@Suite struct CraftEndToEndTests {
  @Test func servoPipedGivesExactlyTheSixBytes() throws {
    // docs/protocols.md §2 golden vector: SET_SERVO_CH0 1500 µs.
    let result = try Pktbench.run(["craft", "servo", "--us", "1500"])
    #expect(result.status == 0)
    #expect(result.stdout == [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05])
  }

  @Test func armPipedIsTheGoldenVector() throws {
    let result = try Pktbench.run(["craft", "arm"])
    #expect(result.stdout == [0x01, 0x01, 0x00, 0x00])
  }

  @Test func telemetryFaultIsTheGoldenVector() throws {
    let result = try Pktbench.run([
      "craft", "telemetry", "--state", "fault", "--error", "deadman-timeout", "--age-ms", "200",
      "--battery-mv", "7400",
    ])
    #expect(result.stdout == [0x01, 0x10, 0x08, 0x00, 0x02, 0x01, 0xC8, 0x00, 0xE8, 0x1C, 0x00, 0x00])
  }

  @Test func terminalGetsHexDumpAndDissection() throws {
    // `script` gives the child a real pseudo-terminal as stdout.
    guard let script = Pktbench.which("script") else { return }
    let command = "\(Pktbench.binary.path) craft servo --us 1500"
    let result = try Pktbench.runProgram(script, ["-qec", command, "/dev/null"])
    #expect(result.status == 0)
    #expect(result.text.contains("01 03 02 00 DC 05"))
    #expect(result.text.contains("pulse_us: 1500 µs"))
  }

  @Test func formatHexForcesTheDumpOnAPipe() throws {
    let result = try Pktbench.run(["craft", "servo", "--us", "1500", "--format", "hex"])
    #expect(result.text.contains("01 03 02 00 DC 05"))
    #expect(result.text.contains("set_servo_ch0"))
  }

  @Test func formatCWritesAnArray() throws {
    let result = try Pktbench.run(["craft", "arm", "--format", "c"])
    #expect(result.text.contains("0x01, 0x01, 0x00, 0x00"))
  }

  @Test func outOfRangeIsRefusedInOneLine() throws {
    let result = try Pktbench.run(["craft", "servo", "--us", "3000"])
    #expect(result.status != 0)
    #expect(result.stdout.isEmpty)
    let lines = result.stderr.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(result.stderr.contains("500…2500"))
  }

  @Test func forceCraftsOutOfRange() throws {
    let result = try Pktbench.run(["craft", "servo", "--us", "3000", "--force"])
    #expect(result.status == 0)
    #expect(result.stdout == [0x01, 0x03, 0x02, 0x00, 0xB8, 0x0B])
  }

  @Test func unknownFlagIsOneLineNamingTheAllowedFlags() throws {
    let result = try Pktbench.run(["craft", "servo", "--pulse", "1500"])
    #expect(result.status != 0)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("--us"))
  }

  @Test func unknownMessageListsTheKnownOnes() throws {
    let result = try Pktbench.run(["craft", "warp"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("servo"))
  }

  @Test func wrongOptionValueSaysWhatIsAllowed() throws {
    let result = try Pktbench.run(["craft", "arm", "--format", "yaml"])
    #expect(result.status != 0)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("raw"))
  }
}
