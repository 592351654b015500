import Foundation
import PacketKit
import Testing

/// The tape: strings read in place (long ones found by memchr and checked in
/// one pass), keys compared by their text, members and elements stepped
/// through, and errors inside long strings at their byte.
@Suite struct JSONTapeTests {
  /// Every special character at every position of strings up to 80
  /// characters (past the 32 where the long path starts), written by
  /// Foundation's JSONSerialization and read back.
  @Test func foundationsStringsReadBack() throws {
    let specials: [Character] = ["\"", "\\", "/", "\n", "\u{01}", "\u{7F}", "é", "→", "😀", "a"]
    for length in 0..<80 {
      for position in 0..<max(length, 1) {
        for special in specials {
          var characters = Array(repeating: Character("b"), count: length)
          if length > 0 { characters[position] = special }
          let text = String(characters)
          let json = try JSONSerialization.data(withJSONObject: [text], options: [])
          try JSONTape.read(Array(json)) { root in
            let element = try #require(root.elements.first { _ in true })
            #expect(element.string == text, "\(Array(text.utf8))")
            #expect(element.range == 1..<json.count - 1)
            // Read in place exactly when the wire bytes are the text.
            let plain = text.utf8.allSatisfy {
              $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C && $0 != 0x2F
            }
            #expect((element.verbatimBytes != nil) == plain, "\(Array(text.utf8))")
          }
        }
      }
    }
  }

  /// A control byte or invalid UTF-8 at any offset of a long string is
  /// reported at that offset; an unclosed long string as truncated.
  @Test func errorsInLongStringsAreAtTheirByte() {
    for position in 0..<150 {
      for (bad, code) in [(UInt8(0x01), "bad-string"), (0xFF, "bad-utf8"), (0xC0, "bad-utf8")] {
        var text =
          [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "A"), count: 160) + [UInt8(ascii: "\"")]
        text[1 + position] = bad
        let error = JSONTape.error(parsing: text)
        #expect(error?.code == code)
        #expect(error?.offset == 1 + position, "byte \(bad) at \(position)")
      }
    }
    let unclosed = [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "A"), count: 100)
    #expect(JSONTape.error(parsing: unclosed)?.code == "truncated")
  }

  @Test func keysCompareByTheirText() throws {
    try JSONTape.read(Array(#"{"typ\u0065":1,"type":2,"payload":"x"}"#.utf8)) { root in
      let members = root.members
      #expect(members.count == 3)
      #expect(members[0].key.text == "type")
      #expect(members[0].key.textEquals("type"))
      #expect(members[0].key.sameText(as: members[1].key))
      #expect(!members[0].key.sameText(as: members[2].key))
      // The first member with the key is the one read.
      #expect(root["type"]?.number == 1)
      #expect(root.member("payload")?.range == 24..<37)
      #expect(root["missing"] == nil)
    }
  }

  /// Keys of every length up to 20 (short ones are compared a word at a
  /// time) equal themselves and differ from the same text with any one
  /// byte changed, whichever way each side is compared.
  @Test func keysDifferingInOneByteDiffer() throws {
    var rng = SplitMix64(seed: 0x5A3E)
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_".utf8)
    for length in 0...20 {
      let key = (0..<length).map { _ in letters[rng.below(letters.count)] }
      for position in -1..<length {
        var other = key
        if position >= 0 {
          other[position] = other[position] == UInt8(ascii: "q") ? UInt8(ascii: "r") : UInt8(ascii: "q")
        }
        let json =
          "{\"" + String(decoding: key, as: UTF8.self) + "\":1,\"" + String(decoding: other, as: UTF8.self)
          + "\":2}"
        try JSONTape.read(Array(json.utf8)) { root in
          let members = root.members
          let equal = position < 0
          #expect(members[0].key.sameText(as: members[1].key) == equal, "\(json)")
          #expect(members[0].key.textEquals(String(decoding: other, as: UTF8.self)) == equal, "\(json)")
          #expect(members[1].key.textEquals(String(decoding: key, as: UTF8.self)) == equal, "\(json)")
          #expect(members[0].key.textEquals(String(decoding: key, as: UTF8.self)), "\(json)")
        }
      }
    }
  }

  /// A member found again by its position (`JSONNode.member(at:)`, how a
  /// FalconEye object reads its known keys) is the one `member` finds by
  /// name, whatever the keys, their order and the values between them.
  @Test func membersAtTheirPositions() throws {
    var rng = SplitMix64(seed: 8)
    let names = ["a", "bb", "frameId", "timestamp", "imageData", "devicePose", "intrinsics", "x1"]
    for _ in 0..<300 {
      let count = rng.below(names.count + 1)
      var keys = names
      for i in keys.indices.reversed() { keys.swapAt(i, rng.below(i + 1)) }
      keys = Array(keys.prefix(count))
      // Values nest, so members are not one tape entry each.
      let text =
        "{"
        + keys.enumerated().map { "\"\($1)\":" + ($0 % 2 == 0 ? "[\($0),{\"k\":\($0)}]" : "\($0)") }
        .joined(separator: ",") + "}"
      try JSONTape.read(Array(text.utf8)) { root in
        let positions = root.members.map(\.position)
        #expect(positions.count == keys.count)
        for _ in 0..<12 {
          let name = names[rng.below(names.count)]
          let found = positions.map { root.member(at: $0) }.first { $0.key.text == name }
          #expect(found?.range == root.member(name)?.range, "\(name) in \(text)")
          #expect(found?.key.text == (keys.contains(name) ? name : nil), "\(name) in \(text)")
        }
      }
    }
  }

  @Test func membersAndElementsStepThroughTheTape() throws {
    let text = #"{"a":[1,{"b":[]},"x",2.5],"c":null,"d":true}"#
    try JSONTape.read(Array(text.utf8)) { root in
      #expect(root.kind == .object)
      #expect(root.members.map(\.key.text) == ["a", "c", "d"])
      let a = try #require(root["a"])
      #expect(a.elements.count == 4)
      #expect(a.elements[1]["b"]?.kind == .array)
      #expect(a.elements[1]["b"]?.elements.isEmpty == true)
      #expect(a.elements[2].string == "x")
      #expect(a.elements[3].number == 2.5 && !a.elements[3].isInteger)
      #expect(a.elements[0].isInteger)
      #expect(root["c"]?.isNull == true)
      #expect(root["d"]?.bool == true)
      #expect(root.members[2].range == 35..<43)
      // Scalars have neither members nor elements.
      #expect(a.elements[0].members.isEmpty && a.elements[0].elements.isEmpty)
      #expect(
        root.fieldValue
          == .object([
            .init("a", .array([.integer(1), .object([.init("b", .array([]))]), .string("x"), .number(2.5)])),
            .init("c", .null), .init("d", .bool(true)),
          ]))
    }
  }
}
