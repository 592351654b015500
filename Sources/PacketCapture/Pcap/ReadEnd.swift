/// How reading a capture ended.
public enum ReadEnd: Sendable, Hashable {
  /// Every record was read.
  case endOfFile
  /// Reading stopped at damage: `afterFrame` records were read intact
  /// (0 = none), `byteOffset` is where the file position was when libpcap
  /// gave up (nil when the input is a pipe), `reason` is libpcap's message.
  case damaged(afterFrame: Int, byteOffset: Int?, reason: String)
}
