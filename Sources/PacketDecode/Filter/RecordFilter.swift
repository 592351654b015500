import PacketKit

/// `-Y` / `--display-filter`: a display filter on decoded records, compiled
/// once per run (per pipeline: each `--jobs` worker compiles its own).
package struct RecordFilter: Sendable {
  package let filter: DisplayFilter
  /// Says which records a regular expression gave up on.
  private let giveUps = FilterGiveUps()

  package init(filter: DisplayFilter) {
    self.filter = filter
  }

  /// Whether `record` is shown (or, for `analyze`, analysed). A regular
  /// expression that runs out of steps on it does not match, and stderr says so.
  @inline(__always)
  package func matches(_ record: DecodedRecord) -> Bool {
    var budget = FilterBudget()
    let kept = filter.matches(record, budget: &budget)
    if budget.isExhausted { giveUps.say(record.frame) }
    return kept
  }

  /// The filter `text` asks for (nil: none). A malformed one is a usage
  /// error before any input is read: one line pointing at the column, exit 64.
  package static func compile(_ text: String?, codecs: CodecSet) throws(CommandFailure) -> RecordFilter? {
    guard let text else { return nil }
    do {
      return RecordFilter(filter: try DisplayFilter(text, vocabulary: RecordFields(codecs: codecs)))
    } catch {
      throw CommandFailure("-Y: \(error.description)", status: 64)
    }
  }

  /// What `-Y` means, for the help of the commands that take it.
  package static let syntax =
    "tshark's syntax on decoded fields: 'legctrl.state == \"FAULT\" or rider.left > 90'"
}

extension RecordFilter {
  /// Compiles `text` to report a malformed filter before anything is read;
  /// one payload (`decode --hex`) is not filtered, so `-Y` is refused there.
  package static func check(_ text: String?, onePayload: Bool, codecs: CodecSet) throws(CommandFailure) {
    guard text != nil else { return }
    if onePayload {
      throw CommandFailure(
        "-Y filters the messages of captures; --hex and stdin with --codec are one payload", status: 64)
    }
    _ = try compile(text, codecs: codecs)
  }
}
