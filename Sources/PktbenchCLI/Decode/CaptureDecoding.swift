import Foundation
import PacketCapture
import PacketKit

extension DecodeCommand {
  /// Decodes capture files, streaming each; with `--jobs N` several files
  /// are decoded at once, their output still written whole and in order.
  func decodeCaptures(out: OutputWriter) throws {
    // Parse the routing flags once, up front, so a bad flag fails before any output.
    _ = try bleMap.map { try BLEMapRule.parse($0) }
    let color = out.isTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    var failures: [String] = []
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
      for input in inputs {
        do {
          if let failure = try decodeOne(input, out: out, color: color) { failures.append(failure) }
        } catch let failure as CommandFailure where inputs.count > 1 {
          failures.append(failure.message)  // one bad file among several: say so, go on
        }
      }
    }
    out.flush()
    if !failures.isEmpty {
      for failure in failures.dropLast() { OutputWriter.standardError.line("pktbench: \(failure)") }
      throw CommandFailure(failures.last ?? "", status: 1)
    }
  }

  /// Decodes one file into `out`; returns where a damaged file stopped.
  func decodeOne(_ input: String, out: OutputWriter, color: Bool) throws -> String? {
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
    let end = try read(input, into: pipeline)
    pipeline.finish(readEnd: end)
    sink.finish(name: input, stats: pipeline.stats)
    return pipeline.stats.stoppedEarly.map {
      "\(input): the file is damaged; decoded up to it, stopped \($0)"
    }
  }
}

extension DecodeCommand {
  func read(_ input: String, into pipeline: CapturePipeline) throws -> ReadEnd {
    try CaptureInput(path: input, filter: filter, unreadableStatus: 1).read(into: pipeline)
  }
}
