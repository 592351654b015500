import Foundation
import PacketKit

/// The records on which a `-Y` regular expression ran out of steps (a
/// pattern that backtracks without bound, such as `(a+)+$`): each counts as
/// not matching, and the first few are named on stderr, so that a filter
/// that silently drops records is not taken for one that found nothing.
final class FilterGiveUps: @unchecked Sendable {
  /// Records named one by one; after them, one line says more followed.
  package static let named = 5

  private let lock = NSLock()
  private var count = 0

  package func say(_ frame: Int?) {
    lock.lock()
    count += 1
    let number = count
    lock.unlock()
    guard number <= Self.named + 1 else { return }
    let line =
      number <= Self.named
      ? "-Y: record \(frame.map(String.init) ?? "?"): a regular expression gave up after \(FilterBudget.stepsPerRecord) steps "
        + "(it backtracks without bound on this text); the record is taken as not matching it"
      : "-Y: more records made a regular expression give up; they are not named"
    OutputWriter.standardError.line("pktbench: \(line)")
  }
}
