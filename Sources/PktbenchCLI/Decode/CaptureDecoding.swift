import ArgumentParser
import Foundation
import PacketCapture
import PacketDecode
import PacketKit

extension DecodeCommand {
  /// Decodes capture files, streaming each; with `--jobs N` several files
  /// are decoded at once, their output still written whole and in order.
  /// `standardInput`: stdin, when the caller has looked at it already.
  func decodeCaptures(codecs: CodecSet, out: OutputWriter, standardInput: StandardInput? = nil) throws {
    // Parse the routing flags once, up front, so a bad flag fails before any output.
    _ = try bleMap.map { try BLEMapRule.parse($0, codecs: codecs) }
    let color = Style.forOutput(out).enabled
    let interruption = ReadInterruption.shared
    interruption.install()
    var failures: [CommandFailure] = []
    let run = try DecodeRun(command: self, codecs: codecs)
    var parallel: ParallelDecode?
    if jobs > 1 && inputs.count > 1 && !run.isShared {
      parallel = ParallelDecode(command: self, codecs: codecs, jobs: jobs, color: color)
      if parallel == nil {
        OutputWriter.standardError.line(
          "pktbench: --jobs: cannot make temporary files in \(NSTemporaryDirectory()) (set TMPDIR); "
            + "decoding one file at a time")
      }
    }
    if let parallel {
      failures = try parallel.run(out: out)
    } else {
      for input in inputs where !interruption.isSet && run.messagesLeft != 0 {
        do {
          if let failure = try decodeOne(
            input, codecs: codecs, out: out, color: color, standardInput: standardInput, run: run)
          {
            failures.append(CommandFailure(failure, status: ExitStatus.failed))
          }
        } catch let failure as CommandFailure where inputs.count > 1 && failure.status != ExitStatus.usage {
          failures.append(failure)  // one bad file among several: say so, go on
        }
      }
    }
    out.flush()
    try run.finish()
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
    _ input: String, codecs: CodecSet, out: OutputWriter, color: Bool, standardInput: StandardInput? = nil,
    run: DecodeRun? = nil
  ) throws -> String? {
    let rules = try routing.rules(codecs: codecs)
    let router = try routing.router(codecs: codecs)
    var sink: MessageSink
    // Several files: each says which it is (a header line, a `file` key or column).
    let named = inputs.count > 1 ? input : nil
    if stats {
      sink = StatsSink(out: out, json: format != .text)
    } else if write != nil && !print {
      sink = SilentSink()
    } else {
      switch format {
      case .text:
        if let named {
          if input != inputs.first { out.line() }
          out.line("==> \(named) <==")
        }
        sink = TextSink(
          out: out, style: Style(enabled: color), verbose: verbose, hexDump: hexDump,
          clock: timeFormat.map(TimeColumn.init), framing: SummaryFraming(codecs))
      case .json: sink = JSONSink(out: out, asArray: true, payloadHex: payloadHex, file: named)
      case .ndjson: sink = JSONSink(out: out, asArray: false, payloadHex: payloadHex, file: named)
      case .csv, .tsv:
        var names =
          fields.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
          ?? ColumnSink.defaultFields
        if named != nil, !names.contains("file") { names.insert("file", at: 0) }
        sink = ColumnSink(
          out: out, columns: try ColumnSink.columns(names, codecs: codecs), names: names,
          separator: format == .csv ? .comma : .tab, clock: timeFormat.map(TimeColumn.init), file: input,
          header: input == inputs.first)
      }
    }
    var exportSink: ObjectExportSink?
    if let export = run?.objects {
      let wrapped = ObjectExportSink(inner: sink, export: export)
      exportSink = wrapped
      sink = wrapped
    }
    let pipeline = CapturePipeline(
      router: router, rules: rules, sink: sink,
      displayFilter: try RecordFilter.compile(displayFilter, codecs: codecs),
      recordsNeeded: run?.needsRecords ?? false, tracksFrames: run?.export != nil)
    pipeline.bleMap = try bleMap.map { try BLEMapRule.parse($0, codecs: codecs) }
    pipeline.timeWindow = try timeWindow.window()
    run?.prepare(pipeline)
    // Messages written to the terminal as they come would scroll the line away.
    let quiet = stats || (write != nil && !print)
    let progress = ProgressLine.make(
      path: input, disabled: noProgress || jobs > 1, messagesToTerminal: out.isTerminal && !quiet)
    let end = try CaptureInput(path: input, filter: filter, standardInput: standardInput, progress: progress)
      .read(into: pipeline)
    pipeline.finish(readEnd: end)
    sink.finish(name: input, stats: pipeline.stats)
    if let failure = exportSink?.failure { throw failure }
    try run?.finished(input, pipeline)
    return pipeline.stats.stoppedEarly.map {
      "\(input): the file is damaged; decoded up to it, stopped \($0)"
    }
  }
}

/// What one `decode` run carries from file to file: the `-w` file the
/// records of every input go to.
final class DecodeRun {
  let export: PcapngExport?
  /// `--export-jpeg`: where the objects of every file go.
  let objects: ObjectExport?
  /// `-c`: messages still to show in all the files; nil for no limit.
  private(set) var messagesLeft: Int?

  init(command: DecodeCommand, codecs: CodecSet) throws(CommandFailure) {
    export = try command.write.map { path throws(CommandFailure) in
      try PcapngExport(path: path, inputs: command.inputs)
    }
    objects = try command.exportJPEG.map { directory throws(CommandFailure) in
      try ObjectExport(
        directory: directory, mediaType: "image/jpeg", codecs: codecs, overwrite: command.overwrite,
        maxFiles: command.maxFiles)
    }
    messagesLeft = command.count
  }

  /// Whether files must be decoded one after the other, in this process's
  /// order (not by `--jobs` workers): they share the `-w` file, the export
  /// directory, or `-c`.
  var isShared: Bool { export != nil || objects != nil || messagesLeft != nil }

  /// Whether every message must be a record, even for `--stats`: to mark
  /// its records, or to count it.
  var needsRecords: Bool { isShared }

  func prepare(_ pipeline: CapturePipeline) {
    pipeline.messagesLeft = messagesLeft
  }

  /// One input decoded: its marked records go to the `-w` file.
  func finished(_ input: String, _ pipeline: CapturePipeline) throws(CommandFailure) {
    if messagesLeft != nil { messagesLeft = pipeline.messagesLeft }
    if let export, let selection = pipeline.selection {
      try export.copy(from: input, selection: selection)
    }
  }

  /// All inputs decoded: the `-w` file is closed, and stderr says what it holds.
  func finish() throws(CommandFailure) {
    if let objects { OutputWriter.standardError.line("pktbench: \(objects.summary)") }
    guard let export else { return }
    try export.close()
    if let note = export.times.note { OutputWriter.standardError.line("pktbench: -w: \(note)") }
    let skipped = export.skipped > 0 ? " (\(export.skipped) of another link type left out)" : ""
    OutputWriter.standardError.line(
      "pktbench: wrote \(export.recordsWritten) record\(export.recordsWritten == 1 ? "" : "s") to \(export.path)\(skipped)"
    )
  }
}
