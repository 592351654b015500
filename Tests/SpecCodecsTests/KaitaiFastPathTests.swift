import BuiltinCodecs
import Foundation
import PacketKit
import Testing

@testable import SpecCodecs

/// The fixed-layout fast path (`KsFastPlan`) answers `probe`, `cleanKind`
/// and `cleanFields` as the interpreter does, on every shipped spec it
/// takes, for crafted messages, each with every byte changed, cut short
/// and lengthened, and for random bytes.
@Suite struct KaitaiFastPathTests {
  static func describe(_ fields: FlatFields) -> [String] {
    var lines = [fields.message.description]
    for index in 0..<fields.count {
      let field = fields[index]
      let value: String
      switch field.value {
      case .integer(let number): value = "i\(number)"
      case .unsigned(let number): value = "u\(number)"
      case .number(let number): value = "n\(number)"
      case .text(let text): value = "t\(text)"
      case .enumeration(let name, let raw): value = "e\(name)=\(raw)"
      case .group(let count): value = "g\(count)"
      }
      lines.append("\(field.name) \(value) \(field.unit) \(field.range)")
    }
    return lines
  }

  /// Crafted messages of every kind, then each mutated.
  static func inputs(_ codec: SpecCodec) throws -> [[UInt8]] {
    var seeds: [[UInt8]] = []
    for message in codec.info.messages {
      var values: [String: FieldValue] = [:]
      for field in message.fields { values[field.name] = ShippedSpecRoundTripTests.plain(field) }
      if let bytes = try? codec.craft(message.name, values: CraftValues(values)) { seeds.append(bytes) }
    }
    var inputs = seeds
    var generator = SystemRandomNumberGenerator()
    for seed in seeds {
      for index in seed.indices {
        for value: UInt8 in [0, 1, 2, 0x7F, 0x80, 0xFF, seed[index] &+ 1, seed[index] &- 1] {
          var changed = seed
          changed[index] = value
          inputs.append(changed)
        }
        inputs.append(Array(seed[..<index]))
      }
      inputs.append(seed + [0])
      inputs.append(seed + seed)
    }
    for _ in 0..<2000 {
      let count = Int.random(in: 0..<24, using: &generator)
      var random = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      if let seed = seeds.randomElement(using: &generator), !random.isEmpty {
        for index in 0..<min(seed.count, random.count) where Bool.random(using: &generator) {
          random[index] = seed[index]
        }
      }
      inputs.append(random)
    }
    return inputs
  }

  /// `probe`, `cleanKind` and `cleanFields` with the fast path and by the
  /// interpreter alone, on every input; how many the fast path answered.
  static func agree(_ codec: SpecCodec, _ label: String) throws -> Int {
    let program = codec.program
    let kaitai = try #require(program.kaitai)
    let fast = try #require(program.fast?.layout)
    var answered = 0
    for input in try Self.inputs(codec) {
      input.withUnsafeBytes { bytes in
        if fast.withValues({ fast.read(bytes, $0) }) != nil { answered += 1 }
        let hex = Hex.spaced(input)
        #expect(program.probe(bytes) == kaitai.probe(bytes), "\(label) probe \(hex)")
        #expect(
          program.cleanKind(bytes) == kaitai.cleanKind(bytes, schemaIndex: program.schemaIndex),
          "\(label) cleanKind \(hex)")
        var ours = FlatFields()
        var theirs = FlatFields()
        let fastDone = program.cleanFields(bytes, into: &ours)
        let slowDone = program.flat.map { kaitai.cleanFields(bytes, names: $0, into: &theirs) } ?? false
        #expect(fastDone == slowDone, "\(label) cleanFields \(hex)")
        if fastDone, slowDone {
          #expect(Self.describe(ours) == Self.describe(theirs), "\(label) fields \(hex)")
        }
      }
    }
    return answered
  }

  @Test(arguments: ShippedSpecRoundTripTests.specs)
  func fastPathAgreesWithTheInterpreter(path: String) throws {
    let codec = try ShippedSpecRoundTripTests.codec(path)
    guard codec.program.fast != nil else {
      #expect(path != "Specs/legctrl.ksy", "\(path) should take the fast path")
      return
    }
    let answered = try Self.agree(codec, path)
    #expect(answered > 10, "\(path): the fast path answered \(answered) inputs")
  }

  /// Kinds by an enum field, fixed bytes, big-endian and signed numbers,
  /// valid ranges and expressions over a group's members.
  static let enumKinds = """
    meta: {id: fastone, endian: be}
    -pktbench: {message: kind}
    seq:
      - {id: magic, contents: [0xca, 0xfe]}
      - {id: kind, type: u1, enum: kind}
      - {id: level, type: s2, valid: {min: -100, max: 100}}
      - id: pair
        type: pair
        valid:
          expr: '_.a + _.b * 2 != 7 and (_.a > 0 ? _.b < 200 : true)'
    types:
      pair:
        seq:
          - {id: a, type: u1}
          - {id: b, type: u4le}
    enums:
      kind: {1: one, 2: two}
    """

  /// A switch on a group's member, bodies to the end of the frame (one
  /// that keeps bytes its fields leave), any-of, ranges, units, hex.
  static let switchKinds = """
    meta: {id: fasttwo, endian: le}
    -pktbench: {message: body}
    seq:
      - {id: head, type: head}
      - id: body
        size-eos: true
        type:
          switch-on: head.code
          cases:
            1: small
            2: wide
    types:
      head:
        seq:
          - {id: code, type: u1, valid: {any-of: [1, 2]}}
          - {id: flags, type: u1, -pktbench-display: hex, -pktbench-expect: {value: 0}}
      small:
        seq:
          - {id: x, type: u2, -pktbench-range: [0, 1000], -pktbench-unit: mm}
          - {id: state, type: u1, enum: state}
      wide:
        -pktbench-size-mismatch: {action: keep, field: rest, code: extra}
        seq:
          - {id: y, type: s4, valid: {expr: '_io.size - 4 < 3 and _ != 5'}}
    enums:
      state: {0: idle, 1: busy}
    """

  @Test(arguments: [enumKinds, switchKinds])
  func fixedLayoutsAgree(text: String) throws {
    let codec = try SpecSupport.codec(text)
    #expect(try Self.agree(codec, codec.name) > 10)
  }

  @Test func whatTheFastPathTakes() throws {
    #expect(try ShippedSpecRoundTripTests.codec("Specs/legctrl.ksy").program.fast != nil)
    // Bit fields, conditions, repeats and checks keep to the interpreter.
    for path in [
      "Specs/rtp.ksy", "Specs/dns.ksy", "Specs/hrm.ksy", "Specs/rallie.ksy", "Examples/beacon.ksy",
    ] {
      #expect(try ShippedSpecRoundTripTests.codec(path).program.fast == nil, "\(path)")
    }
  }
}
