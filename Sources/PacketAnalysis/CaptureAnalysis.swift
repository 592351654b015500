import Foundation
import PacketCapture
import PacketDecode
import PacketKit

/// `pktbench analyze` without the command line: capture files in, the
/// report out (`TextReport`, `JSONReport` and `HTMLReport` write it), read
/// through the same pipeline as `decode`. Several pcap and pcapng files, or
/// a directory of them, are one capture merged by time.
///
///     let report = try CaptureAnalysis(codecs: codecs).report(of: ["capture.pcap"])
///     for finding in report.findings { print(finding.rule, finding.frame ?? 0) }
public struct CaptureAnalysis {
  public var codecs: CodecSet
  /// The shared secret auth tokens are checked against, the device models' settings.
  public var options: AnalysisOptions
  /// A BPF filter, as tcpdump takes it.
  public var filter: String?
  /// `--codec` and `--decode-as`: how payloads find their codec.
  package var forcedCodec: String?
  package var rules: [DecodeAsRule] = []
  /// `-Y`: only the records it keeps are analysed.
  package var displayFilter: RecordFilter?
  package var bleMap: [BLEMapRule] = []
  package var timeWindow: TimeWindow?
  /// `--timeline`: where the device models' events go.
  package var timeline: TimelineWriter?
  /// Whether a progress line may show on a terminal (`--no-progress`).
  package var showsProgress = false

  public init(codecs: CodecSet, options: AnalysisOptions = AnalysisOptions(), filter: String? = nil) {
    self.codecs = codecs
    self.options = options
    self.filter = filter
  }

  /// The report of the capture `inputs` make together. Throws a
  /// `CommandFailure` (its `status` an `ExitStatus`) when they cannot be
  /// read; a capture damaged part way is reported up to the damage
  /// (`AnalysisReport.stoppedEarly`).
  public func report(of inputs: [String]) throws -> AnalysisReport {
    let router = PayloadRouter(rules: rules, forcedCodec: forcedCodec, codecs: codecs)
    let sink = AnalysisSink(codecs: codecs, options: options, timeline: timeline)
    let pipeline = CapturePipeline(router: router, rules: rules, sink: sink, displayFilter: displayFilter)
    pipeline.bleMap = bleMap
    pipeline.timeWindow = timeWindow
    // The report comes at the end: the line shows however stdout is read.
    let files = try CaptureFileList.expand(inputs)
    let progress = ProgressLine.make(
      path: files.count == 1 ? files[0] : "-", disabled: !showsProgress,
      messagesToTerminal: timeline != nil && isatty(1) == 1)
    let end: ReadEnd
    if files.count == 1 {
      end = try CaptureInput(path: files[0], filter: filter, progress: progress).read(into: pipeline)
    } else {
      try Self.refuseUnmergeable(files)
      let merged = MergedCaptureInput(paths: files, filter: filter)
      merged.progress = progress
      merged.onGap = { from, to, text, frame in sink.captureGap(from: from, to: to, text: text, frame: frame)
      }
      end = try merged.read(into: pipeline)
    }
    pipeline.finish(readEnd: end)
    let name = CaptureFileList.name(of: inputs)
    sink.finish(name: name, stats: pipeline.stats)
    guard let report = sink.report else {
      throw CommandFailure("\(name): no report was made", status: ExitStatus.unreadable)
    }
    return report
  }

  /// A merge is of pcap and pcapng files, as mergecap's.
  private static func refuseUnmergeable(_ files: [String]) throws {
    for file in files {
      guard FileManager.default.fileExists(atPath: file) else {
        throw CommandFailure("\(file): no such file", status: ExitStatus.unreadable)
      }
      if CaptureInput.isBtsnoop(path: file) || CaptureInput.isPacketLogger(path: file) {
        throw CommandFailure(
          "\(file) is a Bluetooth log; several files are merged only when all are pcap or pcapng: "
            + "analyze it on its own", status: ExitStatus.usage)
      }
    }
  }
}
