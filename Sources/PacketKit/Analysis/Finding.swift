/// Something the analysis found, with the capture frames it rests on, so a
/// person (or another tool) can go straight back to them.
public struct Finding: Sendable {
  public typealias Severity = Diagnostic.Severity

  /// Stable machine-readable name, `<protocol>.<rule>`: `rider.watchdog-stop`.
  public var rule: String
  public var severity: Severity
  /// When it happened (Unix seconds): the start of a gap, the frame a close was in.
  public var time: Double
  /// The frame it is about first.
  public var frame: Int?
  /// Every frame it rests on, ascending, `frame` included.
  public var frames: [Int]
  /// One sentence for a person: what happened and why it matters.
  public var text: String
  /// Measured values: named frames (`fault_frame`), durations, codes.
  public var details: [FieldValue.Member]
  /// How long it lasted, for findings about a stretch of time (a silence,
  /// a gap): it starts at `time`.
  public var duration: Double?
  /// The flow it belongs to (set when the flow logs it, or by a device
  /// for the client its frame came from); nil for the capture as a whole.
  public var flowID: Int?
  /// The device it belongs to (set when a device logs it).
  public var deviceID: Int?

  public init(
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
