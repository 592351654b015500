import PacketFuzz
import Testing

@Suite struct TallyTests {
  @Test func countsEachNameAndSaysWhenOneIsNew() {
    var tally = Tally()
    #expect(tally.isEmpty)
    let new1 = tally.add("bad-length")
    #expect(new1)
    let new2 = tally.add("bad-length")
    #expect(!new2)
    let new3 = tally.add("truncated", 3)
    #expect(new3)
    // A name built at run time is the same name as the literal.
    let built = ["bad", "length"].joined(separator: "-")
    let new4 = tally.add(built)
    #expect(!new4)
    // Longer than a String holds inline, from two different buffers.
    let long = String(repeating: "unexpected-payload", count: 2)
    let new5 = tally.add(long)
    #expect(new5)
    let new6 = tally.add(String(long))
    #expect(!new6)
    #expect(tally["bad-length"] == 3)
    #expect(tally["truncated"] == 3)
    #expect(tally[long] == 2)
    #expect(tally["bad-version"] == 0)
    #expect(tally.count == 3)
    #expect(tally.total == 8)
    #expect(tally.sorted.map(\.name) == ["bad-length", "truncated", long])
  }

  @Test func equalityIgnoresTheOrderNamesWereSeen() {
    var a = Tally()
    a.add("x")
    a.add("y", 2)
    var b = Tally()
    b.add("y", 2)
    b.add("x")
    #expect(a == b)
    b.add("x")
    #expect(a != b)
    var c = a
    c.add("z")
    #expect(a != c)
  }
}
