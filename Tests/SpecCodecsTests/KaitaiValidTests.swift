import PacketKit
import Testing

@testable import SpecCodecs

/// Kaitai conformance, `valid` (eq as the short form, min, max, any-of,
/// expr with `_`, in-enum): a value that fails is damage at the field,
/// with the field's `-pktbench-error` code when it has one.
@Suite struct KaitaiValidTests {
  static let spec = """
    meta: {id: v}
    seq:
      - {id: magic, type: u1, valid: 0x42}
      - {id: ver, type: u1, valid: {min: 1, max: 3}}
      - {id: mode, type: u1, valid: {any-of: [1, 5, 9]}}
      - {id: even, type: u1, valid: {expr: _ % 2 == 0}}
      - {id: kind, type: u1, enum: k, valid: {in-enum: true}}
      - {id: tag, type: u1, valid: {eq: 7}, -pktbench-error: bad-tag}
    enums:
      k: {1: one}
    """

  @Test func validFrame() throws {
    let fields = try SpecSupport.decode(Self.spec, "42 02 05 04 01 07").fields
    #expect(SpecSupport.value(fields, "even") == .unsigned(4))
  }

  @Test(arguments: [
    ("43 02 05 04 01 07", "not-valid", 0), ("42 00 05 04 01 07", "not-valid", 1),
    ("42 04 05 04 01 07", "not-valid", 1),
    ("42 02 02 04 01 07", "not-valid", 2), ("42 02 05 03 01 07", "not-valid", 3),
    ("42 02 05 04 02 07", "not-valid", 4),
    ("42 02 05 04 01 08", "bad-tag", 5),
  ])
  func invalidValues(hex: String, code: String, offset: Int) throws {
    let failure = try #require(try SpecSupport.failure(Self.spec, hex))
    #expect(failure.code == code)
    #expect(failure.offset == offset)
  }
}
