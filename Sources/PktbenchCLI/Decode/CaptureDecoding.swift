import Foundation
import PacketCapture
import PacketKit

extension DecodeCommand {
  /// Decodes capture files one after another, streaming each.
  func decodeCaptures(out: OutputWriter) throws {
    let rules = try decodeAs.map { try DecodeAsRule.parse($0) }
    let bleRules = try bleMap.map { try BLEMapRule.parse($0) }
    let router = PayloadRouter(rules: rules, forcedCodec: codec)
    let style = Style(
      enabled: out.isTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
    var failures: [String] = []
    for input in inputs {
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
      pipeline.bleMap = bleRules
      let end = try read(input, into: pipeline)
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

extension DecodeCommand {
  /// Reads one input into the pipeline: btsnoop logs with pktbench's own
  /// reader (libpcap does not read them), everything else through libpcap.
  func read(_ input: String, into pipeline: CapturePipeline) throws -> ReadEnd {
    if input != "-", CaptureKind.isBtsnoop(path: input) {
      let file: BtsnoopFile
      do {
        file = try BtsnoopFile(path: input)
      } catch {
        throw CommandFailure("\(input): \(error.text)", status: 1)
      }
      if filter != nil {
        throw CommandFailure("\(input): --filter (BPF) applies to pcap and pcapng files, not btsnoop logs")
      }
      guard let linkType = BluetoothLinkType.forBtsnoopDatalink(file.datalink) else {
        throw CommandFailure(
          "\(input): btsnoop datalink \(file.datalink) is not decoded; supported: 1001, 1002, 2001", status: 1
        )
      }
      let end = file.read { record in
        pipeline.processBluetooth(
          linkType, frame: record.frame, time: record.time, flags: record.flags, data: record.data)
      }
      switch end {
      case .endOfFile: return .endOfFile
      case .damaged(let afterFrame, let byteOffset, let reason):
        return .damaged(afterFrame: afterFrame, byteOffset: byteOffset, reason: reason)
      }
    }
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: input)
      if let filter { try reader.setFilter(filter) }
    } catch {
      // libpcap's messages often name the file already.
      let text = error.text.contains(input) ? error.text : "\(input): \(error.text)"
      throw CommandFailure(text, status: 1)
    }
    return reader.read { pipeline.process($0) }
  }
}

/// What kind of capture a file is, by its first bytes.
enum CaptureKind {
  static func isBtsnoop(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let magic = (try? handle.read(upToCount: 8)) ?? Data()
    return magic == Data("btsnoop\0".utf8)
  }
}
