import Foundation
import Testing

/// tcpdump's hands on pktbench: a BPF expression after the files, `-r`,
/// `-n`, and `capture -s 0`. Compared with tcpdump reading the same file.
@Suite struct DecodeTcpdumpTests {
  static func frames(_ result: Pktbench.Result) -> [Int] {
    result.text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }.compactMap { $0["frame"] as? Int }
  }

  @Test func anExpressionAfterTheFilesIsABPFFilter() throws {
    guard let tcpdump = Pktbench.which("tcpdump") else { return }
    let capture = "Captures/field-session.pcapng"
    // tcpdump's count of the same expression on the same file (one Rider message per datagram).
    let dumped = try Pktbench.runProgram(tcpdump, ["-n", "-r", capture, "udp", "port", "5005"])
    let packets = dumped.text.split(separator: "\n").count
    #expect(packets > 10)
    for arguments in [
      ["decode", capture, "udp", "port", "5005"],
      ["decode", capture, "udp port 5005"],
      ["decode", "-r", capture, "-n", "udp", "and", "port", "5005"],
      ["decode", "-n", "-r", capture, "udp", "port", "5005"],
      ["decode", capture, "--filter", "udp", "port", "5005"],
    ] {
      let result = try Pktbench.run(arguments + ["--format", "ndjson"])
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(Self.frames(result).count == packets, "\(arguments)")
    }
    // --filter and an expression together: both apply.
    // (LegCtrl on port 9000, both ways; only the controller's side kept.)
    let both = try Pktbench.run([
      "decode", capture, "--filter", "udp port 9000", "src", "port", "40012", "--format", "ndjson",
    ])
    let source = try Pktbench.runProgram(tcpdump, ["-n", "-r", capture, "udp port 9000 and src port 40012"])
    let all = try Pktbench.runProgram(tcpdump, ["-n", "-r", capture, "udp port 9000"])
    #expect(Self.frames(both).count == source.text.split(separator: "\n").count)
    #expect(Self.frames(both).count < all.text.split(separator: "\n").count)
  }

  @Test func filesAreToldFromExpressionWords() throws {
    // Two files, then an expression.
    let two = try Pktbench.run([
      "decode", "Captures/rallie-udp.pcap", "Captures/rider-20hz.pcap", "udp", "--format", "ndjson",
    ])
    #expect(two.status == 0)
    #expect(Self.frames(two).count == 12 + 64)
    // A missing file that looks like one is reported missing (exit 2), not as a filter.
    let missing = try Pktbench.run(["decode", "Captures/rallie-udp.pcap", "missing.pcap", "udp"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("missing.pcap"))
    // No file at all: the first word is not one.
    let none = try Pktbench.run(["decode", "udp", "port", "5005"])
    #expect(none.status == 64)
    #expect(none.stderr.contains("'udp' is not a file"))
    // A malformed expression is the command line's fault.
    let bad = try Pktbench.run(["decode", "Captures/rallie-udp.pcap", "udp", "prot", "5"])
    #expect(bad.status == 64)
  }

  @Test func snaplenZeroIsTheLargest() throws {
    guard let capinfos = Pktbench.which("capinfos"), getuid() == 0 else { return }
    for (asked, recorded) in [("0", "262144"), ("128", "128")] {
      let file = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-s-\(UUID()).pcapng")
        .path
      defer { try? FileManager.default.removeItem(atPath: file) }
      let result = try Pktbench.run([
        "capture", "-i", "lo", "-n", "-s", asked, "-w", file, "--duration", "200ms", "-q", "--filter",
        "udp port 9",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      let info = try Pktbench.runProgram(capinfos, [file])
      #expect(info.text.contains("Capture length = \(recorded)"), "-s \(asked): \(info.text)")
    }
  }
}
