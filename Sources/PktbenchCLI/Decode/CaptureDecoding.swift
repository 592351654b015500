import Foundation
import PacketCapture
import PacketKit

extension DecodeCommand {
  /// Decodes capture files, streaming each; with `--jobs N` several files
  /// are decoded at once, their output still written whole and in order.
  func decodeCaptures(out: OutputWriter) throws {
    // Parse the routing flags once, up front, so a bad flag fails before any output.
    _ = try decodeAs.map { try DecodeAsRule.parse($0) }
    _ = try bleMap.map { try BLEMapRule.parse($0) }
    let color = out.isTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    var failures: [String] = []
    if jobs > 1 && inputs.count > 1 {
      failures = try ParallelDecode(command: self, jobs: jobs, color: color).run(out: out)
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
    let rules = try decodeAs.map { try DecodeAsRule.parse($0) }
    let router = PayloadRouter(rules: rules, forcedCodec: codec)
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
    let pipeline = CapturePipeline(router: router, rules: rules, sink: sink)
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
