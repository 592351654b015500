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
