import PacketKit
import Testing

@testable import RiderCodec

/// `decode` reads clean commands (the app's own datagrams) in one pass
/// without the JSON tree. These tests hold it to the general decoder: the
/// same message, fields, ranges and diagnostics for every input, and
/// `cleanKind` only for inputs that decode with no diagnostic at all.
@Suite struct RiderCleanCommandTests {
  /// Datagrams near the clean shape: both variants, keys in any order, white
  /// space, every number form, and now and then an extra, missing or repeated
  /// key, a wrong type, an escape, an out-of-range value or trailing bytes.
  static func datagrams(count: Int) -> [[UInt8]] {
    var rng = SplitMix64(seed: 42)
    let numbers = [
      "0", "-0", "50", "-37.5", "100", "-100", "100.0", "100.5", "-100.01", "1e2", "1E+2", "5e-1", "0.000001",
      "99.99999999999999999", "1700000000.05", "1700000000", "1.7e9", "12345678901234567890",
      // Around the counting path's limits: 15 digits or 16, two whole
      // digits or three, leading zeros, no digits after the point.
      "99.9999999999999", "99.99999999999999", "-9.12345678901234", "-0.00000000000001",
      "0.000000000000001", "1700000000.12345", "1700000000.123456", "100.000000000000", "101",
      "999", "-99.5", "01", "-01.5", "12.", ".5", "-", "1.e5", "12.5E1", "0.0000000000000000000001",
    ]
    var out: [[UInt8]] = [
      Array(#"{"left":50,"right":-50,"timestamp":1.5}"#.utf8),
      Array(#"{"command":"move","speed":40,"direction":-10,"timestamp":1700000000.25}"#.utf8),
      Array("50,-50,0".utf8),
    ]
    for _ in 0..<count {
      var members: [(String, String)]
      if rng.below(2) == 0 {
        members = [
          ("left", rng.pick(numbers)), ("right", rng.pick(numbers)), ("timestamp", rng.pick(numbers)),
        ]
      } else {
        members = [
          ("command", rng.pick([#""move""#, #""stop""#, #""turn""#])), ("speed", rng.pick(numbers)),
          ("direction", rng.pick(numbers)), ("timestamp", rng.pick(numbers)),
        ]
      }
      members.shuffle(using: &rng)
      switch rng.below(12) {
      case 0: members.removeLast()
      case 1: members.append(("extra", "1"))
      case 2: members.append(members[0])
      case 3: members[0].1 = rng.pick([#""50""#, "true", "null", "[1]", "{}"])
      case 4: members[0].0 = members[0].0 == "left" ? #"l\u0065ft"# : "right "
      default: break
      }
      let space = { (rng: inout SplitMix64) -> String in rng.pick(["", "", " ", "\n", "\t "]) }
      var text = space(&rng) + "{"
      for (index, member) in members.enumerated() {
        if index > 0 { text += "," }
        text += space(&rng) + "\"\(member.0)\"" + space(&rng) + ":" + space(&rng) + member.1 + space(&rng)
      }
      text += "}" + space(&rng)
      if rng.below(30) == 0 { text += "x" }
      if rng.below(30) == 0 { text = String(text.dropLast(1 + rng.below(3))) }
      out.append(Array(text.utf8))
    }
    return out
  }

  @Test func decodeAgreesWithTheGeneralDecoder() {
    let codec = RiderCodec()
    var clean = 0
    for datagram in Self.datagrams(count: 20_000) {
      let text = String(decoding: datagram, as: UTF8.self)
      let general = datagram.withUnsafeBytes { bytes in
        Result { () throws(DecodeError) in try codec.decodeGeneral(bytes) }
      }
      let decoded = Result { () throws(DecodeError) in try codec.decode(datagram) }
      switch (general, decoded) {
      case (.success(let expected), .success(let actual)):
        #expect(actual.message == expected.message, "\(text)")
        #expect(actual.messageName == expected.messageName, "\(text)")
        #expect(actual.fields == expected.fields, "\(text)")
        #expect(actual.diagnostics == expected.diagnostics, "\(text)")
      case (.failure(let expected), .failure(let actual)):
        #expect(actual == expected, "\(text)")
      default:
        Issue.record("decode and the general decoder disagree on \(text)")
      }
      guard let kind = datagram.withUnsafeBytes({ codec.cleanKind($0) }) else { continue }
      clean += 1
      guard case .success(let expected) = general else {
        Issue.record("cleanKind \(kind) for \(text), which does not decode")
        continue
      }
      #expect(codec.info.messages[kind].name == expected.messageName, "\(text)")
      #expect(expected.diagnostics.isEmpty, "cleanKind for \(text), which has diagnostics")
    }
    #expect(clean > 1_000, "clean commands should be common among these; saw \(clean)")
  }

  /// `cleanKind` counts without reading most numbers' values; it must say
  /// exactly what the scan that reads every value says.
  @Test func countingAgreesWithTheFullScan() {
    var clean = 0
    for datagram in Self.datagrams(count: 20_000) {
      datagram.withUnsafeBytes { bytes in
        let counted = RiderCleanCommand.variant(bytes)
        let scanned = RiderCleanCommand.scan(bytes)?.isMove
        #expect(counted == scanned, "\(String(decoding: datagram, as: UTF8.self))")
        if counted != nil { clean += 1 }
      }
    }
    #expect(clean > 1_000, "clean commands should be common among these; saw \(clean)")
  }

  /// Clean commands are read first as compact JSON, then in full only when
  /// they hold white space: the same command spaced out between every
  /// token (spaces, tabs, CR LF) must stay clean, with the same kind.
  @Test func whiteSpaceBetweenTokensKeepsACommandClean() {
    let codec = RiderCodec()
    var spaced = 0
    for spacedOut in Self.datagrams(count: 2_000) {
      let datagram = spacedOut.filter { $0 > 0x20 }
      guard let kind = datagram.withUnsafeBytes({ codec.cleanKind($0) }) else { continue }
      for gap in [" ", "\t", "\r\n", "  \n "] {
        var text: [UInt8] = Array(gap.utf8)
        for byte in datagram {
          let structural = "{}:,".utf8.contains(byte)
          if structural { text += Array(gap.utf8) }
          text.append(byte)
          if structural { text += Array(gap.utf8) }
        }
        text += Array(gap.utf8)
        let label = String(decoding: text, as: UTF8.self)
        #expect(text.withUnsafeBytes { codec.cleanKind($0) } == kind, "\(label)")
        var flat = FlatFields()
        #expect(text.withUnsafeBytes { codec.cleanFields($0, into: &flat) }, "\(label)")
        #expect(text.withUnsafeBytes { RiderCleanCommand.variant($0) } != nil, "\(label)")
        spaced += 1
      }
    }
    #expect(spaced > 400, "compact clean commands should be common among these; saw \(spaced / 4)")
  }

  @Test func theAppsCommandIsClean() throws {
    let bytes = Array(#"{"left":50,"right":-37.5,"timestamp":1700000000.05}"#.utf8)
    #expect(bytes.withUnsafeBytes { RiderCodec().cleanKind($0) } == 0)  // drive
    let move = Array(#"{"command":"stop","speed":0,"direction":0,"timestamp":1}"#.utf8)
    #expect(move.withUnsafeBytes { RiderCodec().cleanKind($0) } == 2)  // move
    // No timestamp: decodes, but with a note, so not clean.
    let bare = Array(#"{"left":50,"right":-50}"#.utf8)
    #expect(bare.withUnsafeBytes { RiderCodec().cleanKind($0) } == nil)
  }
}

extension SplitMix64 {
  fileprivate mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
