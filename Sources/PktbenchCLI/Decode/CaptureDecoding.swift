import Foundation
import PacketCapture
import PacketKit

extension DecodeCommand {
  /// Decodes capture files one after another, streaming each.
  func decodeCaptures(out: OutputWriter) throws {
    let rules = try decodeAs.map { try DecodeAsRule.parse($0) }
    let router = PayloadRouter(rules: rules, forcedCodec: codec)
    let style = Style(
      enabled: out.isTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    var failures: [String] = []
    for input in inputs {
      let reader: PcapFileReader
      do {
        reader = try PcapFileReader(path: input)
        if let filter { try reader.setFilter(filter) }
      } catch {
        throw CommandFailure("\(input): \(error.text)", status: 1)
      }
      let sink: MessageSink
      if stats {
        sink = StatsSink(out: out, json: format != .text)
      } else {
        switch format {
        case .text: sink = TextSink(out: out, style: style, verbose: verbose, hexDump: hexDump)
        case .json: sink = JSONSink(out: out, asArray: true, payloadHex: payloadHex)
        case .ndjson: sink = JSONSink(out: out, asArray: false, payloadHex: payloadHex)
        }
      }
      let pipeline = CapturePipeline(router: router, rules: rules, sink: sink)
      let end = reader.read { pipeline.process($0) }
      pipeline.finish(readEnd: end)
      sink.finish(name: input, stats: pipeline.stats)
      if let stopped = pipeline.stats.stoppedEarly {
        failures.append("\(input): the file is damaged; decoded up to it, stopped \(stopped)")
      }
    }
    out.flush()
    if !failures.isEmpty {
      for failure in failures.dropLast() { OutputWriter.standardError.line("pktbench: \(failure)") }
      throw CommandFailure(failures.last ?? "", status: 1)
    }
  }
}
