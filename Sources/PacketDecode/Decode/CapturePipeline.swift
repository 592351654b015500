import PacketCapture
import PacketKit

/// A capture's records through the payload stage (link, IP, transport,
/// WebSocket, Bluetooth: `PacketCapture`'s work) into `PayloadRecords`
/// (routing, codecs, `-Y`, `-c`, `-w`, counters, the sink). Owns both:
/// the stage delivers to the records, which know nothing of the stage.
package final class CapturePipeline {
  let records: PayloadRecords
  package let stage: PayloadStage
  /// `--start`/`--stop`: records outside these Unix times are not read,
  /// as editcap -A/-B leaves them out.
  @exclusivity(unchecked) package var timeWindow: TimeWindow?

  /// `recordsNeeded`: every message as a record even when the sink only
  /// counts (`-w` marks their records, `-c` counts them). `tracksFrames`:
  /// the records behind each message are noted (`-w`).
  package init(
    router: PayloadRouter, rules: [DecodeAsRule], sink: MessageSink, displayFilter: RecordFilter? = nil,
    recordsNeeded: Bool = false, tracksFrames: Bool = false
  ) {
    records = PayloadRecords(
      router: router, sink: sink, displayFilter: displayFilter, recordsNeeded: recordsNeeded)
    let webSocketPorts = rules.filter {
      $0.transport == .tcp && Self.speaksWebSocket($0.codec, codecs: router.codecs)
    }.map(\.port)
    stage = PayloadStage(
      options: .init(webSocketPorts: Set(webSocketPorts), tracksCarrierFrames: tracksFrames),
      consumer: records)
    if tracksFrames { records.selection = FrameSelection() }
  }

  package var stats: CaptureStats {
    get { records.stats }
    set { records.stats = newValue }
  }
  package var sink: MessageSink { records.sink }
  package var bleMap: [BLEMapRule] {
    get { records.bleMap }
    set { records.bleMap = newValue }
  }
  package var selection: FrameSelection? { records.selection }
  package var messagesLeft: Int? {
    get { records.messagesLeft }
    set { records.messagesLeft = newValue }
  }
  /// Whether `-c` has been reached: reading can stop.
  package var isFull: Bool { records.messagesLeft == 0 }

  package func process(_ record: CaptureRecord) {
    guard accepts(frame: record.frame, time: record.time) else { return }
    stage.process(record)
  }

  package func processBluetooth(
    _ linkType: BluetoothLinkType, frame: Int, time: Double, flags: UInt32, data: UnsafeRawBufferPointer
  ) {
    guard accepts(frame: frame, time: time) else { return }
    stage.processBluetooth(linkType, frame: frame, time: time, flags: flags, data: data)
  }

  /// Whether a record is read at all (`--start`/`--stop`); if it is, it counts.
  @inline(__always)
  private func accepts(frame: Int, time: Double) -> Bool {
    if let timeWindow, !timeWindow.contains(time) { return false }
    let records = self.records
    if records.stats.records == 0 { records.sink.firstRecord(time: time) }
    records.stats.record(frame: frame, time: time)
    return true
  }

  /// A notice of the capture reader about the file.
  package func captureNotice(_ notice: CaptureNotice) {
    stage.notice(notice)
  }

  package func finish(readEnd: ReadEnd) {
    stage.finish()
    if case .damaged(let afterFrame, let byteOffset, let reason) = readEnd {
      let at = byteOffset.map { " at byte offset \($0)" } ?? ""
      records.stats.stoppedEarly = "after record \(afterFrame)\(at): \(reason)"
    }
  }

  /// Whether the codec named travels in WebSocket messages (it names a WebSocket path).
  static func speaksWebSocket(_ codec: String, codecs: CodecSet) -> Bool {
    codecs.named(codec)?.info.wellKnown.contains { if case .webSocket = $0 { true } else { false } } ?? false
  }
}
