/// Findings kept for a report, at most `capPerRule` of each rule: a capture
/// with a stall every second must not grow the report without bound. The
/// rest are counted, so the report can say "and 412 more".
struct FindingLog {
  static let defaultCap = 50

  let capPerRule: Int
  private(set) var kept: [Finding] = []
  /// Every finding seen, per rule, kept or not.
  private(set) var totals: [String: Int] = [:]
  /// Every finding seen, per severity, kept or not.
  private(set) var bySeverity: [Finding.Severity: Int] = [:]

  init(capPerRule: Int = FindingLog.defaultCap) {
    self.capPerRule = capPerRule
  }

  mutating func add(_ finding: Finding) {
    let seen = totals[finding.rule, default: 0]
    totals[finding.rule] = seen + 1
    bySeverity[finding.severity, default: 0] += 1
    if seen < capPerRule { kept.append(finding) }
  }

  /// Rules with findings that were counted but not kept.
  var suppressed: [(rule: String, count: Int)] {
    totals.filter { $0.value > capPerRule }.map { ($0.key, $0.value - capPerRule) }
      .sorted { $0.rule < $1.rule }
  }

  func count(_ severity: Finding.Severity) -> Int { bySeverity[severity] ?? 0 }

  /// The worst severity logged, nil when nothing was.
  var worst: Finding.Severity? {
    [.error, .warning, .note].first { count($0) > 0 }
  }
}
