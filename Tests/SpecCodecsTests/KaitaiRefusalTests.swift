import PacketKit
import Testing

@testable import SpecCodecs

/// What pktbench does not support, or a spec that is wrong, is refused at
/// load: one line with the file, the line and the key.
@Suite struct KaitaiRefusalTests {
  @Test(arguments: [
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1, colour: red}\n",
      "x.ksy:3: key 'colour': not a key of a seq attribute"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1, parent: _parent}\n",
      "x.ksy:3: key 'parent': overriding _parent is not supported"
    ),
    (
      "meta: {id: a, ks-opaque-types: true}\n",
      "x.ksy:1: key 'ks-opaque-types': opaque types (code outside the spec) are not supported"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, size: 2, process: my_cipher(1)}\n",
      "x.ksy:3: key 'process': expected xor(key), rol(n), ror(n) or zlib"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: str, size: 2, encoding: EBCDIC}\n",
      "x.ksy:3: key 'encoding': encoding 'EBCDIC' is not supported"
    ),
    ("meta: {id: a}\nseq:\n  - {id: x, type: u3}\n", "x.ksy:3: key 'type': no type 'u3'"),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: str, size: 2}\n",
      "x.ksy:3: key 'encoding': str needs an encoding"
    ),
    ("meta: {id: a}\nseq:\n  - {id: x, type: u2}\n", "x.ksy:3: key 'type': u2 needs an endianness"),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1}\n  - {id: y, size: _on}\n",
      "x.ksy:4: key 'size': '_on': '_on' is not supported"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1, -pktbench-colour: red}\n",
      "x.ksy:3: key '-pktbench-colour': not a pktbench key of a field"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1}\n  - {id: y, size: x +}\n",
      "x.ksy:4: key 'size': 'x +': expected a value, found the end (column 4)"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1}\n  - {id: y, type: u1, if: x}\n",
      "x.ksy:4: key 'if': 'x' is an integer; expected a boolean"
    ),
    ("meta: {id: a}\ninstances:\n  p: {value: q + 1}\n  q: {value: p * 2}\n", "depends on itself"),
    ("seq:\n  - {id: x, type: u1}\n", "x.ksy:1: key 'meta': a .ksy file needs meta/id, its name"),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1}\n  - {id: x, type: u1}\n",
      "x.ksy:4: key 'id': 'x' is already an attribute of this type"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: empty, repeat: eos}\ntypes:\n  empty: {}\n",
      "x.ksy:3: key 'repeat': an element of no bytes repeated"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: strz, encoding: ASCII, enum: e}\nenums:\n  e: {1: one}\n",
      "x.ksy:3: key 'enum': an enum needs an integer type"
    ),
    ("meta: {id: a}\nseq:\n  - {id: Big, type: u1}\n", "x.ksy:3: key 'id': expected an identifier"),
    ("meta: {id: a}\nto-string: x\n", "x.ksy:2: key 'to-string': to-string is not supported"),
    ("meta: {id: a}\nseq:\n  - {id: x, type: u1, enum: nothing}\n", "x.ksy:3: key 'enum': no enum 'nothing'"),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1}\n  - {id: y, size: x.nothing}\n",
      "x.ksy:4: key 'size': 'x.nothing': an integer has no method 'nothing'"
    ),
    (
      "meta: {id: a}\nseq:\n  - {id: x, type: u1, -pktbench-check: crc32}\n",
      "x.ksy:3: key '-pktbench-check': CRC-32 is 32 bits; the field is 8"
    ),
    (
      "meta: {id: a}\n-pktbench:\n  message: x\nseq:\n  - {id: x, type: u1}\n",
      "x.ksy:3: key 'message': 'x' is neither"
    ),
  ])
  func refused(text: String, line: String) throws {
    let error = try #require(SpecSupport.loadError(text))
    #expect(error.hasPrefix(line) || error.contains(line), "\(error)")
    #expect(!error.contains("\n"))
  }

  /// A gallery-style spec that uses only supported features loads.
  @Test func supportedSpecLoads() {
    let text = """
      meta:
        id: tidy
        title: A tidy format
        application: tests
        file-extension: tdy
        xref: {rfc: 1234}
        license: CC0-1.0
        ks-version: 0.10
        endian: le
      doc: a doc
      doc-ref: https://example.com
      seq:
        - id: x
          -orig-id: X
          -webide-representation: '{x}'
          type: u1
          doc: the x
          doc-ref: nowhere
      """
    #expect(SpecSupport.loadError(text) == nil)
  }
}
