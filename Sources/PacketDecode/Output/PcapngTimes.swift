/// Record times as `-w`'s pcapng holds them: nanoseconds after 1970 in 64
/// bits, so from 1970 to 2554. A time outside (before 1970, through a
/// negative if_tsoffset; a stamp of 2^64 − 1 s; a btsnoop log near 2^63
/// µs, which libpcap and the readers hand over as they are) is written as
/// the nearest time pcapng holds, and counted, so `-w` can say so once.
package struct PcapngTimes {
  package private(set) var clamped = 0
  private var frames: (first: Int, last: Int)?

  /// From libpcap's seconds and nanoseconds.
  package mutating func nanoseconds(seconds: Int, nanoseconds: Int, frame: Int) -> UInt64 {
    guard seconds >= 0, nanoseconds >= 0 else { return clamp(0, frame) }
    let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    let (sum, carry) = whole.addingReportingOverflow(UInt64(nanoseconds))
    return overflow || carry ? clamp(.max, frame) : sum
  }

  /// From a reader's time in seconds; a file stamped in microseconds gets
  /// its own microseconds back by rounding to them (the Double is exact to
  /// about 0.2 µs of a Unix time).
  package mutating func nanoseconds(_ time: Double, microseconds: Bool, frame: Int) -> UInt64 {
    guard time >= 0 else { return clamp(0, frame) }
    let units = microseconds ? (time * 1e6).rounded() : (time * 1e9).rounded()
    let limit = microseconds ? Double(UInt64.max / 1000) : Double(UInt64.max)
    guard units < limit else { return clamp(.max, frame) }
    return microseconds ? UInt64(units) * 1000 : UInt64(units)
  }

  private mutating func clamp(_ value: UInt64, _ frame: Int) -> UInt64 {
    clamped += 1
    frames = (frames?.first ?? frame, frame)
    return value
  }

  /// One line when some times were clamped.
  package var note: String? {
    guard let frames, clamped > 0 else { return nil }
    let which =
      frames.first == frames.last ? "frame \(frames.first)" : "frames \(frames.first)…\(frames.last)"
    return
      "\(clamped) record\(clamped == 1 ? "" : "s") (\(which)) had a time pcapng cannot hold (its nanosecond "
      + "stamps run from 1970 to 2554); written with the nearest time it holds"
  }
}
