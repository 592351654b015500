import PacketKit
import Testing

@testable import PacketDecode

/// The time column and other fixed-decimal numbers. Expected texts are
/// Python's: the value times 10^digits in doubles, rounded half away from
/// zero, then split by integer division.
@Suite struct SummaryTimeTests {
  @Test(arguments: [
    (0.05, 6, 11, "   0.050000"),
    (0.05021, 6, 11, "   0.050210"),
    (1234.5, 6, 0, "1234.500000"),
    (-1.5, 6, 0, "-1.500000"),
    (12.3456, 3, 0, "12.346"),
    (0.0, 6, 11, "   0.000000"),
    (3599.9999996, 6, 11, "3600.000000"),
    (1e-7, 6, 0, "0.000000"),
    // 8,999,999,999,795,999,744 units of 10^-6: dividing the Double rounded
    // the whole part up to ...796 and left a fraction of -256.
    (8_999_999_999_796.0, 6, 0, "8999999999795.999744"),
  ])
  func fixedDecimals(value: Double, digits: Int, width: Int, expected: String) {
    var out = JSONWriter()
    SummaryRenderer.appendFixed(value, digits: digits, width: width, to: &out)
    #expect(out.text == expected)
  }
}
