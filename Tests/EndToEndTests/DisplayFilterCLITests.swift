import Foundation
import Testing

/// `-Y` as each command takes it: a malformed filter is one line naming
/// the column, exit 64, before any input is read; `--stats` counts what is
/// shown; `analyze` analyses only what is kept; the help says what it does.
@Suite struct DisplayFilterCLITests {
  @Test func aMalformedFilterIsOneLineWithItsColumnBeforeAnyInput() throws {
    // The file does not exist: the filter is refused before it is opened.
    for command in [["decode", "no-such.pcap"], ["analyze", "no-such.pcap"]] {
      let result = try Pktbench.run(command + ["-Y", "legctrl.state == "])
      #expect(result.status == 64, "\(command): \(result.stderr)")
      #expect(result.stderr == "pktbench: -Y: expected a value after '==' at column 17\n")
      #expect(result.stdout.isEmpty)
    }
    let unknown = try Pktbench.run([
      "decode", "Captures/rider-20hz.pcap", "--display-filter", "rider.left > 1 or ridr",
    ])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.hasPrefix("pktbench: -Y: 'ridr' is not a field: "))
    #expect(unknown.stderr.hasSuffix(" at column 19\n"))
    #expect(unknown.stderr.split(separator: "\n").count == 1)
    #expect(unknown.stdout.isEmpty)
  }

  @Test func liveCommandsRefuseAMalformedFilterBeforeOpeningAnything() throws {
    // Port 1 needs privileges it will not get: the filter is refused first.
    for command in [
      ["listen", "udp:127.0.0.1:1"], ["capture", "-i", "no-such-interface"],
      ["emulate", "legctrl", "--listen", "udp:127.0.0.1:1"],
    ] {
      let result = try Pktbench.run(command + ["-Y", "(legctrl"])
      #expect(result.status == 64, "\(command): \(result.stderr)")
      #expect(
        result.stderr
          == "pktbench: -Y: expected ')' to close the '(' at column 1, found the end of the filter at column 9\n",
        "\(command)")
    }
  }

  @Test func onePayloadIsNotFiltered() throws {
    let result = try Pktbench.run(["decode", "--hex", "01 04 00 00", "-Y", "legctrl"])
    #expect(result.status == 64)
    #expect(result.stderr.split(separator: "\n").count == 1)
  }

  @Test func statsCountWhatIsShown() throws {
    // legctrl-udp.pcap: 28 telemetry messages, 4 of them FAULT (Captures/expected/legctrl-udp.json).
    let result = try Pktbench.run([
      "decode", "Captures/legctrl-udp.pcap", "--stats", "--format", "json", "-Y",
      "legctrl.state == \"FAULT\"",
    ])
    #expect(result.status == 0)
    let stats = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    let messages = try #require(stats["messages"] as? [String: Int])
    let shown = try Pktbench.run([
      "decode", "Captures/legctrl-udp.pcap", "--format", "ndjson", "-Y", "legctrl.state == \"FAULT\"",
    ])
    let lines = shown.text.split(separator: "\n")
    #expect(messages == ["legctrl telemetry": lines.count])
    #expect(lines.count > 0)
    #expect(lines.allSatisfy { $0.contains(#""state":"FAULT""#) })
    // The records read are the whole file's still.
    #expect(stats["records"] as? Int == 132)
  }

  @Test func textOutputShowsOnlyTheKeptMessages() throws {
    let all = try Pktbench.run(["decode", "Captures/field-session.pcapng"])
    let kept = try Pktbench.run(["decode", "Captures/field-session.pcapng", "-Y", "rider.left > 90"])
    #expect(kept.status == 0)
    let expected = all.text.split(separator: "\n").filter { line in
      guard line.contains(" rider drive"), let range = line.range(of: "left=") else { return false }
      let number = line[range.upperBound...].prefix { "0123456789.-".contains($0) }
      return (Double(number) ?? 0) > 90
    }
    #expect(!expected.isEmpty)
    #expect(kept.text.split(separator: "\n") == expected)
  }

  @Test func analyzeSeesOnlyWhatTheFilterKeeps() throws {
    let all = try Pktbench.run(["analyze", "Captures/field-session.pcapng", "--format", "json"])
    let rallie = try Pktbench.run([
      "analyze", "Captures/field-session.pcapng", "--format", "json", "-Y", "rallie",
    ])
    #expect(all.status == 0 && rallie.status == 0)
    func protocols(_ result: Pktbench.Result) throws -> Set<String> {
      let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
      let flows = try #require(report["flows"] as? [[String: Any]])
      return Set(flows.compactMap { $0["protocol"] as? String })
    }
    #expect(try protocols(all).isSuperset(of: ["rider", "legctrl", "rallie", "falconeye"]))
    #expect(try protocols(rallie) == ["rallie"])
  }

  @Test func helpSaysWhatTheFilterDoes() throws {
    for (command, words) in [
      ("decode", "--stats counts them"), ("analyze", "nothing else feeds"), ("listen", "--count and --stats"),
      ("capture", "-w still records"), ("emulate", "implies --messages"),
    ] {
      let help = try Pktbench.run([command, "--help"]).text.split(whereSeparator: \.isWhitespace).joined(
        separator: " ")
      #expect(help.contains("-Y, --display-filter"), "\(command)")
      #expect(help.contains(words), "\(command)")
    }
  }
}
