import PacketKit
import Testing

/// The number fast paths must give exactly what the slow, obvious ways give:
/// strtod for reading (through `Double(String)`), Swift's `description` for
/// writing. Both are checked on many generated values (a seeded SplitMix64,
/// so a failure repeats), not on a few picked ones, so a rounding slip shows up.
@Suite struct NumberFastPathTests {
  static func digits(_ count: Int, leadingNonZero: Bool, _ rng: inout SplitMix64) -> String {
    String(
      (0..<count).map { index in
        Character(String(leadingNonZero && index == 0 ? 1 + rng.below(9) : rng.below(10)))
      })
  }

  /// Number texts of every JSON shape: signs, zeros, long mantissas, fractions, exponents.
  static func numberTexts(count: Int) -> [String] {
    var rng = SplitMix64(seed: 20_261_123)
    var texts = [
      "0", "-0", "0.0", "-0.0", "1e22", "1e23", "9007199254740993", "0.1", "1700000000.05", "5e-324",
    ]
    for _ in 0..<count {
      var text = rng.below(3) == 0 ? "-" : ""
      let whole = rng.below(4) == 0 ? 1 : 1 + rng.below(20)
      text += whole == 1 && rng.below(2) == 0 ? "0" : digits(whole, leadingNonZero: true, &rng)
      if rng.below(2) == 0 { text += "." + digits(1 + rng.below(18), leadingNonZero: false, &rng) }
      if rng.below(4) == 0 {
        text += ["e", "E"][rng.below(2)] + ["", "+", "-"][rng.below(3)] + String(rng.below(40))
      }
      texts.append(text)
    }
    return texts
  }

  @Test func fastValueIsStrtodsValueOrDeclines() throws {
    var read = 0
    for text in Self.numberTexts(count: 200_000) {
      let bytes = Array(text.utf8)
      let fast = bytes.withUnsafeBytes { JSONNumber.fastValue($0, from: 0, to: $0.count) }
      guard let fast else { continue }
      read += 1
      let slow = try #require(Double(text))
      #expect(fast.bitPattern == slow.bitPattern, "\(text): fast \(fast), strtod \(slow)")
    }
    #expect(read > 100_000, "the fast path should read most short numbers; it read \(read)")
  }

  /// Mantissas of 16 to 19 digits (a Swift app's 17-digit timestamps, such
  /// as 1795625457.4498959) with |e| ≤ 22 are read by `scanExact` (the JSON
  /// parser's) without strtod, and
  /// exactly: random ones, ties between two doubles (2^53 + 1 and its odd
  /// neighbours, scaled by powers of ten) and the largest 19-digit ones.
  @Test func wideMantissasAreReadExactly() throws {
    var rng = SplitMix64(seed: 20_261_125)
    var texts = [
      "9007199254740993", "9007199254740995", "9007199254740997", "90071992547409930",
      "900719925474099.3", "18014398509481985", "1795625457.4498959", "9999999999999999999",
      "9999999999999999999e22", "9999999999999999999e-22", "1000000000000000001e-22",
      "1.234567890123456789", "0.1000000000000000055511151231257827", "4.9406564584124654e-22",
    ]
    for _ in 0..<200_000 {
      let count = 16 + rng.below(4)
      let digits = Self.digits(count, leadingNonZero: true, &rng)
      let point = rng.below(count + 1)
      var text = rng.below(2) == 0 ? "" : "-"
      if point == count {
        text += digits
      } else {
        text += String(digits.prefix(max(point, 1))) + "." + digits.dropFirst(max(point, 1))
      }
      if rng.below(3) == 0 { text += "e" + String(Int(rng.below(31)) - 15) }
      texts.append(text)
    }
    var read = 0
    for text in texts {
      let bytes = Array(text.utf8)
      var index = 0
      let scanned = bytes.withUnsafeBufferPointer { buffer in
        buffer.baseAddress.flatMap { JSONNumber.scanExact($0, &index, buffer.count) }
      }
      let slow = try #require(Double(text))
      // The decimal exponent after moving the point behind the last digit.
      let fraction = text.split(separator: "e")[0].split(separator: ".").dropFirst().first?.count ?? 0
      let written = text.split(separator: "e").dropFirst().first.flatMap { Int($0) } ?? 0
      guard (-22...22).contains(written - fraction) else { continue }
      read += 1
      #expect(scanned?.0.bitPattern == slow.bitPattern, "\(text): \(scanned?.0 ?? .nan), strtod \(slow)")
      #expect(index == bytes.count, "\(text)")
    }
    #expect(read > 100_000)
  }

  @Test func parserReadsEveryNumberAsStrtodDoes() throws {
    for text in Self.numberTexts(count: 20_000) {
      guard let slow = Double(text), slow.isFinite else { continue }
      let parsed = try JSONTape.read(Array(text.utf8)) { $0.number }
      #expect(parsed?.bitPattern == slow.bitPattern, "\(text)")
    }
  }

  @Test func fastValueRefusesWhatIsNotANumber() {
    for text in ["", "-", "01", "1.", ".5", "1e", "1e+", "--1", "1x", "0x10", " 1"] {
      let bytes = Array(text.utf8)
      #expect(bytes.withUnsafeBytes { JSONNumber.fastValue($0, from: 0, to: $0.count) } == nil, "\(text)")
    }
  }

  /// What `JSONWriter.number` writes, as text.
  static func written(_ value: Double) -> String {
    var writer = JSONWriter()
    writer.number(value)
    return writer.text
  }

  @Test func numbersAreWrittenAsDescriptionWritesThem() {
    var rng = SplitMix64(seed: 7)
    var values: [Double] = [0.05, -37.5, 0.1, 0.001, 0.0011, 1700000000.05, 1700049999.95, 123.456, 2.5e-3]
    for _ in 0..<200_000 {
      switch rng.below(5) {
      case 4:  // up to 2^53 with a few decimals: neighbours of the nearest candidate matter here
        values.append(Double(rng.next() >> UInt64(11 + rng.below(20))) / [10, 100, 1000][rng.below(3)])
      case 0:  // capture timestamps: seconds with up to 6 decimals
        values.append(
          1_700_000_000 + Double(rng.below(100_000_000)) / [10, 100, 1000, 1_000_000][rng.below(4)])
      case 1:  // percentages and small decimals
        values.append(Double(Int(rng.below(200_001)) - 100_000) / [10, 100, 1000][rng.below(3)])
      case 2:  // any bit pattern
        values.append(Double(bitPattern: rng.next()))
      default:  // sums that are not short (0.1 + 0.2)
        values.append(Double(rng.below(1000)) / 10 + Double(rng.below(1000)) / 100)
      }
    }
    for value in values where value.isFinite {
      #expect(Self.written(value) == JSONWriter.formatNumber(value), "\(value.bitPattern)")
    }
  }

  /// Digit counts and padded integers against Swift's own integer text, at
  /// every power-of-ten boundary and on random magnitudes.
  @Test func integersAreWrittenAsStringWritesThem() {
    var random = SplitMix64(seed: 21)
    var magnitudes: [UInt64] = [0, .max]
    var power: UInt64 = 1
    for _ in 0..<19 {
      power *= 10
      magnitudes += [power - 1, power, power + 1]
    }
    for _ in 0..<20_000 { magnitudes.append(random.next() >> UInt64(random.below(64))) }
    for magnitude in magnitudes {
      #expect(JSONWriter.decimalDigits(magnitude) == String(magnitude).count, "\(magnitude)")
      guard let value = Int64(exactly: magnitude) else { continue }
      for signed in [value, -value] {
        var writer = JSONWriter()
        writer.decimal(signed, width: 12, fill: UInt8(ascii: " "))
        let text = String(signed)
        #expect(writer.text == String(repeating: " ", count: max(0, 12 - text.count)) + text)
      }
    }
  }
}

/// `JSONNumber.scan` reads eight digits at a time while eight bytes remain: a
/// number followed by more text (the usual case inside a message) must end
/// exactly where its text does, whatever byte follows it, and read the same
/// value as when it stands alone.
@Suite struct NumberScanInTextTests {
  /// Bytes that may follow a number: JSON punctuation, the bytes next to
  /// the digits ("/" and ":"), and bytes whose low nibble is a digit's.
  static let followers: [[UInt8]] = [
    Array(",\"right\":100}".utf8), Array("}".utf8), Array("]".utf8), Array(" , ".utf8), Array("/".utf8),
    Array(":".utf8), [0xB5, 0x35], [0x00], [0x7F, 0x30], [0x39 + 0x80], Array("\"x\"".utf8),
    [0xFA, 0x39], [0xFF, 0x35, 0x35],
  ]

  @Test func scanStopsWhereTheNumberEnds() throws {
    var rng = SplitMix64(seed: 11)
    var read = 0
    for text in NumberFastPathTests.numberTexts(count: 100_000) {
      let alone = Array(text.utf8)
      let expected = alone.withUnsafeBytes { JSONNumber.fastValue($0, from: 0, to: $0.count) }
      let follower = Self.followers[rng.below(Self.followers.count)]
      let padding = [UInt8](repeating: UInt8(ascii: " "), count: rng.below(12))
      let lead = [UInt8](repeating: UInt8(ascii: "["), count: rng.below(3))
      let bytes = lead + alone + follower + padding
      bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        var index = lead.count
        let scanned = JSONNumber.scan(base, &index, buffer.count)
        // The parser's scanExact reads a run's last digits as a word when
        // eight bytes follow: it must agree wherever scan reads a value.
        var exactIndex = lead.count
        let exact = JSONNumber.scanExact(base, &exactIndex, buffer.count)
        if let expected {
          read += 1
          #expect(scanned?.0.bitPattern == expected.bitPattern, "\(text) before \(follower)")
          #expect(index == lead.count + alone.count, "\(text) before \(follower): ended at \(index)")
          #expect(exact?.0.bitPattern == expected.bitPattern, "scanExact: \(text) before \(follower)")
          #expect(exactIndex == index, "scanExact: \(text) before \(follower): ended at \(exactIndex)")
        } else {
          #expect(scanned == nil || index != lead.count + alone.count, "\(text) before \(follower)")
        }
      }
    }
    #expect(read > 50_000)
  }

  /// A run of digits ends at the first byte that is not one, whatever
  /// byte that is (a digit run is read eight bytes at a time; a byte
  /// above 0xF9 carries into the next one in that arithmetic) and
  /// wherever in the word it falls.
  @Test func digitRunsEndAtEveryByte() {
    var rng = SplitMix64(seed: 0xD161)
    let ends = Set("0123456789.eE".utf8)
    for length in 1...20 {
      for stop in UInt8.min...UInt8.max where !ends.contains(stop) {
        let digits = NumberFastPathTests.digits(length, leadingNonZero: true, &rng)
        let tail = (0..<rng.below(12)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let bytes = Array(digits.utf8) + [stop] + tail
        bytes.withUnsafeBufferPointer { buffer in
          guard let base = buffer.baseAddress else { return }
          var index = 0
          let scanned = JSONNumber.scan(base, &index, buffer.count)
          #expect(index == length, "\(digits) then \(stop)")
          if length <= 15 { #expect(scanned?.0 == Double(digits), "\(digits) then \(stop)") }
          var exactIndex = 0
          let exact = JSONNumber.scanExact(base, &exactIndex, buffer.count)
          #expect(exactIndex == length, "scanExact: \(digits) then \(stop)")
          if length <= 19 { #expect(exact?.0 == Double(digits), "scanExact: \(digits) then \(stop)") }
          var counted = 0
          #expect(JSONNumber.digitCounts(base, &counted, buffer.count)?.whole == length)
          #expect(counted == length, "\(digits) then \(stop)")
        }
      }
    }
  }

  /// `digitCounts` follows `scan`'s grammar: for every number without an
  /// exponent it counts the digits on each side of the point and ends where
  /// the number does; an exponent or a text that is not a number gives nil.
  @Test func digitCountsFollowTheNumberGrammar() {
    var counted = 0
    for text in NumberFastPathTests.numberTexts(count: 50_000) + [
      "", "-", "01", "1.", ".5", "--1", "1x", "0x10", " 1",
    ] {
      let bytes = Array(text.utf8) + Array(",".utf8)
      let hasExponent = text.contains("e") || text.contains("E")
      let isNumber =
        !text.isEmpty && Double(text) != nil && text.utf8.allSatisfy { !" x".utf8.contains($0) }
        && !text.hasPrefix(".") && !text.hasSuffix(".") && !text.hasPrefix("01") && !text.hasPrefix("--")
      bytes.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        var index = 0
        let counts = JSONNumber.digitCounts(base, &index, buffer.count)
        guard isNumber, !hasExponent else {
          // "1x" and "0x10" are a number's digits, then other bytes: counted
          // up to them, which the caller sees next and refuses.
          if text != "1x", text != "0x10" { #expect(counts == nil, "\(text)") }
          return
        }
        counted += 1
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        #expect(counts?.whole == parts[0].count, "\(text)")
        #expect(counts?.fraction == (parts.count > 1 ? parts[1].count : 0), "\(text)")
        #expect(index == text.utf8.count, "\(text): ended at \(index)")
      }
    }
    #expect(counted > 20_000)
  }

  /// `scan`'s value and `isWritersForm`'s answer for a whole text.
  static func writersForm(_ text: String) -> (value: Double, isWritersForm: Bool)? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return nil }
      var index = 0
      guard let (value, isInteger) = JSONNumber.scan(base, &index, buffer.count), index == buffer.count
      else { return nil }
      return (value, JSONNumber.isWritersForm(base, 0, index, value: value, isInteger: isInteger))
    }
  }

  /// Where `isWritersForm` says a text is the writer's own, `JSONWriter`
  /// writes the value as exactly that text (ndjson and summary lines copy
  /// it). Checked on every shape of number, most of them short; and the
  /// texts the writer spells differently are refused by name.
  @Test func writersFormIsTheWritersText() {
    var rng = SplitMix64(seed: 20_261_124)
    var texts = NumberFastPathTests.numberTexts(count: 20_000)
    for _ in 0..<50_000 {
      var text = rng.below(3) == 0 ? "-" : ""
      let whole = 1 + rng.below(10)
      text +=
        whole == 1 && rng.below(3) == 0 ? "0" : NumberFastPathTests.digits(whole, leadingNonZero: true, &rng)
      if rng.below(3) > 0 {
        text += "." + NumberFastPathTests.digits(1 + rng.below(7), leadingNonZero: false, &rng)
      }
      texts.append(text)
    }
    var accepted = 0
    for text in texts {
      guard let (value, isWritersForm) = Self.writersForm(text), isWritersForm else { continue }
      accepted += 1
      #expect(NumberFastPathTests.written(value) == text)
    }
    #expect(accepted > 20_000)
    for text in [
      "0", "-100", "100", "1700000000.05", "-0.5", "0.001", "-0.001", "999999999999999", "12345678901234.5",
    ] {
      #expect(Self.writersForm(text)?.isWritersForm == true, "\(text)")
    }
    // "-0" is written "0", "1.50" as "1.5", 1e5 without exponent, 0.0005
    // with one; more than 15 digits may not be the shortest text.
    for text in [
      "-0", "1.50", "100.0", "1e5", "1.5e3", "1.5E-3", "0.0005", "1234567890123456", "0.1234567890123451",
    ] {
      #expect(Self.writersForm(text)?.isWritersForm == false, "\(text)")
    }
  }
}
