import PacketKit
import Testing

@testable import SpecCodecs

/// `craft` from a `.ksy` (serialisation, which Kaitai's own tools do not
/// do): length and count fields are what the content makes them, when
/// their `size` or `repeat-expr` is the field or simple arithmetic of it;
/// bits, terminators and padding are written as they are read; `--force`
/// writes values outside their documented range, never ones too wide for
/// the wire. Expected bytes worked out by hand from the user guide.
@Suite struct KaitaiCraftTests {
  static let lengths = """
    meta: {id: lv, endian: be, encoding: UTF-8}
    seq:
      - {id: len, type: u2}
      - {id: name, type: str, size: len}
      - {id: count, type: u1}
      - {id: items, type: u2, repeat: expr, repeat-expr: count}
      - {id: total, type: u1}
      - {id: blob, size: total - 2}
      - {id: pairs, type: u1}
      - {id: words, size: (pairs - 1) * 2}
    """

  @Test func lengthsAndCountsFromTheContent() throws {
    let codec = try SpecSupport.codec(Self.lengths)
    #expect(codec.info.messages[0].fields.map(\.name) == ["name", "items", "blob", "words"])
    let bytes = try codec.craft(
      "lv",
      values: CraftValues([
        "name": .string("hello"), "items": .bytes([0, 1, 0, 2, 0, 3]), "blob": .bytes([0xAA, 0xBB]),
        "words": .bytes([1, 2, 3, 4]),
      ]))
    #expect(bytes == SpecSupport.bytes("0005 68656c6c6f 03 000100020003 04 aabb 03 01020304"))
    let decoded = try codec.decode(bytes)
    #expect(try codec.encode(decoded.message) == bytes)
    // Bytes that are not whole elements are refused.
    #expect(throws: EncodeError.self) {
      try codec.craft(
        "lv",
        values: CraftValues([
          "name": .string(""), "items": .bytes([1]), "blob": .bytes([]), "words": .bytes([]),
        ]))
    }
  }

  @Test func bitsAndCounts() throws {
    let spec = """
      meta: {id: r, endian: be}
      seq:
        - {id: version, type: b2, valid: 2}
        - {id: padding, type: b1}
        - {id: count, type: b4}
        - {id: marker, type: b1}
        - {id: csrc, type: u4, repeat: expr, repeat-expr: count}
      """
    let codec = try SpecSupport.codec(spec)
    let bytes = try codec.craft(
      "r",
      values: CraftValues([
        "padding": .bool(false), "marker": .bool(true), "csrc": .bytes([0, 0, 0, 1, 0, 0, 0, 2]),
      ]))
    #expect(bytes == SpecSupport.bytes("85 00000001 00000002"))
  }

  @Test func terminatorsAndPadding() throws {
    let spec = """
      meta: {id: t, encoding: ASCII}
      seq:
        - {id: s, type: strz}
        - {id: t, type: str, size: 6, pad-right: 0x20}
        - {id: u, type: str, size: 5, terminator: 0}
      """
    let codec = try SpecSupport.codec(spec)
    let bytes = try codec.craft(
      "t", values: CraftValues(["s": .string("ab"), "t": .string("xy"), "u": .string("cd")]))
    #expect(bytes == SpecSupport.bytes("616200 787920202020 6364000000"))
    #expect(try codec.encode(codec.decode(bytes).message) == bytes)
  }

  @Test func forceWritesWhatIsGiven() throws {
    let spec = """
      meta: {id: f, endian: le}
      seq:
        - {id: level, type: u1, -pktbench-range: [0, 100]}
        - {id: mode, type: u1, enum: mode}
      enums:
        mode: {1: auto, 2: manual}
      """
    let codec = try SpecSupport.codec(spec)
    #expect(throws: EncodeError.self) {
      try codec.craft("f", values: CraftValues(["level": .integer(150), "mode": .integer(1)]))
    }
    #expect(throws: EncodeError.self) {
      try codec.craft("f", values: CraftValues(["level": .integer(1), "mode": .integer(9)]))
    }
    #expect(
      try codec.craft("f", values: CraftValues(["level": .integer(150), "mode": .integer(9)], force: true))
        == [150, 9])
    do {
      _ = try codec.craft(
        "f", values: CraftValues(["level": .integer(300), "mode": .integer(1)], force: true))
      Issue.record("300 was written into a u1")
    } catch {
      #expect(error.code == "too-wide")
    }
  }

  /// Nested types are crafted by their fields' paths; a `valid` constant
  /// and an expected value need no value.
  @Test func nestedFieldsByPath() throws {
    let spec = """
      meta: {id: n, endian: be}
      seq:
        - {id: header, type: header}
        - {id: value, type: u2}
      types:
        header:
          seq:
            - {id: magic, type: u1, valid: 0x7e}
            - {id: flags, type: u1}
            - {id: reserved, type: u1, -pktbench-expect: 0}
      """
    let codec = try SpecSupport.codec(spec)
    #expect(codec.info.messages[0].fields.map(\.name) == ["header.flags", "value"])
    #expect(codec.info.messages[0].fields.map(\.flag) == ["header-flags", "value"])
    let bytes = try codec.craft(
      "n", values: CraftValues(["header.flags": .integer(3), "value": .integer(0x1234)]))
    #expect(bytes == [0x7E, 3, 0, 0x12, 0x34])
  }
}
