import PacketKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// When a pcapng capture ended, as the file records it: the `isb_endtime`
/// of an Interface Statistics Block at the file's end (pktbench's `capture
/// -w`, dumpcap and tcpdump's pcapng writers put one there). A pcap file,
/// or a pcapng file without one, does not say: its last packet is all that
/// is known, and traffic may have gone on unseen.
public enum PcapngEndTime {
  /// Unix seconds, or nil when the file does not record its end (or is
  /// not a seekable pcapng file). Taken as the interface's resolution
  /// says; `PcapngRecordedTimes` checks it against the records.
  public static func read(path: String) -> Double? {
    times(path: path).map { Double($0.end ?? 0) * $0.unit }.flatMap { $0 > 0 ? $0 : nil }
  }

  /// The ISB's `isb_starttime` and `isb_endtime` as raw ticks, and the
  /// seconds per tick the first interface declares.
  static func times(path: String) -> (start: UInt64?, end: UInt64?, unit: Double)? {
    guard path != "-" else { return nil }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    func bytes(at offset: Int64, count: Int) -> [UInt8]? {
      var out = [UInt8](repeating: 0, count: count)
      let got = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
      return got == count ? out : nil
    }
    let size = Int64(lseek(descriptor, 0, SEEK_END))
    guard size >= 28, let header = bytes(at: 0, count: 12),
      header[0..<4].elementsEqual([0x0A, 0x0D, 0x0D, 0x0A])
    else { return nil }
    let little = header[8..<12].elementsEqual([0x4D, 0x3C, 0x2B, 0x1A])
    guard little || header[8..<12].elementsEqual([0x1A, 0x2B, 0x3C, 0x4D]) else { return nil }
    func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
      let v = (0..<4).map { UInt32(b[at + $0]) }
      return little ? v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24 : v[3] | v[2] << 8 | v[1] << 16 | v[0] << 24
    }
    func u16(_ b: [UInt8], _ at: Int) -> Int {
      little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at + 1]) | Int(b[at]) << 8
    }
    // The first interface's timestamp resolution (if_tsresol), microseconds by default.
    let sectionLength = Int64(u32(header, 4))
    var unit = 1e-6
    if let idbHead = bytes(at: sectionLength, count: 8), u32(idbHead, 0) == 1 {
      let length = Int(u32(idbHead, 4))
      if length >= 20, length <= 65_536, let idb = bytes(at: sectionLength, count: length) {
        var at = 16
        while at + 4 <= length - 4 {
          let (code, count) = (u16(idb, at), u16(idb, at + 2))
          if code == 0 || at + 4 + count > length - 4 { break }
          if code == 9, count >= 1 {
            let value = idb[at + 4]
            unit = value & 0x80 == 0 ? pow(10, -Double(value)) : pow(2, -Double(value & 0x7F))
          }
          at += 4 + (count + 3) / 4 * 4
        }
      }
    }
    // The last block, found by its trailing length.
    guard let tail = bytes(at: size - 4, count: 4) else { return nil }
    let length = Int64(u32(tail, 0))
    guard length >= 24, length <= min(size, 65_536), let block = bytes(at: size - length, count: Int(length)),
      u32(block, 0) == 5
    else { return nil }
    var at = 20
    var start: UInt64?
    var end: UInt64?
    while at + 4 <= Int(length) - 4 {
      let (code, count) = (u16(block, at), u16(block, at + 2))
      if code == 0 || at + 4 + count > Int(length) - 4 { break }
      if code == 2 || code == 3, count == 8 {
        let ticks = UInt64(u32(block, at + 4)) << 32 | UInt64(u32(block, at + 8))
        if code == 2 { start = ticks } else { end = ticks }
      }
      at += 4 + (count + 3) / 4 * 4
    }
    return start == nil && end == nil ? nil : (start, end, unit)
  }
}

/// When a pcapng capture started and ended, as its Interface Statistics
/// Block says, checked against its records: dumpcap 4.0 writes
/// `isb_starttime` and `isb_endtime` in microseconds while its interface
/// declares nanoseconds, which puts the end a thousandfold early. A time
/// that cannot be right as declared is read in the other unit when that
/// fits (after the last record by less than a day, or before the first),
/// and otherwise ignored; either way a note says so.
public struct PcapngRecordedTimes: Sendable, Equatable {
  /// Past this after the last record (or before the first) a recorded time
  /// is not the capture's.
  public static let plausible = 86_400.0
  /// Clocks are read to the microsecond: this much on the wrong side is the same instant.
  public static let tolerance = 0.001

  /// A time read another way, or ignored, in words; `atStart` for
  /// `isb_starttime`.
  public struct Note: Sendable, Equatable {
    public var text: String
    public var atStart: Bool

    public init(text: String, atStart: Bool) {
      self.text = text
      self.atStart = atStart
    }
  }

  public var start: Double?
  public var end: Double?
  public var notes: [Note] = []

  public init(start: Double?, end: Double?, notes: [Note] = []) {
    self.start = start
    self.end = end
    self.notes = notes
  }

  /// The file's recorded times that fit its records (`first`, `last`:
  /// the first and last record's times); nil when it records none.
  public static func read(path: String, first: Double?, last: Double?) -> PcapngRecordedTimes? {
    guard let raw = PcapngEndTime.times(path: path) else { return nil }
    return fitted(start: raw.start, end: raw.end, unit: raw.unit, first: first, last: last)
  }

  public static func fitted(start: UInt64?, end: UInt64?, unit: Double, first: Double?, last: Double?)
    -> PcapngRecordedTimes
  {
    var times = PcapngRecordedTimes(start: nil, end: nil)
    if let end {
      times.end = fit(
        end, unit: unit, name: "isb_endtime", notes: &times.notes,
        fits: { value in
          guard let last else { return true }
          return value >= last - tolerance && value <= last + plausible
        }, side: "before the last record or more than a day after it"
      ).map { max($0, last ?? $0) }
    }
    if let start {
      times.start = fit(
        start, unit: unit, name: "isb_starttime", notes: &times.notes,
        fits: { value in
          guard let first else { return true }
          return value <= first + tolerance && value >= first - plausible
        }, side: "after the first record or more than a day before it"
      ).map { min($0, first ?? $0) }
    }
    return times
  }

  /// `ticks` as declared, else in the other of microseconds and nanoseconds.
  private static func fit(
    _ ticks: UInt64, unit: Double, name: String, notes: inout [Note], fits: (Double) -> Bool, side: String
  ) -> Double? {
    let atStart = name == "isb_starttime"
    let declared = Double(ticks) * unit
    if fits(declared) { return declared }
    let other: (unit: Double, words: String)? =
      unit == 1e-9 ? (1e-6, "microseconds") : unit == 1e-6 ? (1e-9, "nanoseconds") : nil
    let said = "the file's \(name) reads \(Format.fixed(declared, digits: 6)), \(side)"
    if let other, fits(Double(ticks) * other.unit) {
      let value = Double(ticks) * other.unit
      notes.append(
        Note(
          text: "\(said); read in \(other.words) instead (as dumpcap 4.0 writes it) it is "
            + Format.fixed(value, digits: 6), atStart: atStart))
      return value
    }
    notes.append(Note(text: "\(said) in either unit: ignored", atStart: atStart))
    return nil
  }
}
