import ArgumentParser
import Foundation
import PacketAnalysis
import PacketDecode
import PacketKit

/// `pktbench analyze`: a health report of a capture, per flow, against the
/// protocols' timing and safety rules.
struct AnalyzeCommand: CodecCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(
      commandName: "analyze",
      abstract: "Health report of a capture: what each device did, rates, gaps and safety findings.",
      discussion: """
        Per device (the endpoint every sender, connection and file reaches): \
        what it did with all of its clients' traffic, in capture order, as its \
        plugin's model of the device predicts it (--timeline writes those \
        events), and the protocol's rules, in one time line; under it each \
        client (UDP pair, TCP/WebSocket connection, BLE connection) with its \
        message rates against the protocol's, inter-arrival percentiles and the \
        longest gaps; every WebSocket close with its likely cause; and a verdict.

        Several files (or a directory, or dumpcap's ring-buffer files) are read \
        as one capture merged by time, as mergecap merges them; where a file \
        records its end and the next starts later, that stretch is said not \
        captured.

        """
          + HelpExamples.text(
            "analyze",
            generic: [
              "pktbench analyze field-session.pcapng",
              "pktbench analyze capture.pcap --html report.html",
              "pktbench analyze capture.pcap --fail-on warning     # for CI",
              "pktbench analyze capture.pcap --format json | jq '.findings[] | select(.severity==\"error\")'",
              "pktbench analyze capture.pcap --timeline     # one device event a line",
              "pktbench analyze ring_00001_*.pcapng ring_00002_*.pcapng    # files as one capture",
              "pktbench analyze captures/     # every pcap and pcapng file in it, merged by time",
            ])
            + """


            Exit status: 0 when the report was made, 1 when --fail-on found findings \
            that severe, 2 when the input cannot be read, 64 for a wrong command line, 74 when the report cannot be written, \
            130 when stopped by SIGINT or SIGTERM (the report is then of what was read).
            """)
  }

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json
  }

  enum FailOn: String, ExpressibleByArgument, CaseIterable {
    case error, warning, note, never

    var severity: Finding.Severity? {
      switch self {
      case .error: .error
      case .warning: .warning
      case .note: .note
      case .never: nil
      }
    }
  }

  @Argument(
    help:
      "Capture file (pcap, pcapng, btsnoop, PacketLogger .pklg), or - for stdin; several pcap/pcapng files or a directory are merged by time."
  )
  var inputs: [String]

  /// The file (or files) as the report names them.
  var input: String { CaptureFileList.name(of: inputs) }

  @Option(help: "Report on stdout: text or json.")
  var format: Format = .text

  @Option(name: .customLong("html"), help: "Also write a self-contained HTML report with plots to this file.")
  var htmlPath: String?

  @Option(
    name: .customLong("fail-on"),
    help: "Exit 1 when findings this severe or worse are found: error, warning, note or never.")
  var failOn: FailOn = .never

  @Option(help: "BPF filter, same syntax as tcpdump.")
  var filter: String?

  @Option(
    name: [.customShort("Y"), .customLong("display-filter")],
    help:
      "Analyse only the records this display filter keeps (\(RecordFilter.syntax)): nothing else feeds the rates, gaps, models or rules."
  )
  var displayFilter: String?

  @OptionGroup var routing: RoutingOptions

  @Option(
    name: .customLong("ble-map"),
    help:
      "Route a BLE ATT handle to a codec: 0x0012=\(HelpExamples.bleCodec), or 0x0040:0x0012=\(HelpExamples.bleCodec) (repeatable)."
  )
  var bleMap: [String] = []

  @Option(
    help: "A shared secret to check the protocols' auth tokens against (HMAC of \"deviceId:timestamp\").")
  var secret: String?

  @Option(
    name: .customLong("model"),
    help: """
      A setting of a codec's device model, as emulate takes it: CODEC.SETTING=VALUE, or CODEC.SETTING \
      for a switch (repeatable; 'pktbench emulate --help' lists them).
      """)
  var modelSettings: [String] = []

  @Flag(
    help: """
      Write what each modelled device did instead of the report: NDJSON, one event a line, \
      in time order (time, frame, device, flow, codec, event, certain, state, text).
      """)
  var timeline = false

  @Flag(
    name: .customLong("no-progress"),
    help: "No progress line on stderr (shown only on a terminal, after two seconds).")
  var noProgress = false

  @OptionGroup var timeWindow: TimeWindowOptions

  @OptionGroup var spec: SpecOption

  func run(_ context: CommandRun) throws {
    let codecs = context.codecs
    let out = OutputWriter()
    ReadInterruption.shared.install()
    let report = try analyze(codecs: codecs, timeline: timeline ? TimelineWriter(out: out) : nil)
    switch timeline ? nil : format {
    case nil:
      break
    case .text?:
      let style = Style.forOutput(out)
      for line in TextReport.lines(report, style: style) { out.line(line) }
    case .json?:
      out.bytes(JSONReport.bytes(report))
      out.line()
    }
    out.flush()
    if let htmlPath {
      let page = HTMLReport.page(report)
      guard FileManager.default.createFile(atPath: htmlPath, contents: Data(page.utf8)) else {
        throw CommandFailure("--html: cannot write \(htmlPath)", status: ExitStatus.output)
      }
      if format == .text { OutputWriter.standardError.line("pktbench: wrote \(htmlPath)") }
    }
    if let stopped = report.stoppedEarly {
      OutputWriter.standardError.line(
        "pktbench: \(input): the file is damaged; analysed up to it, stopped \(stopped)")
    }
    if let signal = report.interrupted {
      OutputWriter.standardError.line(
        "pktbench: interrupted by \(signal); the report is of the \(report.records) records read")
      throw ExitCode(ExitStatus.interrupted)
    }
    if let severity = failOn.severity, report.fails(at: severity) {
      throw ExitCode(ExitStatus.failed)
    }
  }

  /// Reads the capture through the same pipeline as `decode`, into the analysis.
  func analyze(codecs: CodecSet, timeline: TimelineWriter? = nil) throws -> AnalysisReport {
    let rules = try routing.rules(codecs: codecs)
    let settings = try ModelSettingArguments.parse(modelSettings, codecs: codecs)
    var analysis = CaptureAnalysis(
      codecs: codecs, options: AnalysisOptions(secret: secret, modelSettings: settings), filter: filter)
    analysis.rules = rules
    analysis.forcedCodec = routing.codec
    analysis.displayFilter = try RecordFilter.compile(displayFilter, codecs: codecs)
    analysis.bleMap = try bleMap.map { try BLEMapRule.parse($0, codecs: codecs) }
    analysis.timeWindow = try timeWindow.window()
    analysis.timeline = timeline
    analysis.showsProgress = !noProgress
    return try analysis.report(of: inputs)
  }
}
