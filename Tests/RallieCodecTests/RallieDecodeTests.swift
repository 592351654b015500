import PacketKit
import RallieCodec
import Testing

// Check bytes below were computed with Python, independently of pktbench:
//   import functools, operator
//   xor = lambda h: functools.reduce(operator.xor, bytes.fromhex(h))
//   def crclo(h):
//       c = 0xFFFF
//       for x in bytes.fromhex(h):
//           c ^= x
//           for _ in range(8): c = (c >> 1) ^ 0xA001 if c & 1 else c >> 1
//       return c & 0xFF
//   '%02X' % xor('5AA58232322D2D3200')  -> 4F
//   '%02X' % xor('5AA58365322D2D3200')  -> 19
//   '%02X' % xor('5AA58332325B2D3200')  -> 38
//   '%02X' % xor('5AA58332322D2D3202')  -> 4C
//   '%02X' % xor('5AA58203')            -> 7E
//   '%02X' % xor('5AA58301')            -> 7D
//   '%02X' % crclo('5AA58365322D2D3200') -> 4C

/// Every structural decode error names its code and offset.
@Suite struct RallieDecodeErrorTests {
  let codec = RallieCodec()

  func decodeError(_ hex: String) throws -> DecodeError? {
    let bytes = try Hex.parse(hex)
    do {
      _ = try codec.decode(bytes)
      return nil
    } catch {
      return error
    }
  }

  @Test func badFirstMagicByteIsAtOffsetZero() throws {
    let error = try decodeError("00 A5 83 32 32 2D 2D 32 00 4E")
    #expect(error?.code == "bad-magic")
    #expect(error?.offset == 0)
  }

  @Test func badSecondMagicByteIsAtOffsetOne() throws {
    let error = try decodeError("5A 00 82 01 7C")
    #expect(error?.code == "bad-magic")
    #expect(error?.offset == 1)
  }

  @Test(arguments: [
    ("", 0), ("5A", 1), ("5A A5 82 01", 4), ("5A A5 82 01 7C 00", 6),
    ("5A A5 83 32 32 2D 2D 32 00", 9), ("5A A5 83 32 32 2D 2D 32 00 4E 00", 10),
  ])
  func lengthOtherThanTenOrFiveIsRejected(hex: String, offset: Int) throws {
    let error = try decodeError(hex)
    #expect(error?.code == "bad-length")
    #expect(error?.offset == offset)
    #expect(error?.expected == "10 (command) or 5 (response)")
  }

  @Test func commandMatchingNeitherCheckShowsBoth() throws {
    let error = try decodeError("5A A5 83 32 32 2D 2D 32 00 00")
    #expect(error?.code == "bad-check")
    #expect(error?.offset == 9)
    #expect(error?.text == "check at offset 9 is 0x00; expected 0x4E (XOR) or 0x41 (MODBUS-low)")
  }

  @Test func responseMatchingNeitherCheckShowsBoth() throws {
    let error = try decodeError("5A A5 82 02 00")
    #expect(error?.code == "bad-check")
    #expect(error?.offset == 4)
    #expect(error?.text == "check at offset 4 is 0x00; expected 0x7F (XOR) or 0xE3 (MODBUS-low)")
  }

  @Test func damagedFrameProbesBelowCertain() throws {
    #expect(codec.probe(try Hex.parse("5A A5 83 32 32 2D 2D 32 00 00")) == 50)
    #expect(codec.probe(try Hex.parse("5A A5 83 32 32 2D 2D 32 00")) == 0)
    #expect(codec.probe(try Hex.parse("5A A4 82 01 7C")) == 0)
    #expect(codec.probe([UInt8]()) == 0)
  }
}

/// Well-formed frames with values outside the protocol decode with a warning.
@Suite struct RallieDecodeWarningTests {
  let codec = RallieCodec()

  @Test func unexpectedCommandSourceWarns() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 82 32 32 2D 2D 32 00 4F"))
    #expect(decoded.messageName == "command")
    #expect(decoded.diagnostics.map(\.code) == ["unexpected-source"])
    #expect(decoded.diagnostics.first?.range == 2..<3)
    guard case .command(let command) = decoded.message.body else {
      Issue.record("expected a command")
      return
    }
    #expect(command.source == 0x82)
  }

  @Test func unexpectedResponseSourceWarns() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 01 7D"))
    #expect(decoded.messageName == "response")
    #expect(decoded.diagnostics.map(\.code) == ["unexpected-source"])
  }

  @Test func wheelAboveHundredWarns() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 65 32 2D 2D 32 00 19"))
    #expect(decoded.diagnostics.map(\.code) == ["out-of-range"])
    #expect(decoded.diagnostics.first?.range == 3..<4)
    #expect(decoded.fields.first(named: "upper_wheel")?.value == .unsigned(101))
  }

  @Test func wheelAboveHundredWarnsUnderModbusCheckToo() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 65 32 2D 2D 32 00 4C"))
    #expect(decoded.message.checkVariant == .modbus16lo)
    #expect(decoded.diagnostics.map(\.code) == ["out-of-range"])
  }

  @Test func pitchAboveNinetyWarns() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 32 32 5B 2D 32 00 38"))
    #expect(decoded.diagnostics.map(\.code) == ["out-of-range"])
    #expect(decoded.diagnostics.first?.range == 5..<6)
  }

  @Test func unknownControlWarns() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 32 32 2D 2D 32 02 4C"))
    #expect(decoded.diagnostics.map(\.code) == ["unknown-enum"])
    #expect(decoded.fields.first(named: "control")?.value == .enumeration(name: "unknown(2)", raw: 2))
  }

  @Test func unknownResponseCodeWarns() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 82 03 7E"))
    #expect(decoded.diagnostics.map(\.code) == ["unknown-enum"])
    #expect(decoded.fields.first(named: "code")?.value == .enumeration(name: "unknown(3)", raw: 3))
  }

  @Test func encodeRefusesWhatDecodeWarnsAbout() throws {
    let decoded = try codec.decode(Hex.parse("5A A5 83 65 32 2D 2D 32 00 19"))
    #expect(throws: EncodeError.self) { try codec.encode(decoded.message) }
    let forced = try codec.craftBytes(decoded.message, values: CraftValues(force: true))
    #expect(forced == (try Hex.parse("5A A5 83 65 32 2D 2D 32 00 19")))
  }
}

/// Found by `pktbench fuzz` (seed 7): a frame whose check byte is valid
/// under both variants decodes as XOR and says the wire is ambiguous.
@Suite struct RallieAmbiguousCheckTests {
  @Test func checkValidUnderBothVariantsIsNoted() throws {
    // python3: from functools import reduce; b = bytes.fromhex('5aa5830300005a2b01')
    //   reduce(lambda a, c: a ^ c, b, 0) -> 0x0f; CRC-16/MODBUS(b) & 0xff -> 0x0f
    let decoded = try RallieCodec().decode(Hex.parse("5A A5 83 03 00 00 5A 2B 01 0F"))
    #expect(decoded.message.checkVariant == .xor)
    #expect(decoded.diagnostics.map(\.code) == ["check-ambiguous"])
  }
}
