import ArgumentParser
import Foundation
import PacketCapture
import PacketDecode
import PacketFuzz
import PacketKit
import PacketLive

/// `pktbench fuzz`: round-trip and mutation fuzzing of every codec.
struct FuzzCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "fuzz",
      abstract: "Fuzz the codecs: round trips of generated messages, then mutated inputs.",
      discussion: """
        Invariants: decode returns or throws a typed error (never traps or hangs), \
        whatever decodes re-encodes and decodes to the same message, and every \
        field's byte range lies inside the input. A failure is shrunk, saved with \
        its target and seed in the file name, and the command that reproduces it \
        is printed; the exit status is 1.

        """
          + HelpExamples.text(
            "fuzz",
            generic: [
              "pktbench fuzz                           # all codecs, 30 s, random seed",
              "pktbench fuzz --time 60s --jobs 2       # two workers, seeds S and S+1",
              "pktbench fuzz --reproduce fuzz-crashes/crash-TARGET-seed42-7f3a.bin",
            ]))
  }

  @Option(name: [.customLong("codec"), .customLong("target")], help: "Fuzz only these (repeatable).")
  var targets: [String] = []

  @Option(help: "Iterations per target (default: run for --time).")
  var iterations: Int?

  @Option(help: "Time budget: 30s, 2m, 500ms.")
  var time: DurationArgument?

  @Option(help: "Random seed (default: random, printed).")
  var seed: UInt64?

  @Option(
    help: ArgumentHelp(
      "Workers fuzzing at once, each on its own thread with seed, seed+1, …; "
        + "--iterations is shared out among them, --time is each one's.",
      valueName: "n"))
  var jobs: Int = 1

  @Option(help: "Directory of real payloads to mutate (files named <codec>-*.bin, or any file).")
  var corpus: String?

  @Option(help: "Where failing inputs are saved.")
  var crashes: String = "fuzz-crashes"

  @Option(help: "Replay one saved input and report what happens.")
  var reproduce: String?

  @OptionGroup var spec: SpecOption

  func validate() throws {
    let known = FuzzTargets(codecs: CommandContext.codecs)
    for name in targets where known.named(name) == nil {
      throw ValidationError(
        "unknown fuzz target '\(name)'; known: \(known.names.joined(separator: ", "))"
      )
    }
    if let iterations, iterations <= 0 { throw ValidationError("--iterations must be at least 1") }
    if jobs < 1 || jobs > CrashGuard.slotCount {
      throw ValidationError("--jobs must be between 1 and \(CrashGuard.slotCount), not \(jobs)")
    }
  }

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let out = OutputWriter()
    defer { out.flush() }
    if let reproduce { return try replay(reproduce, codecs: codecs, out: out) }
    let selectedNames =
      targets.isEmpty
      ? FuzzTargets(codecs: codecs).names : FuzzTargets(codecs: codecs).named(targets).map(\.name)
    let seed = self.seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
    let duration = time ?? (iterations == nil ? DurationArgument(seconds: 30) : nil)
    try FileManager.default.createDirectory(atPath: crashes, withIntermediateDirectories: true)
    let names = selectedNames.joined(separator: ",")
    let workers =
      jobs > 1 ? ", \(jobs) jobs (seeds \(seed) to \(FuzzWorkers.seed(seed, worker: jobs - 1)))" : ""
    OutputWriter.standardError.line(
      "pktbench fuzz: targets \(names), seed \(seed)\(workers), "
        + (iterations.map { "\($0) iterations each" } ?? "\(duration?.seconds ?? 0) s"))
    CrashGuard.install(directory: crashes, seed: seed, jobs: jobs, targets: selectedNames)

    var configuration = FuzzRunner.Configuration(
      seed: seed, iterations: iterations, durationNanoseconds: duration?.nanoseconds)
    configuration.corpus = try loadCorpus(selectedNames, codecs: codecs)
    let stderrIsTerminal = isatty(2) == 1
    configuration.progress = { elapsed, stats in
      guard stderrIsTerminal else { return }
      let parts = stats.map { name, s in
        return "\(name) \(Int(s.executionsPerSecond))/s"
      }
      let failures = stats.reduce(0) { $0 + $1.1.failures }
      OutputWriter.standardError.write(
        "\r\(String(format: "%5.1f", elapsed)) s  " + parts.joined(separator: "  ")
          + "  failures \(failures)   ")
    }
    let report = FuzzWorkers.run(
      jobs: jobs, makeTargets: { FuzzTargets(codecs: codecs).named(selectedNames) },
      configuration: configuration)
    if stderrIsTerminal { OutputWriter.standardError.line() }
    for line in FuzzSummary.lines(report) { out.line(line) }
    guard report.failures.isEmpty else {
      for (failure, seed) in zip(report.failures, report.seeds) {
        let hash = String(fnv1a(failure.input) & 0xFFFF_FFFF, radix: 16)
        let path = "\(crashes)/crash-\(failure.target)-seed\(seed)-\(hash).bin"
        _ = FileManager.default.createFile(atPath: path, contents: Data(failure.input))
        out.line("FAILURE \(failure.target) [\(failure.kind)]: \(failure.detail)")
        out.line("  input (\(failure.input.count) bytes, shrunk): \(Hex.spaced(failure.input.prefix(64)))")
        out.line("  saved: \(path)")
        out.line(
          "  reproduce: pktbench fuzz --reproduce \(path)\(context.specFiles.map { " --spec \($0)" }.joined())"
        )
      }
      out.flush()
      throw ExitCode(1)
    }
  }

  private func replay(_ path: String, codecs: CodecSet, out: OutputWriter) throws {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CommandFailure("cannot read '\(path)'", status: ExitStatus.unreadable)
    }
    let file = URL(fileURLWithPath: path).lastPathComponent
    let fromName = file.split(separator: "-").dropFirst().first.map(String.init)
    guard let name = targets.first ?? fromName, let target = FuzzTargets(codecs: codecs).named(name)
    else {
      throw CommandFailure(
        "cannot tell the target of '\(file)'; name it with --codec (\(FuzzTargets(codecs: codecs).names.joined(separator: ", ")))"
      )
    }
    var stats = FuzzStats()
    let input = [UInt8](data)
    if let failure = target.check(input, stats: &stats) {
      out.line("FAILURE \(target.name) [\(failure.kind)]: \(failure.detail)")
      out.flush()
      throw ExitCode(1)
    }
    let outcome =
      stats.decoded > 0
      ? "decodes as \(stats.messageKinds.names.sorted().joined(separator: ", "))"
      : "is refused with a typed error (\(stats.errorCodes.names.sorted().joined(separator: ", ")))"
    out.line("\(target.name): \(input.count) bytes \(outcome); every invariant holds")
  }

  private func loadCorpus(_ names: [String], codecs: CodecSet) throws -> [String: [[UInt8]]] {
    guard let corpus else { return [:] }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw CommandFailure("--corpus '\(corpus)' is not a directory", status: ExitStatus.unreadable)
    }
    var result: [String: [[UInt8]]] = [:]
    let enumerator = FileManager.default.enumerator(atPath: corpus)
    while let relative = enumerator?.nextObject() as? String {
      let path = "\(corpus)/\(relative)"
      guard let data = FileManager.default.contents(atPath: path), data.count <= 4 << 20 else { continue }
      let bytes = [UInt8](data)
      // A capture seeds the parser target with the whole file and each codec
      // with the payloads it decoded from it: mutations of real traffic.
      if let parser = CorpusCapture.parserTarget(bytes) {
        result[parser, default: []].append(bytes)
        for (codec, payloads) in CorpusCapture.payloads(path, codecs: codecs) {
          result[codec, default: []] += payloads
        }
        continue
      }
      let file = URL(fileURLWithPath: relative).lastPathComponent.lowercased()
      let key = names.first { file.hasPrefix($0) } ?? "*"
      result[key, default: []].append(bytes)
    }
    return result
  }

  private func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    return hash
  }
}

/// The table at the end of a fuzz run.
enum FuzzSummary {
  static func lines(_ report: FuzzRunner.Report) -> [String] {
    var out: [String] = []
    out.append(
      "target      executions  round-trips  execs/s     decoded  kinds  fields  error codes")
    for (name, stats) in report.stats {
      let rate = Int(stats.executionsPerSecond)
      let codes = stats.errorCodes.sorted.map { "\($0.name) \($0.count)" }
      out.append(
        name.padding(toLength: 10) + " " + String(stats.executions).leftPadded(to: 11) + "  "
          + String(stats.roundTrips).leftPadded(to: 11) + "  " + String(rate).leftPadded(to: 9) + "  "
          + String(stats.decoded).leftPadded(to: 8) + "  "
          + String(stats.messageKinds.count).leftPadded(to: 5)
          + "  " + String(stats.fields.count).leftPadded(to: 6) + "  " + codes.joined(separator: ", "))
      if !stats.craftRefusals.isEmpty {
        let refusals = stats.craftRefusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        out.append("           generated values refused by craft: " + refusals.joined(separator: ", "))
      }
    }
    out.append(
      "\(report.failures.isEmpty ? "no failures" : "\(report.failures.count) failure(s)") in "
        + String(format: "%.1f", report.elapsedSeconds) + " s")
    return out
  }
}

/// Real traffic for `fuzz --corpus`: captures are decoded through the same
/// pipeline as `decode`, and each codec's payloads kept (a few hundred each).
enum CorpusCapture {
  static func parserTarget(_ bytes: [UInt8]) -> String? {
    guard bytes.count >= 8 else { return nil }
    if bytes.starts(with: Array("btsnoop\0".utf8)) { return "btsnoop" }
    if PacketLoggerFile.byteOrder(ofFirstBytes: bytes) != nil { return "pklg" }
    let magic = bytes.prefix(4)
    let pcapMagics: [[UInt8]] = [
      [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D],
      [0x0A, 0x0D, 0x0D, 0x0A],
    ]
    return pcapMagics.contains(Array(magic)) ? "pcap" : nil
  }

  final class Collector: MessageSink {
    var payloads: [String: [[UInt8]]] = [:]
    var wantsPayload: Bool { true }
    func emit(_ record: DecodedRecord) {
      guard let codec = record.codecName, let payload = record.payload,
        payloads[codec, default: []].count < 256
      else { return }
      payloads[codec, default: []].append(payload)
    }
    func finish(name: String, stats: CaptureStats) {}
  }

  static func payloads(_ path: String, codecs: CodecSet) -> [String: [[UInt8]]] {
    let collector = Collector()
    let pipeline = CapturePipeline(
      router: PayloadRouter(rules: [], forcedCodec: nil, codecs: codecs), rules: [], sink: collector)
    guard let end = try? CaptureInput(path: path, filter: nil, unreadableStatus: 1).read(into: pipeline)
    else {
      return [:]
    }
    pipeline.finish(readEnd: end)
    return collector.payloads
  }
}
