import Foundation
import Testing

/// `pktbench decode` on capture files: every view and flag a user reaches for.
@Suite struct DecodeCaptureEndToEndTests {
  @Test func summaryLinesNameFrameEndpointsCodecAndMessage() throws {
    let result = try Pktbench.run(["decode", "Captures/rallie-udp.pcap"])
    #expect(result.status == 0)
    let first = try #require(result.text.split(separator: "\n").first)
    #expect(first.contains("127.0.0.1:40003 → 127.0.0.1:9100"))
    #expect(first.contains("rallie command"))
    #expect(first.contains("upper_wheel=60%"))
  }

  @Test func verboseShowsEveryFieldWithItsBytes() throws {
    let result = try Pktbench.run(["decode", "Captures/rallie-udp.pcap", "-V"])
    #expect(result.text.contains("Frame 1"))
    #expect(result.text.contains("check_variant: xor"))
    #expect(result.text.contains("[3]"))
  }

  @Test func hexDumpMarksFields() throws {
    let result = try Pktbench.run(["decode", "Captures/rallie-udp.pcap", "-x"])
    // Frame 1 carries 5A A5 83 3C 28 1E 2D 32 01 68 (Captures/expected/rallie-udp.json).
    #expect(result.text.contains("5A A5 83 3C 28 1E 2D 32  01 68"))
    #expect(result.text.contains("upper_wheel"))
  }

  @Test func bpfFilterKeepsOnlyMatchingFrames() throws {
    let result = try Pktbench.run([
      "decode", "Captures/field-session.pcapng", "--filter", "udp port 9100", "--format", "ndjson",
    ])
    let codecs = Set(
      result.text.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["codec"] as? String
      })
    #expect(codecs == ["rallie"])
  }

  @Test func badFilterIsOneLine() throws {
    let result = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "--filter", "udpp port"])
    #expect(result.status != 0)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("invalid filter"))
  }

  @Test func decodeAsOverridesTheProbe() throws {
    let result = try Pktbench.run([
      "decode", "Captures/legctrl-udp.pcap", "--decode-as", "udp:9000=rallie", "--format", "ndjson",
    ])
    let first = try #require(result.text.split(separator: "\n").first)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
    #expect(object["codec"] as? String == "rallie")
    #expect(object["routing"] as? String == "--decode-as udp:9000")
  }

  @Test func badDecodeAsSaysWhatIsAllowed() throws {
    let result = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "--decode-as", "sctp:1=rider"])
    #expect(result.status != 0)
    #expect(result.stderr.contains("udp or tcp"))
  }

  @Test func captureOnStandardInput() throws {
    let bytes = [UInt8](
      try Data(contentsOf: Pktbench.root.appendingPathComponent("Captures/rider-20hz.pcap")))
    let result = try Pktbench.run(["decode", "-", "--stats", "--format", "json"], stdin: bytes)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    #expect(object["records"] as? Int == 64)  // Captures/expected/rider-20hz.json
  }

  @Test func missingFileIsOneClearLine() throws {
    let result = try Pktbench.run(["decode", "/nonexistent/capture.pcap"])
    #expect(result.status == 2)  // input that cannot be read (ExitStatus.unreadable)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("no such file"))
  }

  @Test func notACaptureIsOneClearLine() throws {
    let result = try Pktbench.run(["decode", "README.md"])
    #expect(result.status == 2)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("not a pcap or pcapng file"))
  }

  @Test func truncatedFileDecodesUpToTheDamageAndSaysWhere() throws {
    // Captures/expected/rider-truncated.json: the file ends inside record 40.
    let result = try Pktbench.run(["decode", "Captures/damaged/rider-truncated.pcap", "--format", "ndjson"])
    #expect(result.status == 1)
    #expect(result.text.split(separator: "\n").count == 39)
    #expect(result.stderr.contains("after record 39"))
  }

  @Test func badChecksumsAreShownAsWarningsAndTheRunGoesOn() throws {
    // Captures/expected/rider-bad-checksums.json: UDP checksums wrong in 5, 17, 33; IPv4 header in 50.
    let result = try Pktbench.run([
      "decode", "Captures/damaged/rider-bad-checksums.pcap", "--format", "ndjson",
    ])
    var warned: [Int: [String]] = [:]
    for line in result.text.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let codes = (object["diagnostics"] as? [[String: Any]] ?? []).filter {
        $0["severity"] as? String == "warning"
      }
      .compactMap { $0["code"] as? String }
      if !codes.isEmpty, let frame = object["frame"] as? Int { warned[frame] = codes }
    }
    #expect(Set(warned.keys) == [5, 17, 33, 50])
    #expect(warned[50]?.contains { $0.contains("ipv4") } == true)
  }

  @Test func bleMapRoutesAHandle() throws {
    // Handle 0x0012 is LegCtrl's command characteristic (Captures/ble/expected/legctrl-session.json);
    // mapping it to Rallie must win over what discovery says.
    let result = try Pktbench.run([
      "decode", "Captures/ble/legctrl-session.btsnoop", "--ble-map", "0x0012=rallie", "--format", "ndjson",
    ])
    let routed = result.text.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }.filter { $0["handle"] as? Int == 0x12 }
    #expect(!routed.isEmpty)
    #expect(
      routed.allSatisfy { $0["codec"] as? String == "rallie" && $0["routing"] as? String == "--ble-map" })
  }

  @Test func statsCountsMessagesPerCodec() throws {
    let result = try Pktbench.run(["decode", "Captures/field-session.pcapng", "--stats", "--format", "json"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    let messages = try #require(object["messages"] as? [String: Int])
    let perCodec = Dictionary(grouping: messages, by: { String($0.key.split(separator: " ")[0]) })
      .mapValues { $0.reduce(0) { $0 + $1.value } }
    // What the generator sent (Captures/expected/field-session.json), per codec.
    let fixture = try Analyze.fixture("Captures/expected/field-session.json")
    let sent = try #require(fixture["messages"] as? [[String: Any]])
    let expected = Dictionary(grouping: sent, by: { $0["codec"] as? String ?? "?" }).mapValues(\.count)
    #expect(expected.count == 4)
    #expect(perCodec == expected)
  }
}

@Suite struct ParallelDecodeTests {
  @Test func jobsGiveTheSameOutputInTheSameOrder() throws {
    let files = ["Captures/rider-20hz.pcap", "Captures/legctrl-udp.pcap", "Captures/rallie-udp.pcap"]
    let serial = try Pktbench.run(["decode"] + files + ["--format", "ndjson"])
    let parallel = try Pktbench.run(["decode"] + files + ["--format", "ndjson", "--jobs", "2"])
    #expect(serial.status == 0)
    #expect(parallel.stdout == serial.stdout)
    #expect(!serial.stdout.isEmpty)
  }

  @Test func aBadFileAmongSeveralIsReportedAndTheOthersDecode() throws {
    let result = try Pktbench.run([
      "decode", "Captures/rallie-udp.pcap", "/nonexistent.pcap", "Captures/rider-20hz.pcap", "--stats",
      "--jobs", "2",
    ])
    // The gravest of the files' statuses: one could not be read at all.
    #expect(result.status == 2)
    #expect(result.stderr.contains("/nonexistent.pcap"))
    #expect(result.text.contains("rallie-udp.pcap: 12 records"))
    #expect(result.text.contains("rider-20hz.pcap: 64 records"))
  }
}
