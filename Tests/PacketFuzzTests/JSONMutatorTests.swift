import PacketKit
import Testing

@testable import PacketFuzz

struct JSONMutatorTests {
  private let object = Array(#"{"a":1, "b":[2,3],"c":"x"}"#.utf8)

  private func applied(_ splice: JSONMutator.Splice, to input: [UInt8]) -> String {
    var bytes = input
    bytes.replaceSubrange(splice.range, with: splice.bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Removing a member takes one comma with it, whichever member it is
  /// (expected texts written by hand).
  @Test func removingAMemberLeavesValidJSON() throws {
    let ranges = try JSONTape.read(object) { root in root.members.map(\.range) }
    let expected = [#"{"b":[2,3],"c":"x"}"#, #"{"a":1, "c":"x"}"#, #"{"a":1, "b":[2,3]}"#]
    #expect(ranges.count == 3)
    for index in ranges.indices {
      let range = JSONMutator.removal(of: index, count: ranges.count) { ranges[$0] }
      let text = applied(.init(range: range, bytes: []), to: object)
      #expect(text == expected[index])
      #expect((try? JSONTape.read(Array(text.utf8)) { _ in }) != nil, "\(text)")
    }
    let single = Array(#"[7]"#.utf8)
    let elements = try JSONTape.read(single) { root in root.elements.map(\.range) }
    let range = JSONMutator.removal(of: 0, count: 1) { elements[$0] }
    #expect(applied(.init(range: range, bytes: []), to: single) == "[]")
  }

  /// String damage cuts and inserts between characters: the text stays
  /// valid UTF-8 whatever the draw.
  @Test func stringDamageKeepsCharactersWhole() throws {
    let input = Array(#"{"s":"héllo wörld 日本 🤖"}"#.utf8)
    let value = try JSONTape.read(input) { root in root.members[0].value.range }
    let text = value.lowerBound + 1..<value.upperBound - 1
    var rng = SplitMix64(seed: 3)
    var kinds = Set<Int>()
    for _ in 0..<2000 {
      let splice = JSONMutator.damage(text: text, in: input, rng: &rng)
      kinds.insert(splice.bytes.isEmpty ? 0 : splice.bytes.count)
      let bytes = Array(applied(splice, to: input).utf8)
      var damaged = input
      damaged.replaceSubrange(splice.range, with: splice.bytes)
      #expect(bytes == damaged, "splice \(splice.range) is not whole characters")
    }
    // Cut, "!" or "=" (one byte), and the text doubled.
    #expect(kinds == [0, 1, text.count])
  }

  /// Over many draws of a Rider command, the mutator drops, repeats, adds
  /// and swaps members, keeps the rest of the text as it was, and most
  /// results are still JSON.
  @Test func mutationsOfAnObjectAreSplices() throws {
    let input = Array(#"{"left":-100,"right":100,"timestamp":1700000000.05}"#.utf8)
    var rng = SplitMix64(seed: 11)
    var parsed = 0
    var dropped = 0
    var repeated = 0
    var added = 0
    let runs = 3000
    for _ in 0..<runs {
      guard let bytes = JSONMutator().mutate(input, rng: &rng) else {
        Issue.record("a JSON object was not mutated")
        return
      }
      #expect(bytes != input)
      let object = try? JSONTape.read(bytes) { root in
        root.kind == .object ? root.members.map(\.key.text) : nil
      }
      guard let keys = object ?? nil else { continue }
      parsed += 1
      if keys.count == 2 { dropped += 1 }
      if keys.count == 4, keys.last.map(["left", "right", "timestamp"].contains) == true { repeated += 1 }
      if keys.last?.hasPrefix("unexpected_") == true { added += 1 }
    }
    #expect(parsed > runs / 2)
    #expect(dropped > runs / 20)
    #expect(repeated > runs / 20)
    #expect(added > runs / 20)
  }

  @Test func notJSONIsLeftToTheByteMutator() {
    var rng = SplitMix64(seed: 1)
    #expect(JSONMutator().mutate(Array("drive 10 20".utf8), rng: &rng) == nil)
    #expect(JSONMutator().mutate(Array(#"{"a":"#.utf8), rng: &rng) == nil)
  }
}
