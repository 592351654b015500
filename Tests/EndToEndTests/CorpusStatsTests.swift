import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The robustness corpus (../shared/corpus, 870+ third-party captures, ~190
/// deliberately damaged) through `pktbench decode --stats`: no crash, no
/// hang, bounded memory, and record counts equal to capinfos' (libpcap's
/// tools) for files that are not damaged.
@Suite struct CorpusStatsTests {
  static let corpus = Pktbench.root.deletingLastPathComponent().appendingPathComponent("shared/corpus")

  static var files: [String] {
    var found: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: corpus.path)
    while let path = enumerator?.nextObject() as? String {
      if path.hasSuffix(".pcap") || path.hasSuffix(".pcapng") || path.hasSuffix(".btsnoop") {
        found.append(path)
      }
    }
    return found.sorted()
  }

  @Test func everyCorpusFileDecodesWithoutCrashOrHang() throws {
    let files = Self.files
    guard !files.isEmpty else { return }  // the corpus lives beside the repository
    var crashed: [String] = []
    var opened = 0
    for file in files {
      let path = Self.corpus.appendingPathComponent(file).path
      let result = try Pktbench.runProgram(
        Pktbench.binary.path, ["decode", path, "--stats", "--format", "json"], timeout: 30)
      // 0: decoded; 1: damaged part way; 2: not a capture pktbench reads
      // (ExitStatus); both said in one line. A signal is a crash.
      if ![0, 1, 2].contains(result.status) {
        crashed.append("\(file): status \(result.status) \(result.stderr)")
      }
      if result.status != 0 {
        #expect(!result.stderr.isEmpty, "\(file) failed without saying why")
        #expect(result.stderr.split(separator: "\n").count <= 2, "\(file): \(result.stderr)")
      }
      if !result.stdout.isEmpty { opened += 1 }
    }
    #expect(crashed.isEmpty, "\(crashed.joined(separator: "\n"))")
    #expect(opened > files.count * 9 / 10)
    // Peak memory of the largest child so far: bounded, whatever the input.
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    #expect(usage.ru_maxrss < 200 * 1024, "peak RSS \(usage.ru_maxrss) KiB")
  }

  @Test func recordCountsMatchCapinfos() throws {
    guard let capinfos = Pktbench.which("capinfos"), !Self.files.isEmpty else { return }
    let damaged = [
      "oobr", "overflow", "invalid", "bad", "trunc", "corrupt", "crash", "fuzz", "heapoverflow", "cve",
    ]
    var compared = 0
    for file in Self.files where !damaged.contains(where: { file.lowercased().contains($0) }) {
      let path = Self.corpus.appendingPathComponent(file).path
      let info = try Pktbench.runProgram(capinfos, ["-c", "-M", "-T", "-r", path], timeout: 30)
      guard info.status == 0,
        let count = info.text.split(separator: "\n").last?.split(separator: "\t").last.flatMap({ Int($0) })
      else { continue }
      let result = try Pktbench.runProgram(
        Pktbench.binary.path, ["decode", path, "--stats", "--format", "json"], timeout: 30)
      guard result.status == 0,
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
      else { continue }
      #expect(
        object["records"] as? Int == count,
        "\(file): pktbench \(object["records"] ?? "?") vs capinfos \(count)")
      compared += 1
    }
    #expect(compared > 300)
  }
}

/// The two real Android HCI snoop logs (A2DP audio, no GATT of ours) decode
/// cleanly, their record counts equal to tshark's.
@Suite struct AndroidSnoopLogTests {
  @Test func snoopLogsDecodeCleanlyWithTsharksCounts() throws {
    let folder = CorpusStatsTests.corpus.appendingPathComponent("btsnoop")
    let logs = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    guard !logs.isEmpty else { return }
    for log in logs {
      let path = folder.appendingPathComponent(log).path
      let result = try Pktbench.runProgram(
        Pktbench.binary.path, ["decode", path, "--stats", "--format", "json"])
      #expect(result.status == 0, "\(log): \(result.stderr)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
      #expect((object["damaged"] as? [String: Any])?.isEmpty == true, "\(log): \(object["damaged"] ?? "")")
      #expect(object["stopped_early"] is NSNull)
      guard let tshark = Pktbench.which("tshark") else { continue }
      let shark = try Pktbench.runProgram(tshark, ["-r", path, "-T", "fields", "-e", "frame.number"])
      let count = shark.text.split(separator: "\n").count
      #expect(
        object["records"] as? Int == count, "\(log): pktbench \(object["records"] ?? "?") vs tshark \(count)")
    }
  }
}
