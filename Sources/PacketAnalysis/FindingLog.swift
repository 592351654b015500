import PacketKit

/// Findings kept for a report, at most `capPerRule` of each rule, and no
/// more than the capture-wide budget allows: a capture with a stall every
/// second, or thousands of flows, must not grow the report without bound.
/// The rest are counted, so the report can say "and 412 more".
package struct FindingLog {
  static let defaultCap = 50

  package let capPerRule: Int
  private let budget: FindingBudget?
  package private(set) var kept: [Finding] = []
  /// Every finding seen, per rule, kept or not.
  private(set) var totals: [String: Int] = [:]
  private var keptPerRule: [String: Int] = [:]
  /// Every finding seen, per severity, kept or not.
  private(set) var bySeverity: [Finding.Severity: Int] = [:]

  package init(capPerRule: Int = FindingLog.defaultCap, budget: FindingBudget? = nil) {
    self.capPerRule = capPerRule
    self.budget = budget
  }

  package mutating func add(_ finding: Finding) {
    totals[finding.rule, default: 0] += 1
    bySeverity[finding.severity, default: 0] += 1
    let keptSoFar = keptPerRule[finding.rule, default: 0]
    guard keptSoFar < capPerRule, budget?.take() ?? true else { return }
    keptPerRule[finding.rule] = keptSoFar + 1
    kept.append(finding)
  }

  /// Rules with findings that were counted but not kept.
  package var suppressed: [(rule: String, count: Int)] {
    totals.compactMap { rule, total in
      let dropped = total - (keptPerRule[rule] ?? 0)
      return dropped > 0 ? (rule, dropped) : nil
    }.sorted { $0.rule < $1.rule }
  }

  package func count(_ severity: Finding.Severity) -> Int { bySeverity[severity] ?? 0 }

  /// The worst severity logged, nil when nothing was.
  package var worst: Finding.Severity? {
    [.error, .warning, .note].first { count($0) > 0 }
  }
}

/// How many findings the whole capture may keep in full, shared by its flows.
package final class FindingBudget {
  static let defaultLimit = 5000

  package private(set) var remaining: Int

  package init(limit: Int = FindingBudget.defaultLimit) {
    remaining = limit
  }

  package func take() -> Bool {
    guard remaining > 0 else { return false }
    remaining -= 1
    return true
  }
}
