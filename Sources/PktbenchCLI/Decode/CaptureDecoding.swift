import ArgumentParser
import Foundation
import PacketCapture
import PacketKit

extension DecodeCommand {
  /// Decodes capture files, streaming each; with `--jobs N` several files
  /// are decoded at once, their output still written whole and in order.
  /// `standardInput`: stdin, when the caller has looked at it already.
  func decodeCaptures(out: OutputWriter, standardInput: StandardInput? = nil) throws {
    // Parse the routing flags once, up front, so a bad flag fails before any output.
    _ = try bleMap.map { try BLEMapRule.parse($0) }
    let color = Style.forOutput(out).enabled
    let interruption = ReadInterruption.shared
    interruption.install()
    var failures: [CommandFailure] = []
    var parallel: ParallelDecode?
    if jobs > 1 && inputs.count > 1 {
      parallel = ParallelDecode(command: self, jobs: jobs, color: color)
      if parallel == nil {
        OutputWriter.standardError.line(
          "pktbench: --jobs: cannot make temporary files in \(NSTemporaryDirectory()) (set TMPDIR); "
            + "decoding one file at a time")
      }
    }
    if let parallel {
      failures = try parallel.run(out: out)
    } else {
      for input in inputs where !interruption.isSet {
        do {
          if let failure = try decodeOne(input, out: out, color: color, standardInput: standardInput) {
            failures.append(CommandFailure(failure, status: ExitStatus.failed))
          }
        } catch let failure as CommandFailure where inputs.count > 1 && failure.status != ExitStatus.usage {
          failures.append(failure)  // one bad file among several: say so, go on
        }
      }
    }
    out.flush()
    if interruption.isSet {
      for failure in failures { OutputWriter.standardError.line("pktbench: \(failure.message)") }
      OutputWriter.standardError.line(
        "pktbench: interrupted by \(interruption.signalName); the output ends after the last whole record")
      throw ExitCode(ExitStatus.interrupted)
    }
    if let last = failures.last {
      for failure in failures.dropLast() { OutputWriter.standardError.line("pktbench: \(failure.message)") }
      // The gravest status of all the files': unreadable (2) over damaged (1).
      throw CommandFailure(last.message, status: failures.map(\.status).max() ?? last.status)
    }
  }

  /// Decodes one file into `out`; returns where a damaged file stopped.
  func decodeOne(
    _ input: String, out: OutputWriter, color: Bool, standardInput: StandardInput? = nil
  ) throws -> String? {
    let rules = try routing.rules()
    let router = try routing.router()
    let sink: MessageSink
    if stats {
      sink = StatsSink(out: out, json: format != .text)
    } else {
      switch format {
      case .text:
        sink = TextSink(out: out, style: Style(enabled: color), verbose: verbose, hexDump: hexDump)
      case .json: sink = JSONSink(out: out, asArray: true, payloadHex: payloadHex)
      case .ndjson: sink = JSONSink(out: out, asArray: false, payloadHex: payloadHex)
      }
    }
    let pipeline = CapturePipeline(
      router: router, rules: rules, sink: sink, displayFilter: try RecordFilter.compile(displayFilter))
    pipeline.bleMap = try bleMap.map { try BLEMapRule.parse($0) }
    let end = try CaptureInput(path: input, filter: filter, standardInput: standardInput).read(into: pipeline)
    pipeline.finish(readEnd: end)
    sink.finish(name: input, stats: pipeline.stats)
    return pipeline.stats.stoppedEarly.map {
      "\(input): the file is damaged; decoded up to it, stopped \($0)"
    }
  }
}
