import Foundation
import PacketKit
import Testing

@testable import SpecCodecs

/// Kaitai conformance, structure (user guide: "Substructures",
/// "Conditionals", "Repetitions", "Typical TLV implementation",
/// "Instances", "Streams and substreams", "Calculated default
/// endianness", "Parametric types", "Repetition index", "Importing types
/// from other files").
@Suite struct KaitaiStructureTests {
  static let tlv = """
    meta: {id: tlv, endian: be, encoding: ASCII}
    seq:
      - {id: records, type: record, repeat: eos}
    types:
      record:
        seq:
          - {id: rec_type, type: u1}
          - {id: len, type: u1}
          - id: body
            size: len
            type:
              switch-on: rec_type
              cases:
                1: number
                2: text
      number:
        seq: [{id: value, type: u2}]
      text:
        seq: [{id: value, type: str, size-eos: true}]
    """

  /// A sized switch: each case read in its substream, no case the bytes.
  @Test func typeLengthValue() throws {
    let fields = try SpecSupport.decode(Self.tlv, "01 02 0102  02 03 616263  09 01 ff").fields
    #expect(SpecSupport.value(fields, "records.[0].body.value") == .unsigned(258))
    #expect(SpecSupport.value(fields, "records.[1].body.value") == .string("abc"))
    #expect(SpecSupport.value(fields, "records.[2].body") == .bytes([0xFF]))
    #expect(SpecSupport.range(fields, "records.[1].body") == 6..<9)
    #expect(SpecSupport.range(fields, "records.[1]") == 4..<9)
  }

  @Test func switchOnEnumStringAndDefault() throws {
    let spec = """
      meta: {id: sw, endian: be, encoding: ASCII}
      seq:
        - {id: kind, type: u1, enum: media}
        - id: by_enum
          type:
            switch-on: kind
            cases:
              'media::cdrom': u2
              'media::tape': u1
        - {id: tag, type: strz}
        - id: by_text
          type:
            switch-on: tag
            cases:
              '"KETCHUP"': u1
              _: u2
      enums:
        media: {1: cdrom, 2: tape}
      """
    let first = try SpecSupport.decode(spec, "01 0304 4b455443485550 00 07").fields
    #expect(SpecSupport.value(first, "kind") == .enumeration(name: "cdrom", raw: 1))
    #expect(SpecSupport.value(first, "by_enum") == .unsigned(0x0304))
    #expect(SpecSupport.value(first, "by_text") == .unsigned(7))
    let second = try SpecSupport.decode(spec, "02 03 4d55535441524400 0102").fields
    #expect(SpecSupport.value(second, "by_enum") == .unsigned(3))
    #expect(SpecSupport.value(second, "by_text") == .unsigned(0x0102))
  }

  @Test func conditional() throws {
    let spec = """
      meta: {id: opt, endian: be}
      seq:
        - {id: has_crc32, type: u1}
        - {id: crc32, type: u4, if: has_crc32 != 0}
        - {id: after, type: u1}
      """
    let with = try SpecSupport.decode(spec, "01 deadbeef 07").fields
    #expect(SpecSupport.value(with, "crc32") == .unsigned(0xDEAD_BEEF))
    #expect(SpecSupport.value(with, "after") == .unsigned(7))
    let without = try SpecSupport.decode(spec, "00 07").fields
    #expect(SpecSupport.value(without, "crc32") == nil)
    #expect(SpecSupport.value(without, "after") == .unsigned(7))
  }

  @Test func repeats() throws {
    let spec = """
      meta: {id: rep, endian: be}
      seq:
        - {id: numbers, type: s1, repeat: until, repeat-until: _ == -1}
        - {id: num_files, type: u1}
        - {id: len_files, type: u1, repeat: expr, repeat-expr: num_files}
        - {id: files, size: 'len_files[_index]', repeat: expr, repeat-expr: num_files}
        - {id: rest, type: u2, repeat: eos}
      """
    let fields = try SpecSupport.decode(spec, "01 02 ff  02  01 02  aa bbcc  0001 0002").fields
    #expect(SpecSupport.value(fields, "numbers") == .array([.integer(1), .integer(2), .integer(-1)]))
    #expect(SpecSupport.value(fields, "files") == .array([.bytes([0xAA]), .bytes([0xBB, 0xCC])]))
    #expect(SpecSupport.value(fields, "rest") == .array([.unsigned(1), .unsigned(2)]))
    #expect(SpecSupport.range(fields, "files.[1]") == 7..<9)
    // An odd byte left for a u2 repeated to the end is damage.
    #expect(try SpecSupport.failure(spec, "ff 00 0001 02")?.code == "truncated")
  }

  /// The user guide's key/value pairs with the key's size as a parameter.
  @Test func parametricTypes() throws {
    let spec = """
      meta: {id: params, encoding: ASCII}
      seq:
        - {id: short_pair, type: kv_pair(3)}
        - {id: long_pair, type: 'kv_pair(3 + 5)'}
      types:
        kv_pair:
          params:
            - {id: len_key, type: u2}
          seq:
            - {id: key, size: len_key, type: str}
            - {id: value, type: strz}
      """
    let fields = try SpecSupport.decode(spec, "616263 7800  6162636465666768 7900").fields
    #expect(SpecSupport.value(fields, "short_pair.key") == .string("abc"))
    #expect(SpecSupport.value(fields, "long_pair.key") == .string("abcdefgh"))
    #expect(SpecSupport.value(fields, "long_pair.value") == .string("y"))
  }

  /// Instances: positional ones in their object's stream (a substream when
  /// sized) or one named by `io`, value ones beside the fields.
  @Test func instancesAndSubstreams() throws {
    let spec = """
      meta: {id: inst, endian: be}
      seq:
        - {id: ofs, type: u1}
        - {id: len, type: u1}
        - {id: block, type: block, size: 4}
      instances:
        at_ofs: {pos: ofs, size: len}
        doubled: {value: len * 2}
      types:
        block:
          seq: [{id: foo, type: u2}]
          instances:
            byte_3: {pos: 3, type: u1}
            root_byte: {io: _root._io, pos: 0, type: u1}
            parent_len: {value: _parent.len}
            root_ofs: {value: _root.ofs}
      """
    let decoded = try SpecSupport.decode(spec, "06 02 0a0b0c0d 0e0f")
    let fields = decoded.fields
    #expect(fields.map(\.name) == ["ofs", "len", "block", "at_ofs", "doubled"])
    #expect(SpecSupport.value(fields, "at_ofs") == .bytes([0x0E, 0x0F]))
    #expect(SpecSupport.range(fields, "at_ofs") == 6..<8)
    #expect(SpecSupport.value(fields, "doubled") == .integer(4))
    #expect(SpecSupport.value(fields, "block.foo") == .unsigned(0x0A0B))
    #expect(SpecSupport.value(fields, "block.byte_3") == .unsigned(0x0D))
    #expect(SpecSupport.range(fields, "block.byte_3") == 5..<6)
    #expect(SpecSupport.value(fields, "block.root_byte") == .unsigned(6))
    #expect(SpecSupport.value(fields, "block.parent_len") == .integer(2))
    #expect(SpecSupport.value(fields, "block.root_ofs") == .integer(6))
  }

  /// An instance the seq needs is read when it is needed (RTP's padding length).
  @Test func instanceReadBeforeTheSeqEnds() throws {
    let spec = """
      meta: {id: lazy}
      seq:
        - {id: has_padding, type: b1}
        - {id: other, type: b7}
        - {id: data, size: _io.size - _io.pos - len_padding}
        - {id: padding, size: len_padding}
      instances:
        len_padding_if_exists: {pos: _io.size - 1, type: u1, if: has_padding}
        len_padding: {value: 'has_padding ? len_padding_if_exists : 0'}
      """
    let padded = try SpecSupport.decode(spec, "80 aabbcc 000002").fields
    #expect(SpecSupport.value(padded, "data") == .bytes([0xAA, 0xBB, 0xCC, 0x00]))
    #expect(SpecSupport.value(padded, "padding") == .bytes([0x00, 0x02]))
    let plain = try SpecSupport.decode(spec, "00 aabbcc").fields
    #expect(SpecSupport.value(plain, "data") == .bytes([0xAA, 0xBB, 0xCC]))
    #expect(SpecSupport.value(plain, "len_padding_if_exists") == nil)
  }

  /// The user guide's TIFF-like file: "II" little-endian, "MM" big, nested types inherit it.
  @Test func calculatedEndianness() throws {
    let spec = """
      meta: {id: tiff_like}
      seq:
        - {id: indicator, size: 2}
        - {id: body, type: body}
      types:
        body:
          meta:
            endian:
              switch-on: _root.indicator
              cases:
                '[0x49, 0x49]': le
                '[0x4d, 0x4d]': be
          seq:
            - {id: version, type: u2}
            - {id: inner, type: inner}
          types:
            inner:
              seq: [{id: value, type: u2}]
      """
    for hex in ["4949 2a00 0100", "4d4d 002a 0001"] {
      let fields = try SpecSupport.decode(spec, hex).fields
      #expect(SpecSupport.value(fields, "body.version") == .unsigned(42))
      #expect(SpecSupport.value(fields, "body.inner.value") == .unsigned(1))
    }
    #expect(try SpecSupport.failure(spec, "4141 2a00 0100")?.code == "unknown-endian")
  }

  /// `meta/imports`: relative to the file, or absolute through the search path.
  @Test func imports() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ksy-imports-\(getpid())")
    let library = directory.appendingPathComponent("library/common")
    try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try "meta: {id: date}\nseq: [{id: year, type: u2le}, {id: month, type: u1}]\n"
      .write(to: directory.appendingPathComponent("date.ksy"), atomically: true, encoding: .utf8)
    try "meta: {id: stamp, endian: be}\nseq: [{id: seconds, type: u4}]\n"
      .write(to: library.appendingPathComponent("stamp.ksy"), atomically: true, encoding: .utf8)
    let main = directory.appendingPathComponent("main.ksy")
    try """
    meta:
      id: main
      imports: [date, /common/stamp]
    seq:
      - {id: when, type: date}
      - {id: at, type: stamp}
    """.write(to: main, atomically: true, encoding: .utf8)
    let program = try SpecLoader.load(
      path: main.path, searchPaths: [directory.appendingPathComponent("library").path])
    let fields = try SpecCodec(program).decode(SpecSupport.bytes("e907 0b 00000010")).fields
    #expect(SpecSupport.value(fields, "when.year") == .unsigned(2025))
    #expect(SpecSupport.value(fields, "when.month") == .unsigned(11))
    #expect(SpecSupport.value(fields, "at.seconds") == .unsigned(16))
    // Without the search path the absolute import is one line at its line.
    #expect(throws: SpecLoadError.self) { try SpecLoader.load(path: main.path) }
    do {
      _ = try SpecLoader.load(path: main.path)
    } catch {
      #expect(error.line == 3)
      #expect(error.key == "imports")
      #expect(error.text.contains("/common/stamp"))
    }
  }
}
