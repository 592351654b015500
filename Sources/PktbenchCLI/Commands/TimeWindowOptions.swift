import ArgumentParser
import PacketDecode

/// `--start` and `--stop`: read only the records of a stretch of time, as
/// editcap -A and -B keep them (start inclusive, stop exclusive).
struct TimeWindowOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp("Read only records at or after this time: \(TimeWindow.syntax).", valueName: "TIME"))
  var start: String?

  @Option(
    help: ArgumentHelp("Read only records before this time (same forms as --start).", valueName: "TIME"))
  var stop: String?

  /// The window asked for; nil when neither bound is given.
  func window() throws(CommandFailure) -> TimeWindow? {
    guard start != nil || stop != nil else { return nil }
    func parse(_ text: String?, _ flag: String) throws(CommandFailure) -> Double? {
      guard let text else { return nil }
      guard let time = TimeWindow.parseTime(text) else {
        throw CommandFailure(
          "\(flag) '\(text)' is not a time; give \(TimeWindow.syntax)", status: ExitStatus.usage)
      }
      return time
    }
    let window = TimeWindow(start: try parse(start, "--start"), stop: try parse(stop, "--stop"))
    if let from = window.start, let to = window.stop, to <= from {
      throw CommandFailure("--stop must be after --start", status: ExitStatus.usage)
    }
    return window
  }
}
