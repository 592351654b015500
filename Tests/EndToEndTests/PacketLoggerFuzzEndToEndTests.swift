import Foundation
import Testing

/// `pktbench fuzz --target pklg`, seeded by a PacketLogger file in a corpus.
@Suite struct PacketLoggerFuzzEndToEndTests {
  @Test func corpusFileSeedsTheTargetAndTheCodec() throws {
    let writer = try PacketLoggerTests.session("legctrl-session")
    let corpus = WrittenCapture.directory.appendingPathComponent("pklg-corpus")
    try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
    try Data(writer.bytes(.little)).write(to: corpus.appendingPathComponent("session.pklg"))
    let result = try Pktbench.run([
      "fuzz", "--corpus", corpus.path, "--target", "pklg", "--codec", "legctrl", "--iterations", "2000",
      "--seed", "5", "--crashes", WrittenCapture.directory.appendingPathComponent("crashes").path,
    ])
    #expect(result.status == 0, "\(result.text)\(result.stderr)")
    let row = try #require(
      result.text.split(separator: "\n").first { $0.hasPrefix("pklg ") }, "\(result.text)")
    #expect(row.contains("damaged-file") || row.contains("not-packetlogger"), "\(row)")
    #expect(result.text.contains("no failures"))
  }
}

extension PacketLoggerFuzzEndToEndTests {
  /// CI's libFuzzer pass (scripts/fuzz-ci.sh) runs the pklg harness, and
  /// scripts/seed-corpus.sh seeds it with whole PacketLogger files in both
  /// byte orders: files pktbench and tshark read whole, to the same count.
  @Test func ciFuzzesThePacketLoggerHarnessFromWholeFiles() throws {
    func text(_ path: String) throws -> String {
      try String(contentsOf: Pktbench.root.appendingPathComponent(path), encoding: .utf8)
    }
    #expect(try text("scripts/fuzz-ci.sh").contains(" hci pklg"))
    #expect(try text("scripts/libfuzzer.sh").contains("pklg) product=FuzzPacketLogger ;;"))
    #expect(try text("Fuzz/Package.swift").contains("\"FuzzPacketLogger\""))
    #expect(
      try text("Fuzz/Sources/FuzzPacketLogger/FuzzPacketLogger.swift").contains("testOneInput(\"pklg\""))

    let seeds = WrittenCapture.directory.appendingPathComponent("pklg-seeds")
    let made = try Pktbench.runProgram(
      Pktbench.root.appendingPathComponent("scripts/seed-corpus.sh").path, ["pklg", seeds.path])
    #expect(made.status == 0, "\(made.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: seeds.path).sorted()
    #expect(files.contains("servo-write-be.pklg"))
    if Pktbench.which("python3") != nil {
      #expect(
        files.contains("legctrl-session-be.pklg") && files.contains("legctrl-session-le.pklg"), "\(files)")
    }
    let tshark = Pktbench.which("tshark")
    for file in files {
      let path = seeds.appendingPathComponent(file).path
      let stats = try Pktbench.run(["decode", path, "--stats", "--format", "json"])
      #expect(stats.status == 0, "\(file): \(stats.stderr)")
      let summary = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout)) as? [String: Any])
      let records = try #require(summary["records"] as? Int)
      #expect(records > 0)
      #expect(summary["stopped_early"] is NSNull, "\(file)")
      guard let tshark else { continue }
      let shark = try Pktbench.runProgram(tshark, ["-r", path, "-T", "fields", "-e", "frame.number"])
      #expect(shark.text.split(separator: "\n").count == records, "\(file)")
    }
  }
}
