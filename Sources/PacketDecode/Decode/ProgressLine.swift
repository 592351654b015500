import Foundation
import PacketKit

#if canImport(Glibc)
  import Glibc
#endif

/// Progress on long reads: once a run has taken two seconds, one line on
/// stderr that rewrites itself (records, bytes read of the file, rate,
/// time left) and is cleared at the end. Only on a terminal: never in a
/// pipe or a CI log, nor when the messages themselves scroll on the same
/// terminal. The clock is read every 256 records, the line redrawn at
/// most four times a second.
package final class ProgressLine {
  private let total: Int?
  private let started = monotonicNanoseconds()
  private let delay: UInt64
  @exclusivity(unchecked) private var records = 0
  @exclusivity(unchecked) private var bytes = 0
  private var lastDrawn: UInt64 = 0
  private var shown = false

  /// A progress line for reading `path` ("-": stdin, size unknown), or nil
  /// when there must be none: `--no-progress`, stderr not a terminal, or
  /// stdout a terminal the messages are written to.
  package static func make(path: String, disabled: Bool, messagesToTerminal: Bool) -> ProgressLine? {
    guard !disabled, isatty(2) == 1, !messagesToTerminal else { return nil }
    var total: Int?
    if path != "-", let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int {
      total = size
    }
    return ProgressLine(total: total)
  }

  package init(total: Int?) {
    self.total = total
    // For tests: how long before the line shows (2 s unless set).
    let seconds = ProcessInfo.processInfo.environment["PKTBENCH_PROGRESS_DELAY"].flatMap(Double.init) ?? 2
    delay = UInt64(max(0, seconds) * 1e9)
  }

  /// One record read, `length` bytes of it (with its header, roughly).
  @inline(__always)
  package func record(length: Int) {
    records += 1
    bytes += length
    if records & 255 == 1 { tick() }
  }

  @inline(never)
  private func tick() {
    let now = monotonicNanoseconds()
    let elapsed = now - started
    guard elapsed >= delay, now - lastDrawn >= 250_000_000 || !shown else { return }
    lastDrawn = now
    shown = true
    let seconds = max(Double(elapsed) / 1e9, 1e-3)
    var line = "\r\(Self.grouped(records)) record\(records == 1 ? "" : "s")  \(Self.megabytes(bytes))"
    if let total, total > 0 {
      let read = min(bytes, total)
      line += " of \(Self.megabytes(total)) (\(read * 100 / total) %)"
    }
    line += "  \(Self.grouped(Int(Double(records) / seconds))) records/s"
    if let total, bytes > 0, bytes < total {
      let left = Double(total - bytes) / (Double(bytes) / seconds)
      line += "  \(Self.clock(left)) left"
    }
    write(line + "\u{1B}[K")
  }

  /// Clears the line, if it was shown.
  package func finish() {
    if shown { write("\r\u{1B}[K") }
    shown = false
  }

  private func write(_ text: String) {
    text.withCString { _ = Glibc.write(2, $0, strlen($0)) }
  }

  package static func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var out = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
      out.append(digit)
    }
    return out
  }

  static func megabytes(_ bytes: Int) -> String {
    "\(SummaryRenderer.fixed(Double(bytes) / 1e6, digits: 1)) MB"
  }

  /// `M:SS`, or `H:MM:SS` from an hour.
  package static func clock(_ seconds: Double) -> String {
    let whole = Int(min(seconds, 359_999).rounded(.up))
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    if whole >= 3600 { return "\(whole / 3600):\(two(whole / 60 % 60)):\(two(whole % 60))" }
    return "\(whole / 60):\(two(whole % 60))"
  }
}
