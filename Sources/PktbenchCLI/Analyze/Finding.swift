import PacketKit

/// Something the analysis found, with the capture frames it rests on, so a
/// person (or another tool) can go straight back to them.
struct Finding {
  typealias Severity = Diagnostic.Severity

  /// Stable machine-readable name, `<protocol>.<rule>`: `rider.watchdog-gap`.
  var rule: String
  var severity: Severity
  /// When it happened (Unix seconds): the start of a gap, the frame a close was in.
  var time: Double
  /// The frame it is about first.
  var frame: Int?
  /// Every frame it rests on, ascending, `frame` included.
  var frames: [Int]
  /// One sentence for a person: what happened and why it matters.
  var text: String
  /// Measured values: named frames (`fault_frame`), durations, codes.
  var details: [FieldValue.Member]
  /// How long it lasted, for findings about a stretch of time (a silence,
  /// a gap): it starts at `time`.
  var duration: Double?
  /// The flow it belongs to (set when the flow logs it); nil for the capture as a whole.
  var flowID: Int?

  init(
    _ rule: String, _ severity: Severity, time: Double, frame: Int?, related: [Int?] = [],
    duration: Double? = nil, text: String, details: [FieldValue.Member] = []
  ) {
    self.duration = duration
    self.rule = rule
    self.severity = severity
    self.time = time
    self.frame = frame
    self.frames = Array(Set(([frame] + related).compactMap { $0 })).sorted()
    self.text = text
    self.details = details
  }
}
