import PacketCapture
import PacketDecode
import PacketKit

/// Several pcap and pcapng files read as one capture, as `mergecap` merges
/// them: record by record in time order (ties to the earlier file), frames
/// numbered in that order, so a device's story runs on across a file
/// boundary. Only one record per file is held at a time.
///
/// Where the files say the capture stopped (a recorded `isb_endtime`) and
/// the next file starts later, the time between was not captured: the
/// analysis is told so (`onGap`) rather than reading it as silence.
final class MergedCaptureInput {
  /// A later start than the recorded end by less than this is the same instant.
  static let seamless = 0.010

  private final class Source {
    let path: String
    let reader: PcapFileReader
    /// The record read ahead: its time, link type, lengths and bytes.
    var time = 0.0
    var linkType: Int32 = 0
    var captured = 0
    var original = 0
    var bytes: [UInt8] = []
    var hasNext = false
    var finished = false
    var started = false
    var first: Double?
    var last: Double?
    /// What the file records, checked against its records.
    var recordedStart: Double?
    var recordedEnd: Double?
    var notes: [PcapngRecordedTimes.Note] = []

    init(path: String, reader: PcapFileReader) {
      self.path = path
      self.reader = reader
    }

    /// Reads the next record ahead; false at the end (or damage, in `end`).
    func advance() -> ReadEnd? {
      var got = false
      let end = reader.read { record in
        time = record.time
        linkType = record.linkType
        captured = record.capturedLength
        original = record.originalLength
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: record.data)
        got = true
        reader.stop()
      }
      hasNext = got
      if got {
        if first == nil { first = time }
        last = time
        return nil
      }
      return end
    }
  }

  package let paths: [String]
  package var filter: String?
  package var progress: ProgressLine?
  /// A stretch no file covered: from, to, which files it lies between, and
  /// the frame after it.
  var onGap: ((Double, Double, String, Int) -> Void)?

  package init(paths: [String], filter: String?) {
    self.paths = paths
    self.filter = filter
  }

  package func read(into pipeline: CapturePipeline) throws -> ReadEnd {
    defer { progress?.finish() }
    var sources: [Source] = []
    for path in paths {
      let reader: PcapFileReader
      do {
        reader = try PcapFileReader(path: path)
        if let filter { try reader.setFilter(filter) }
      } catch {
        let text = error.text.contains(path) ? error.text : "\(path): \(error.text)"
        throw CommandFailure(
          text, status: error.text.contains("invalid filter") ? ExitStatus.usage : ExitStatus.unreadable)
      }
      reader.filtersOnRead = false
      reader.onNotice = { pipeline.captureNotice($0) }
      sources.append(Source(path: path, reader: reader))
    }
    var damage: ReadEnd?
    for source in sources {
      if let end = source.advance() { damage = damage ?? Self.damaged(end, source) }
      source.finished = !source.hasNext
      let recorded = PcapngRecordedTimes.read(path: source.path, first: source.first, last: nil)
      source.recordedStart = recorded?.start
    }
    var frame = 0
    let interruption = ReadInterruption.shared
    while let next = sources.filter({ $0.hasNext }).min(by: { $0.time < $1.time }) {
      frame += 1
      if !next.started {
        next.started = true
        noteGap(before: next, among: sources, frame: frame)
      }
      next.bytes.withUnsafeBytes { data in
        let record = CaptureRecord(
          frame: frame, time: next.time, linkType: next.linkType, capturedLength: next.captured,
          originalLength: next.original, data: data)
        if next.reader.passes(record) { pipeline.process(record) }
        progress?.record(length: next.captured + 20)
      }
      if let end = next.advance() {
        if damage == nil, let damaged = Self.damaged(end, next) { damage = damaged }
        finish(next)
      }
      if interruption.isSet || pipeline.isFull { break }
    }
    for source in sources where !source.finished { finish(source) }
    let ends = sources.compactMap { source in (source.recordedEnd ?? source.last).map { ($0, source) } }
    if let latest = ends.max(by: { $0.0 < $1.0 }), latest.1.recordedEnd != nil {
      pipeline.stats.recordedEnd = latest.0
    }
    pipeline.stats.recordedStart = sources.compactMap(\.recordedStart).min()
    pipeline.stats.recordedTimeNotes = sources.flatMap { source in
      source.notes.map { PcapngRecordedTimes.Note(text: "\(source.path): \($0.text)", atStart: $0.atStart) }
    }
    if interruption.isSet {
      pipeline.stats.interrupted = interruption.signalName
      return .endOfFile
    }
    return damage ?? .endOfFile
  }

  private func finish(_ source: Source) {
    source.finished = true
    source.hasNext = false
    let recorded = PcapngRecordedTimes.read(path: source.path, first: source.first, last: source.last)
    source.recordedEnd = recorded?.end
    source.notes = recorded?.notes ?? []
  }

  /// `source` is about to give its first record: if no other file is
  /// running and the files before it recorded their end earlier than it
  /// starts, that stretch was not captured.
  private func noteGap(before source: Source, among sources: [Source], frame: Int) {
    guard !sources.contains(where: { $0 !== source && $0.started && !$0.finished }) else { return }
    let before = sources.filter { $0 !== source && $0.started && $0.finished }
    guard
      let previous = before.max(by: { ($0.recordedEnd ?? $0.last ?? 0) < ($1.recordedEnd ?? $1.last ?? 0) }),
      let end = previous.recordedEnd, let start = source.recordedStart ?? source.first,
      start - end > Self.seamless
    else { return }
    onGap?(end, start, "between \(previous.path) and \(source.path)", frame)
  }

  private static func damaged(_ end: ReadEnd, _ source: Source) -> ReadEnd? {
    guard case .damaged(let after, let offset, let reason) = end else { return nil }
    return .damaged(afterFrame: after, byteOffset: offset, reason: "\(source.path): \(reason)")
  }
}
