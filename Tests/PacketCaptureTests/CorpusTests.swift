import Foundation
import PacketCapture
import Testing

/// Every third-party capture under ../shared/corpus/ goes through the reader
/// and the decoder: no crash, no hang, and (for files not meant to be
/// damaged) the same number of records as Wireshark's capinfos counts.
@Suite struct CorpusTests {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let corpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
  /// Words the corpus uses in the names of deliberately damaged files.
  static let damageWords = [
    "oobr", "overflow", "invalid", "bad", "trunc", "corrupt", "damage", "crash", "fuzz", "bogus",
    "malformed", "inf-loop", "-oob", "too-long", "reserved",
  ]
  static let perFileBudget = 5.0

  struct Outcome {
    var path: String
    var records = 0
    var end: ReadEnd?
    var openError: CaptureError?
  }

  static var corpusPresent: Bool { FileManager.default.fileExists(atPath: corpus.path) }

  @Test(.enabled(if: corpusPresent, "../shared/corpus is absent"))
  func everyCorpusFileReadsWithoutCrashing() throws {
    let files = try #require(Self.corpusFiles())
    try #require(!files.isEmpty)
    let started = Date()
    var outcomes: [Outcome] = []
    for path in files {
      outcomes.append(Self.process(path))
    }
    let opened = outcomes.filter { $0.openError == nil }
    #expect(opened.count > files.count / 2, "most corpus files are captures libpcap opens")
    #expect(outcomes.allSatisfy { $0.openError.map { !$0.text.isEmpty } ?? true })
    // btsnoop logs are not pcap: a clear refusal, not a crash.
    for outcome in outcomes where outcome.path.hasSuffix(".btsnoop") {
      #expect(outcome.openError?.text.contains("is not a pcap or pcapng file (magic 0x6274736e)") == true)
    }
    #expect(Date().timeIntervalSince(started) < 50, "the corpus must decode in well under a minute")

    guard let counts = Self.capinfosCounts(files) else {
      print("note: capinfos is not installed; record counts not compared")
      return
    }
    var compared = 0
    for outcome in opened where outcome.end == .endOfFile && !Self.namedAsDamaged(outcome.path) {
      guard let expected = counts[outcome.path] else { continue }
      compared += 1
      #expect(
        outcome.records == expected,
        "\(outcome.path): libpcap read \(outcome.records), capinfos counts \(expected)")
    }
    #expect(compared > 300, "compared \(compared) files with capinfos")
  }

  static func corpusFiles() -> [String]? {
    guard
      let enumerator = FileManager.default.enumerator(
        at: corpus, includingPropertiesForKeys: [.isRegularFileKey])
    else { return nil }
    var files: [String] = []
    for case let url as URL in enumerator {
      guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
        url.pathExtension != "md"
      else { continue }
      files.append(url.path)
    }
    return files.sorted()
  }

  static func namedAsDamaged(_ path: String) -> Bool {
    let name = (path as NSString).lastPathComponent.lowercased()
    return damageWords.contains { name.contains($0) }
  }

  /// Reads and decodes one file, giving up after the per-file budget.
  static func process(_ path: String) -> Outcome {
    var outcome = Outcome(path: path)
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: path)
    } catch {
      outcome.openError = error
      return outcome
    }
    let decoder = PacketDecoder()
    let deadline = Date().addingTimeInterval(perFileBudget)
    var lastFrame = 0
    var eventFramesInRange = true
    let check = { (event: TransportEvent) in
      if event.frame < 1 || event.frame > lastFrame { eventFramesInRange = false }
    }
    outcome.end = reader.read { record in
      outcome.records += 1
      lastFrame = record.frame
      decoder.decode(record, check)
      if outcome.records % 1024 == 0, Date() > deadline { reader.stop() }
    }
    decoder.finish(check)
    #expect(!reader.wasStopped, "\(path) took more than \(perFileBudget) s")
    #expect(eventFramesInRange, "\(path): an event named a frame that was not read")
    #expect(decoder.bufferedBytes == 0, "\(path): buffers not released at finish")
    return outcome
  }

  /// Record counts from Wireshark's capinfos (one run for all files), or nil
  /// when it is not installed. Files it cannot read are left out.
  static func capinfosCounts(_ files: [String]) -> [String: Int]? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["capinfos", "-c", "-M", "-T", "-r"] + files
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // env exits 127 when the tool is missing.
    if process.terminationStatus == 127 { return nil }
    var counts: [String: Int] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: "\t")
      guard fields.count == 2, let count = Int(fields[1].trimmingCharacters(in: .whitespaces)) else {
        continue
      }
      counts[String(fields[0])] = count
    }
    return counts
  }
}
