import BuiltinCodecs
import PacketFuzz
import PacketKit
import Testing

@testable import SpecCodecs

/// The spec language on a made-up protocol ("gizmo") that uses every
/// layout feature: fixed magic and version, an enum discriminator, a body
/// length, a CRC-32 trailer, integers of every width, signed and in both
/// byte orders, floats, flags, an enum, a text sized by a length field,
/// bytes to the end, a counted repeat. Its bytes were worked out apart
/// from pktbench (Python's struct and zlib).
@Suite struct SpecLanguageGoldenTests {
  static let spec = """
    pktbench-spec: 1
    name: gizmo
    title: Gizmo sensor
    byte-order: big
    udp-ports: [31000]
    ble:
      characteristics:
        - {uuid: FFE1, properties: [notify]}
    header:
      - {name: magic, type: bytes, size: 2, fixed: "C0 DE"}
      - {name: version, type: u8, fixed: 2, error: bad-version}
      - {name: kind, type: u8, enum: {READING: 1, CONFIG: 2, LOG: 3}}
      - {name: length, type: u16, length-of: body, max: 512}
    trailer:
      - {name: crc, type: u32, check: {algorithm: crc32}}
    discriminator: kind
    messages:
      - name: reading
        when: READING
        rate: {hz: 5}
        fields:
          - {name: seq, type: u24}
          - {name: temp, type: i16, unit: "°C", range: [-40, 125]}
          - {name: pressure, type: f32, unit: hPa, range: [300, 1100]}
          - {name: energy, type: uint, width: 64, byte-order: little, unit: Wh}
          - {name: offset, type: i32, byte-order: little}
          - {name: ratio, type: f64}
          - {name: status, type: u8, flags: {charging: 0x01, fault: 0x80}}
          - {name: mode, type: u8, enum: {idle: 0, run: 1}, default: idle}
      - name: config
        when: CONFIG
        fields:
          - {name: name_len, type: u8}
          - {name: name, type: string, size: name_len}
          - {name: blob, type: bytes}
      - name: log
        when: LOG
        fields:
          - {name: n, type: u8, count-of: samples}
          - name: samples
            type: repeat
            fields:
              - {name: t, type: u16, unit: ms}
              - {name: v, type: i8}
    """

  static let reading = SpecSupport.bytes(
    "C0 DE 02 01 00 1F 01 02 03 FF F4 44 7D 50 00 08 07 06 05 04 03 02 01 FE FF FF FF 3F E0 00 00 00 00 00 00 81 01 DA 41 5B 40"
  )
  static let config = SpecSupport.bytes("C0 DE 02 02 00 08 05 67 69 7A 6D 6F AA BB 57 0C BD 13")
  static let log = SpecSupport.bytes("C0 DE 02 03 00 07 02 00 64 FF 00 C8 05 48 E1 70 8B")

  func codec() throws -> SpecCodec { try SpecSupport.codec(Self.spec) }

  @Test func craftsEveryWidthAndOrder() throws {
    let bytes = try codec().craft(
      "reading",
      values: CraftValues([
        "seq": .integer(0x010203), "temp": .integer(-12), "pressure": .number(1013.25),
        "energy": .integer(0x0102_0304_0506_0708), "offset": .integer(-2), "ratio": .number(0.5),
        "charging": .bool(true), "fault": .bool(true), "mode": .string("run"),
      ]))
    #expect(bytes == Self.reading)
  }

  @Test func decodesEveryWidthAndOrder() throws {
    let decoded = try codec().decode(Self.reading)
    #expect(decoded.messageName == "reading")
    #expect(decoded.diagnostics.isEmpty)
    let fields = Dictionary(uniqueKeysWithValues: decoded.fields.map { ($0.name, $0) })
    #expect(fields["magic"]?.value == .bytes([0xC0, 0xDE]))
    #expect(fields["kind"]?.value == .enumeration(name: "READING", raw: 1))
    #expect(fields["length"]?.value == .unsigned(31))
    #expect(fields["length"]?.range == 4..<6)
    #expect(fields["seq"]?.value == .unsigned(0x010203))
    #expect(fields["seq"]?.range == 6..<9)
    #expect(fields["temp"]?.value == .integer(-12))
    #expect(fields["temp"]?.unit == "°C")
    #expect(fields["pressure"]?.value == .number(1013.25))
    #expect(fields["energy"]?.value == .unsigned(0x0102_0304_0506_0708))
    #expect(fields["offset"]?.value == .integer(-2))
    #expect(fields["ratio"]?.value == .number(0.5))
    #expect(fields["status"]?.children.map(\.name) == ["charging", "fault"])
    #expect(fields["status"]?.children.map(\.value) == [.bool(true), .bool(true)])
    #expect(fields["mode"]?.value == .enumeration(name: "run", raw: 1))
    #expect(fields["crc"]?.value == .unsigned(0xDA41_5B40))
    #expect(fields["crc"]?.range == 37..<41)
    #expect(try codec().encode(decoded.message) == Self.reading)
  }

  @Test func lengthSizedTextAndBytesToTheEnd() throws {
    let codec = try codec()
    let crafted = try codec.craft(
      "config", values: CraftValues(["name": .string("gizmo"), "blob": .bytes([0xAA, 0xBB])]))
    #expect(crafted == Self.config)
    let decoded = try codec.decode(Self.config)
    #expect(decoded.fields.first(named: "name")?.value == .string("gizmo"))
    #expect(decoded.fields.first(named: "name")?.range == 7..<12)
    #expect(decoded.fields.first(named: "name_len")?.value == .unsigned(5))
    #expect(decoded.fields.first(named: "blob")?.value == .bytes([0xAA, 0xBB]))
  }

  @Test func countedRepeat() throws {
    let codec = try codec()
    // Elements are crafted as their bytes: t u16, v i8.
    let crafted = try codec.craft(
      "log", values: CraftValues(["samples": .bytes([0x00, 0x64, 0xFF, 0x00, 0xC8, 0x05])]))
    #expect(crafted == Self.log)
    let decoded = try codec.decode(Self.log)
    let samples = try #require(decoded.fields.first(named: "samples"))
    #expect(samples.shape == .array)
    #expect(samples.children.count == 2)
    #expect(samples.children[1].children.map(\.value) == [.unsigned(200), .integer(5)])
    #expect(samples.children[1].range == 10..<13)
  }

  @Test func damageIsAnErrorAtItsOffset() throws {
    let codec = try codec()
    func error(_ bytes: [UInt8]) -> (String, Int?)? {
      do {
        _ = try codec.decode(bytes)
        return nil
      } catch {
        return (error.code, error.offset)
      }
    }
    var magic = Self.config
    magic[1] = 0xDD
    #expect(error(magic)! == ("bad-magic", 1))
    #expect(error([0xC0])! == ("truncated", 0))  // the magic's first byte is right: too short
    var version = Self.config
    version[2] = 3
    #expect(error(version)! == ("bad-version", 2))
    #expect(error(Array(Self.config.dropLast()))! == ("bad-length", 17))
    var crc = Self.config
    crc[8] ^= 1
    #expect(error(crc)! == ("bad-check", 14))
    var count = Self.log
    count[6] = 3  // three samples in the bytes of two
    #expect(error(count)!.0 == "bad-length")
  }

  @Test func warningsNotErrors() throws {
    let codec = try codec()
    var values = CraftValues([
      "seq": .integer(1), "temp": .integer(200), "pressure": .number(1000), "energy": .integer(0),
      "offset": .integer(0),
      "ratio": .number(0), "charging": .bool(false), "fault": .bool(false),
    ])
    #expect(throws: EncodeError.self) { try codec.craft("reading", values: values) }
    values.force = true
    var bytes = try codec.craft("reading", values: values)
    let decoded = try codec.decode(bytes)
    #expect(decoded.diagnostics.map(\.code) == ["out-of-range"])
    #expect(decoded.diagnostics.first?.range == 9..<11)
    // An unknown enum value and an unnamed flag bit: warnings, and the CRC made right again.
    bytes[36] = 7
    bytes[35] = 0x02
    let fixed = try codec.decode(resigned(bytes))
    #expect(fixed.diagnostics.map(\.code) == ["out-of-range", "unknown-flags", "unknown-enum"])
    #expect(fixed.fields.first(named: "mode")?.value == .enumeration(name: "unknown(7)", raw: 7))
  }

  /// The frame with its CRC-32 recomputed.
  private func resigned(_ bytes: [UInt8]) -> [UInt8] {
    let body = Array(bytes.dropLast(4))
    let crc = SpecChecksum.crc32.compute(body)
    return body + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
  }

  @Test func schemaForTheCommands() throws {
    let info = try codec().info
    #expect(info.name == "gizmo")
    #expect(info.wellKnown == [.udp(31000)])
    #expect(info.gattCharacteristics == ["0000ffe1-0000-1000-8000-00805f9b34fb"])
    #expect(info.hasCheckByte)
    let reading = try #require(info.message(named: "reading"))
    #expect(
      reading.fields.map(\.name) == [
        "seq", "temp", "pressure", "energy", "offset", "ratio", "charging", "fault", "mode",
      ])
    #expect(reading.field(named: "temp")?.range == -40...125)
    #expect(reading.field(named: "temp")?.unit == "°C")
    #expect(reading.field(named: "mode")?.enumCases.map(\.name) == ["idle", "run"])
    #expect(info.message(named: "config")?.fields.map(\.name) == ["name", "blob"])
  }

  @Test func badCheckSpoilsTheCrc() throws {
    let codec = try codec()
    var values = CraftValues(["name": .string("gizmo"), "blob": .bytes([0xAA, 0xBB])])
    values.badCheck = true
    let bytes = try codec.craft("config", values: values)
    #expect(Array(bytes.prefix(14)) == Array(Self.config.prefix(14)))
    #expect(Array(bytes.suffix(4)) == Self.config.suffix(4).map { $0 ^ 0xFF })
  }

  /// The fuzzer's invariants on this spec: generated messages round-trip,
  /// mutated inputs decode or fail with a typed error, re-encode alike, and
  /// every field's range lies inside the input.
  @Test func fuzzInvariantsHold() throws {
    let report = FuzzRunner(
      targets: [CodecFuzzTarget(.bound(try codec()))], configuration: .init(seed: 11, iterations: 20_000)
    )
    .run()
    #expect(
      report.failures.isEmpty,
      "\(report.failures.first.map { "\($0.kind): \($0.detail) \(Hex.spaced($0.input))" } ?? "")")
    #expect((report.stats.first?.1.roundTrips ?? 0) > 1000)
  }
}
