import BuiltinCodecs
import PacketKit
import Testing

/// The registry's tables, built once for the hot paths, must say what each
/// codec's own `info` says.
@Suite struct CodecRegistryTests {
  @Test func namesAndMessageTablesMatchEachCodecsInfo() {
    for (index, codec) in BuiltinCodecs.set.all.enumerated() {
      #expect(codec.name == codec.info.name)
      #expect(BuiltinCodecs.set.names[index] == codec.info.name)
      #expect(BuiltinCodecs.set.messageNames[index] == codec.info.messages.map(\.name))
      #expect(BuiltinCodecs.set.index(named: codec.info.name) == index)
      #expect(BuiltinCodecs.set.index(named: codec.info.name.uppercased()) == index)
    }
    #expect(BuiltinCodecs.set.index(named: "nonesuch") == nil)
  }
}
