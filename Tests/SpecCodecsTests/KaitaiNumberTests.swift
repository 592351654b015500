import PacketKit
import Testing

@testable import SpecCodecs

/// Kaitai conformance, numbers (user guide: "Fixed-size structures",
/// "Bit-sized integers"): integers of every width, signed and unsigned, in
/// both byte orders, by default or by suffix; bit fields in big- and
/// little-endian bit order, `b1` as a boolean, byte alignment after bits;
/// floats. Expected values from Python's struct.
@Suite struct KaitaiNumberTests {
  @Test func integersOfEveryWidthAndOrder() throws {
    let spec = """
      meta: {id: ints, endian: be}
      seq:
        - {id: a, type: u1}
        - {id: b, type: u2}
        - {id: c, type: u2le}
        - {id: d, type: s2}
        - {id: e, type: u4}
        - {id: f, type: s4le}
        - {id: g, type: u8}
        - {id: h, type: s8}
        - {id: i, type: s1}
        - {id: j, type: u4be}
      """
    let decoded = try SpecSupport.decode(
      spec, "ff 0102 0102 fffe deadbeef feffffff ffffffffffffffff fffffffffffffffe 80 00000102")
    let fields = decoded.fields
    #expect(SpecSupport.value(fields, "a") == .unsigned(255))
    #expect(SpecSupport.value(fields, "b") == .unsigned(0x0102))
    #expect(SpecSupport.value(fields, "c") == .unsigned(0x0201))
    #expect(SpecSupport.value(fields, "d") == .integer(-2))
    #expect(SpecSupport.value(fields, "e") == .unsigned(0xDEAD_BEEF))
    #expect(SpecSupport.value(fields, "f") == .integer(-2))
    #expect(SpecSupport.value(fields, "g") == .unsigned(UInt64.max))
    #expect(SpecSupport.value(fields, "h") == .integer(-2))
    #expect(SpecSupport.value(fields, "i") == .integer(-128))
    #expect(SpecSupport.value(fields, "j") == .unsigned(258))
    #expect(SpecSupport.range(fields, "e") == 7..<11)
    #expect(decoded.messageName == "ints")
  }

  @Test func littleEndianByDefault() throws {
    let spec = "meta: {id: le, endian: le}\nseq: [{id: x, type: u4}, {id: y, type: s2be}]\n"
    let fields = try SpecSupport.decode(spec, "78563412 fffe").fields
    #expect(SpecSupport.value(fields, "x") == .unsigned(0x1234_5678))
    #expect(SpecSupport.value(fields, "y") == .integer(-2))
  }

  /// The user guide's two-byte bit field: a (5 bits), b (9), c (2).
  @Test func bigEndianBits() throws {
    let spec = """
      meta: {id: bits, bit-endian: be}
      seq:
        - {id: a, type: b5}
        - {id: b, type: b9}
        - {id: c, type: b2}
      """
    let fields = try SpecSupport.decode(spec, "b5 57").fields
    #expect(SpecSupport.value(fields, "a") == .unsigned(22))
    #expect(SpecSupport.value(fields, "b") == .unsigned(341))
    #expect(SpecSupport.value(fields, "c") == .unsigned(3))
    #expect(SpecSupport.range(fields, "b") == 0..<2)
  }

  /// The same values little-endian: members from the least significant bit.
  @Test func littleEndianBits() throws {
    let spec = """
      meta: {id: bits, bit-endian: le}
      seq:
        - {id: c, type: b2}
        - {id: b, type: b9}
        - {id: a, type: b5}
      """
    let fields = try SpecSupport.decode(spec, "57 b5").fields
    #expect(SpecSupport.value(fields, "a") == .unsigned(22))
    #expect(SpecSupport.value(fields, "b") == .unsigned(341))
    #expect(SpecSupport.value(fields, "c") == .unsigned(3))
  }

  /// `b1` is a boolean; a byte-aligned read after bits skips the rest of the byte.
  @Test func flagsAndAlignment() throws {
    let spec = """
      meta: {id: flags}
      seq:
        - {id: up, type: b1}
        - {id: down, type: b1}
        - {id: level, type: b4}
        - {id: next, type: u1}
        - {id: wide, type: b12be}
        - {id: low, type: b4}
      """
    // 1 0 1011 (then 2 bits lost) | 0x7f | 0xabc5 as 12 + 4 bits
    let fields = try SpecSupport.decode(spec, "ac 7f abc5").fields
    #expect(SpecSupport.value(fields, "up") == .bool(true))
    #expect(SpecSupport.value(fields, "down") == .bool(false))
    #expect(SpecSupport.value(fields, "level") == .unsigned(0b1011))
    #expect(SpecSupport.value(fields, "next") == .unsigned(0x7F))
    #expect(SpecSupport.value(fields, "wide") == .unsigned(0xABC))
    #expect(SpecSupport.value(fields, "low") == .unsigned(5))
  }

  @Test func bitsOf64() throws {
    let spec = "meta: {id: wide}\nseq: [{id: x, type: b4}, {id: y, type: b64}, {id: z, type: b4}]\n"
    // x = 0xa, y = 0x0123456789abcdef, z = 0x5
    let fields = try SpecSupport.decode(spec, "a0 12 34 56 78 9a bc de f5").fields
    #expect(SpecSupport.value(fields, "x") == .unsigned(0xA))
    #expect(SpecSupport.value(fields, "y") == .unsigned(0x0123_4567_89AB_CDEF))
    #expect(SpecSupport.value(fields, "z") == .unsigned(5))
  }

  @Test func floats() throws {
    let spec = "meta: {id: f, endian: be}\nseq: [{id: single, type: f4}, {id: double, type: f8le}]\n"
    let fields = try SpecSupport.decode(spec, "3fc00000 00000000000002c0").fields
    #expect(SpecSupport.value(fields, "single") == .number(1.5))
    #expect(SpecSupport.value(fields, "double") == .number(-2.25))
  }

  @Test func truncatedIntegerIsDamageAtItsStart() throws {
    let spec = "meta: {id: t, endian: be}\nseq: [{id: a, type: u1}, {id: b, type: u4}]\n"
    let failure = try #require(try SpecSupport.failure(spec, "01 02 03"))
    #expect(failure.code == "truncated")
    #expect(failure.offset == 1)
  }
}
