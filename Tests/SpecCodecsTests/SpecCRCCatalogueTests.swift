import PacketKit
import Testing

@testable import SpecCodecs

/// The CRC engine against the catalogue's check values (the CRC of the
/// ASCII digits "123456789", from Greg Cook's "Catalogue of parametrised
/// CRC algorithms"), by name and by parameters, odd widths included; and a
/// check field over a range of fields plus MAVLink's per-message extra byte.
@Suite struct SpecCRCCatalogueTests {
  static let digits = Array("123456789".utf8)

  @Test(
    arguments: [
      ("crc-8", 0xF4), ("crc-16/modbus", 0x4B37), ("crc-16/mcrf4xx", 0x6F91), ("crc-16/ccitt-false", 0x29B1),
      ("crc-32", 0xCBF4_3926), ("crc-32c", 0xE306_9283), ("crc-16/xmodem", 0x31C3), ("crc-16/kermit", 0x2189),
      ("xor", 0x31), ("sum", 0xDD), ("crc16-modbus-low", 0x37),
    ] as [(String, UInt64)])
  func namedAlgorithms(name: String, check: UInt64) throws {
    let algorithm = try #require(SpecCheckAlgorithm.named(name))
    #expect(algorithm.compute(Self.digits) == check)
  }

  @Test(
    arguments: [
      (16, 0x8005, 0, true, true, 0, 0xBB3D),  // CRC-16/ARC
      (5, 0x05, 0x1F, true, true, 0x1F, 0x19),  // CRC-5/USB
      (3, 0x3, 0x7, true, true, 0, 0x6),  // CRC-3/ROHC
      (7, 0x09, 0, false, false, 0, 0x75),  // CRC-7/MMC
      (12, 0x80F, 0, false, false, 0, 0xF5B),  // CRC-12/DECT
      (64, 0x42F0_E1EB_A9EA_3693, UInt64.max, true, true, UInt64.max, 0x995D_C9BB_DF19_39FA),  // CRC-64/XZ
    ] as [(Int, UInt64, UInt64, Bool, Bool, UInt64, UInt64)])
  func parameters(
    width: Int, poly: UInt64, initial: UInt64, refin: Bool, refout: Bool, xorout: UInt64, check: UInt64
  )
    throws
  {
    let crc = try #require(
      SpecCRC(
        width: width, poly: poly, initial: initial, reflectIn: refin, reflectOut: refout, xorOut: xorout))
    #expect(crc.compute(Self.digits) == check)
  }

  /// A spec's check given by its parameters covers the fields it names.
  @Test func parametersInASpec() throws {
    let spec = """
      meta: {id: c, endian: be}
      seq:
        - {id: skipped, type: u1}
        - {id: data, size: 9}
        - id: check
          type: u2
          -pktbench-check:
            crc: {width: 16, poly: 0x1021, init: 0xffff, refin: false, refout: false, xorout: 0}
            from: data
      """
    let good = "00 313233343536373839 29b1"
    #expect(SpecSupport.value(try SpecSupport.decode(spec, good).fields, "check") == .unsigned(0x29B1))
    let failure = try #require(try SpecSupport.failure(spec, "00 313233343536373839 29b2"))
    #expect(failure.code == "bad-check")
    #expect(failure.offset == 10)
  }

  /// MAVLink v1: CRC-16/MCRF4XX over the bytes after the magic, then the
  /// message's CRC_EXTRA (50 for HEARTBEAT). Frame worked out in Python.
  static let mavlink = """
    meta: {id: mav, endian: le}
    -pktbench:
      message: payload
    seq:
      - {id: magic, contents: [0xfe]}
      - {id: len, type: u1}
      - {id: seq_no, type: u1}
      - {id: sysid, type: u1}
      - {id: compid, type: u1}
      - {id: msgid, type: u1}
      - id: payload
        size: len
        type:
          switch-on: msgid
          cases:
            0: heartbeat
      - id: crc
        type: u2
        -pktbench-check:
          algorithm: crc16-mcrf4xx
          from: len
          through: payload
          extra: 'msgid == 0 ? 50 : 0'
    types:
      heartbeat:
        seq:
          - {id: custom_mode, type: u4}
          - {id: type, type: u1}
          - {id: autopilot, type: u1}
          - {id: base_mode, type: u1}
          - {id: system_status, type: u1}
          - {id: mavlink_version, type: u1}
    """

  @Test func perMessageExtraByte() throws {
    let frame = "fe0907010100000000000203510403faad"
    let decoded = try SpecSupport.decode(Self.mavlink, frame)
    #expect(decoded.messageName == "heartbeat")
    #expect(SpecSupport.value(decoded.fields, "base_mode") == .unsigned(0x51))
    // Without the extra byte the CRC would not match: one byte of payload changed fails.
    #expect(try SpecSupport.failure(Self.mavlink, "fe0907010100000000000203510503faad")?.code == "bad-check")
    // Craft computes it.
    let codec = try SpecSupport.codec(Self.mavlink)
    let crafted = try codec.craft(
      "heartbeat",
      values: CraftValues([
        "seq_no": .integer(7), "sysid": .integer(1), "compid": .integer(1), "custom_mode": .integer(0),
        "type": .integer(2), "autopilot": .integer(3), "base_mode": .integer(0x51),
        "system_status": .integer(4),
        "mavlink_version": .integer(3),
      ]))
    #expect(crafted == SpecSupport.bytes(frame))
  }
}
