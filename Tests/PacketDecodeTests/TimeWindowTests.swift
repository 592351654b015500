import Testing

@testable import PacketDecode

/// `--start`/`--stop` times, against Python's datetime.fromisoformat(…).timestamp()
/// (UTC when no offset is given).
@Suite struct TimeWindowTests {
  @Test(arguments: [
    ("2026-11-22 02:52:42", 1_795_315_962.0),
    ("2026-11-22T02:52:42.25Z", 1_795_315_962.25),
    ("2026-11-22 08:22:42.25+05:30", 1_795_315_962.25),
    ("2026-11-21T21:52:42-0500", 1_795_315_962.0),
    ("1795315962.5", 1_795_315_962.5),
    (" 1795315962 ", 1_795_315_962.0),
  ])
  func timesParse(text: String, seconds: Double) {
    #expect(TimeWindow.parseTime(text) == seconds)
  }

  @Test(arguments: [
    "", "yesterday", "2026-13-01 00:00:00", "2026-11-22", "2026-11-22 25:00:00", "2026-11-22 02:52:42.",
    "2026-11-22 02:52:42+5", "2026-11-22 02:52:42 UTC", "nan", "inf", "-", "1e400",
  ])
  func nonsenseIsNotATime(text: String) {
    #expect(TimeWindow.parseTime(text) == nil)
  }

  @Test func startIsInStopIsOut() {
    let window = TimeWindow(start: 10, stop: 20)
    #expect(window.contains(10) && window.contains(19.999999))
    #expect(!window.contains(9.999999) && !window.contains(20))
    #expect(TimeWindow(start: nil, stop: 20).contains(-1))
  }
}
