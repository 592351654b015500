import PacketKit
import Testing

@testable import SpecCodecs

/// Kaitai conformance, bytes and text (user guide: "Variable-length
/// structures", "Delimited structures", "Terminator: consume or
/// include?", "Ignoring errors in delimited structures", "Checking for
/// magic signatures", "Processing"): sizes by field, to the end, by
/// terminator; padding; encodings; `contents`; `process`. Expected values
/// from Python (struct, zlib, str.encode).
@Suite struct KaitaiBytesTests {
  @Test func sizesTerminatorsAndPadding() throws {
    let spec = """
      meta: {id: texts, encoding: UTF-8}
      seq:
        - {id: len, type: u1}
        - {id: name, type: str, size: len}
        - {id: zname, type: strz}
        - {id: padded, type: str, size: 6, pad-right: 0x20}
        - {id: cstr, type: str, size: 6, terminator: 0}
        - {id: dotted, type: str, terminator: 0x2e, include: true}
        - {id: kept, type: str, terminator: 0x2e, consume: false}
        - {id: rest, type: str, size-eos: true}
      """
    let hex =
      "03 616263 6869 00 616220202020 7879007a7a00 666f6f2e 626172 2e656e64"
    let fields = try SpecSupport.decode(spec, hex).fields
    #expect(SpecSupport.value(fields, "name") == .string("abc"))
    #expect(SpecSupport.value(fields, "zname") == .string("hi"))
    #expect(SpecSupport.value(fields, "padded") == .string("ab"))
    #expect(SpecSupport.value(fields, "cstr") == .string("xy"))
    #expect(SpecSupport.value(fields, "dotted") == .string("foo."))
    #expect(SpecSupport.value(fields, "kept") == .string("bar"))
    #expect(SpecSupport.value(fields, "rest") == .string(".end"))
    // Ranges are the bytes taken, terminator and padding included.
    #expect(SpecSupport.range(fields, "zname") == 4..<7)
    #expect(SpecSupport.range(fields, "padded") == 7..<13)
    #expect(SpecSupport.range(fields, "kept") == 23..<26)
  }

  @Test func encodings() throws {
    let spec = """
      meta: {id: enc}
      seq:
        - {id: u16, type: str, size: 4, encoding: UTF-16LE}
        - {id: latin, type: str, size: 2, encoding: ISO-8859-1}
        - {id: ascii, type: strz, encoding: ASCII}
        - {id: be16, type: str, size: 2, encoding: UTF-16BE}
      """
    let fields = try SpecSupport.decode(spec, "6800e900 e9e8 6f6b00 0041").fields
    #expect(SpecSupport.value(fields, "u16") == .string("hé"))
    #expect(SpecSupport.value(fields, "latin") == .string("éè"))
    #expect(SpecSupport.value(fields, "ascii") == .string("ok"))
    #expect(SpecSupport.value(fields, "be16") == .string("A"))
  }

  @Test func endOfStreamWithoutTerminator() throws {
    let lenient =
      "meta: {id: s, encoding: UTF-8}\nseq: [{id: s, type: str, terminator: 0, eos-error: false}]\n"
    #expect(SpecSupport.value(try SpecSupport.decode(lenient, "616263").fields, "s") == .string("abc"))
    #expect(SpecSupport.value(try SpecSupport.decode(lenient, "61626300").fields, "s") == .string("abc"))
    let strict = "meta: {id: s, encoding: UTF-8}\nseq: [{id: s, type: strz}]\n"
    #expect(try SpecSupport.failure(strict, "616263")?.code == "truncated")
  }

  @Test func rawBytes() throws {
    let spec = "meta: {id: b}\nseq: [{id: head, size: 2}, {id: tail, size-eos: true}]\n"
    let fields = try SpecSupport.decode(spec, "0102 030405").fields
    #expect(SpecSupport.value(fields, "head") == .bytes([1, 2]))
    #expect(SpecSupport.value(fields, "tail") == .bytes([3, 4, 5]))
  }

  /// The user guide's contents forms; a wrong byte is damage at that byte.
  @Test func contents() throws {
    let spec = """
      meta: {id: magic}
      seq:
        - {id: m1, contents: [0xca, 0xfe]}
        - {id: m2, contents: JFIF}
        - {id: m3, contents: [CAFE, 0, BABE]}
      """
    let decoded = try SpecSupport.decode(spec, "cafe 4a464946 434146450042414245")
    #expect(SpecSupport.value(decoded.fields, "m2") == .bytes(Array("JFIF".utf8)))
    let failure = try #require(try SpecSupport.failure(spec, "cafe 4a464947 434146450042414245"))
    #expect(failure.code == "bad-contents")
    #expect(failure.offset == 5)
    // Wrong before it is short: the first wrong byte, not the truncation.
    #expect(try SpecSupport.failure(spec, "cb")?.code == "bad-contents")
    #expect(try SpecSupport.failure(spec, "ca")?.code == "truncated")
  }

  @Test func processing() throws {
    let spec = """
      meta: {id: proc, encoding: ASCII}
      seq:
        - {id: xored, type: str, size: 2, process: xor(0xaa)}
        - {id: keyed, type: str, size: 4, process: 'xor([0x01, 0x02])'}
        - {id: left, type: str, size: 2, process: rol(1)}
        - {id: right, type: str, size: 2, process: ror(3)}
        - {id: packed, type: str, size: 18, process: zlib}
        - {id: inner, type: pair, size: 2, process: xor(0xff)}
      types:
        pair:
          seq: [{id: a, type: u1}, {id: b, type: u1}]
      """
    let hex = "c2c3 60606266 b031 0b13 789ccb48cdc9c957a8cac94c0200159503e6 edcb"
    let fields = try SpecSupport.decode(spec, hex).fields
    #expect(SpecSupport.value(fields, "xored") == .string("hi"))
    #expect(SpecSupport.value(fields, "keyed") == .string("abcd"))
    #expect(SpecSupport.value(fields, "left") == .string("ab"))
    #expect(SpecSupport.value(fields, "right") == .string("ab"))
    #expect(SpecSupport.value(fields, "packed") == .string("hello zlib"))
    #expect(SpecSupport.value(fields, "inner.a") == .unsigned(0x12))
    #expect(SpecSupport.value(fields, "inner.b") == .unsigned(0x34))
    // What came through a process lies where its bytes were.
    #expect(SpecSupport.range(fields, "inner.a") == 28..<30)
  }
}
