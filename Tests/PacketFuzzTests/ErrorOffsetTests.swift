import BuiltinCodecs
import PacketFuzz
import PacketKit
import Testing

/// A decode error's offset (the header of a summary line: "ERROR code at
/// offset N: …") is one its words name: each codec's messages, crafted from
/// random valid values and then damaged as the fuzzer damages them, are
/// refused at the offset their text gives, never at another.
@Suite struct ErrorOffsetTests {
  /// The numbers written after "offset " in `text`.
  static func offsets(in text: String) -> [Int] {
    var found: [Int] = []
    var rest = Substring(text)
    while let range = rest.range(of: "offset ") {
      rest = rest[range.upperBound...]
      let digits = rest.prefix { $0.isNumber }
      if let value = Int(digits) { found.append(value) }
    }
    return found
  }

  @Test(arguments: BuiltinCodecs.set.names)
  func errorsAreAtTheOffsetTheirTextNames(codec name: String) throws {
    let codec = try #require(BuiltinCodecs.set.named(name))
    let generator = MessageGenerator()
    let bytes = ByteMutator()
    let json = JSONMutator()
    var rng = SplitMix64(seed: 0x2626)
    var refused = 0
    for schema in codec.info.messages {
      for _ in 0..<400 {
        let values = generator.values(for: schema.fields, rng: &rng)
        guard let crafted = try? codec.craft(schema.name, values: values) else { continue }
        let damaged =
          codec.info.encoding == .json && rng.chance(1, in: 2)
          ? json.mutate(crafted, rng: &rng) ?? crafted : bytes.mutate(crafted, rng: &rng, maxLength: 4096)
        guard case .failed(_, let error) = codec.decodeFrame(damaged), let offset = error.offset else {
          continue
        }
        refused += 1
        let named = Self.offsets(in: error.text)
        #expect(
          named.isEmpty || named.contains(offset),
          "\(name) \(error.code): offset \(offset) but the text says \(error.text)")
      }
    }
    #expect(refused > 50, "\(name): too few damaged inputs were refused to tell")
  }
}
