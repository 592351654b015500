import Foundation
import Testing

/// `decode -w` against hostile files (issue 34): an output that is one of
/// the inputs is refused before anything is read; the output is written
/// beside its place and renamed there when whole, so a run that fails
/// leaves the old file as it was; times pcapng cannot hold are written as
/// the nearest it holds and said, never a trap. tshark reads back what was
/// written.
@Suite struct DecodeWriteHostileTests {
  static func temporaryDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pktbench-w-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  static func copy(_ capture: String, to directory: URL, as name: String) throws -> String {
    let path = directory.appendingPathComponent(name).path
    try FileManager.default.copyItem(atPath: Pktbench.root.appendingPathComponent(capture).path, toPath: path)
    return path
  }

  @Test func anOutputThatIsAnInputIsRefusedAndLeftWhole() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let a = try Self.copy("Captures/rider-20hz.pcap", to: directory, as: "a.pcap")
    let b = try Self.copy("Captures/legctrl-udp.pcap", to: directory, as: "b.pcap")
    let link = directory.appendingPathComponent("link.pcap").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: a)
    let original = (
      try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b))
    )
    for (inputs, output, named) in [([a], a, a), ([a], link, a), ([a, b], b, b), ([link], a, link)] {
      let result = try Pktbench.run(["decode"] + inputs + ["-w", output])
      #expect(result.status == 64, "\(inputs) -w \(output): \(result.stderr)")
      #expect(
        result.stderr
          == "pktbench: -w \(output) is the input \(named) (the same file); write the records to another file\n"
      )
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == original.0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: b)) == original.1)
  }

  @Test func aRunThatFailsLeavesTheOldOutputAsItWas() throws {
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = directory.appendingPathComponent("kept.pcapng").path
    let old = Data("an earlier export\n".utf8)
    try old.write(to: URL(fileURLWithPath: output))
    // The second file's link type differs from the first's: the run stops
    // part way, after the first file's records were written.
    let result = try Pktbench.run([
      "decode", "Captures/rider-20hz.pcap", "Captures/ble/legctrl-session.btsnoop", "-w", output,
    ])
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("-w writes one link type per file"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == old)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["kept.pcapng"])
  }

  @Test func aWholeRunReplacesTheOutputThroughItsLink() throws {
    let tshark = try #require(Pktbench.which("tshark"))
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("target.pcapng").path
    let link = directory.appendingPathComponent("out.pcapng").path
    try Data("old".utf8).write(to: URL(fileURLWithPath: target))
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let result = try Pktbench.run(["decode", "Captures/rider-20hz.pcap", "-w", link])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    let frames = try Pktbench.runProgram(tshark, ["-r", target, "-T", "fields", "-e", "frame.number"])
    #expect(frames.status == 0 && frames.text.split(separator: "\n").count > 0, "\(frames.stderr)")
    #expect(result.stderr.contains("wrote \(frames.text.split(separator: "\n").count) records"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
        "out.pcapng", "target.pcapng",
      ])
  }

  /// Times before 1970 (a negative if_tsoffset), a stamp of 2^64 − 1 s,
  /// and btsnoop times near 2^63 µs: each file is written whole, the times
  /// pcapng cannot hold are said, and tshark reads every record back.
  @Test(arguments: [
    ("pcapng-negative", "frames 1…20"), ("pcapng-far", "frame 20"), ("btsnoop-far", "frames"),
  ])
  func timesPcapngCannotHoldAreClampedAndSaid(kind: String, frames: String) throws {
    let tshark = try #require(Pktbench.which("tshark"))
    let capture = try CaptureHostileTests.make("make_hostile_files.py", [kind])
    let directory = try Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = directory.appendingPathComponent("out.pcapng").path
    let result = try Pktbench.run(["decode", capture.path, "-w", output])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("pktbench: -w: "), "\(result.stderr)")
    #expect(result.stderr.contains("(\(frames)"), "\(result.stderr)")
    #expect(result.stderr.contains("had a time pcapng cannot hold"))
    let written = try Pktbench.runProgram(tshark, ["-r", output, "-T", "fields", "-e", "frame.time_epoch"])
    #expect(written.status == 0, "\(written.stderr)")
    let times = written.text.split(separator: "\n").compactMap { Double($0) }
    #expect(result.stderr.contains("wrote \(times.count) records"), "\(result.stderr)")
    #expect(times.allSatisfy { $0 >= 0 && $0 <= 18_446_744_073.709_552 })
  }
}
