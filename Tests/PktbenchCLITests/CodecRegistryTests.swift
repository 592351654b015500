import CodecRegistry
import PacketKit
import Testing

/// The registry's tables, built once for the hot paths, must say what each
/// codec's own `info` says.
@Suite struct CodecRegistryTests {
  @Test func namesAndMessageTablesMatchEachCodecsInfo() {
    for (index, codec) in Codecs.all.enumerated() {
      #expect(codec.name == codec.info.name)
      #expect(Codecs.names[index] == codec.info.name)
      #expect(Codecs.messageNames[index] == codec.info.messages.map(\.name))
      #expect(Codecs.index(named: codec.info.name) == index)
      #expect(Codecs.index(named: codec.info.name.uppercased()) == index)
    }
    #expect(Codecs.index(named: "nonesuch") == nil)
  }
}
