import LegCtrlCodec
import PacketKit
import Testing

/// `cleanKind` counts frames for `decode --stats` without dissecting them:
/// it must answer exactly for the frames `decode` reads without a
/// diagnostic, and with the kind `decode` names.
@Suite struct LegCtrlCleanKindTests {
  let codec = LegCtrlCodec()

  @Test(arguments: LegCtrlGoldenVectorTests.vectors)
  func goldenVectorsAreClean(hex: String, message: LegCtrlMessage) throws {
    let bytes = try Hex.parse(hex)
    let kind = try #require(bytes.withUnsafeBytes { codec.cleanKind($0) })
    #expect(codec.info.messages[kind].name == codec.kind(of: message))
  }

  /// Every header variation with payloads at the edges of each field's range.
  @Test func agreesWithDecodeOnEveryHeaderAndEdgePayload() {
    let payloadBytes: [UInt8] = [
      0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0xF3, 0xF4, 0xC4, 0x09, 0xC5, 0xFE, 0xFF,
    ]
    var clean = 0
    var checked = 0
    for version: UInt8 in [0, 1, 2] {
      for msgType: UInt8 in [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x10, 0x11, 0xFF] {
        for reserved: UInt8 in [0, 1] {
          for length in 0...9 {
            for fill in payloadBytes {
              for variant in 0..<4 {
                // Payload: `fill` everywhere, then one position set per variant.
                var payload = [UInt8](repeating: fill, count: length)
                if length > 0 {
                  payload[variant % length] = payloadBytes[(Int(fill) + variant) % payloadBytes.count]
                }
                for declared in Set([UInt8(length), UInt8(min(length + 1, 255))]) {
                  let frame = [version, msgType, declared, reserved] + payload
                  checked += 1
                  if check(frame) { clean += 1 }
                }
              }
            }
          }
        }
      }
    }
    #expect(checked > 10_000)
    #expect(clean > 100, "clean frames should appear among these; saw \(clean)")
  }

  /// docs/protocols.md §2's servo vector as flat fields: the header group and
  /// the pulse, in the names and units the dissection tree uses.
  @Test func servoVectorAsFlatFields() throws {
    var flat = FlatFields()
    let bytes: [UInt8] = [0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]
    try #require(bytes.withUnsafeBytes { codec.cleanFields($0, into: &flat) })
    #expect(flat.message.description == "set_servo_ch0")
    let nodes = flat.nodes
    try #require(nodes.count == 2)
    #expect(nodes[0].name == "header" && nodes[0].shape == .object && nodes[0].range == 0..<4)
    #expect(
      nodes[0].children.map(\.value) == [
        .unsigned(1), .enumeration(name: "SET_SERVO_CH0", raw: 3), .unsigned(2), .unsigned(0),
      ])
    #expect(nodes[0].children.map(\.name) == ["version", "msg_type", "payload_len", "reserved"])
    #expect(nodes[1] == DissectionNode("pulse_us", .unsigned(1500), unit: "µs", range: 4..<6))
  }

  /// Whether `frame` was clean; records an issue when cleanKind and decode
  /// disagree, or cleanFields and decode.
  private func check(_ frame: [UInt8]) -> Bool {
    let kind = frame.withUnsafeBytes { codec.cleanKind($0) }
    let decoded = try? codec.decode(frame)
    var flat = FlatFields()
    let isFlat = frame.withUnsafeBytes { codec.cleanFields($0, into: &flat) }
    #expect(isFlat == (kind != nil), "cleanFields and cleanKind disagree on \(Hex.spaced(frame))")
    if isFlat, let decoded {
      #expect(flat.message.description == decoded.messageName, "\(Hex.spaced(frame))")
      #expect(flat.nodes == decoded.fields, "\(Hex.spaced(frame))")
    }
    let isClean = decoded.map { $0.diagnostics.isEmpty } ?? false
    if let kind {
      #expect(isClean, "cleanKind \(kind) for \(Hex.spaced(frame)), which is not clean")
      #expect(
        decoded.map { codec.info.messages[kind].name == $0.messageName } == true, "\(Hex.spaced(frame))")
    } else {
      // Unknown message types decode as "unknown" with a warning, never clean.
      #expect(!isClean, "\(Hex.spaced(frame)) decodes clean but cleanKind declines it")
    }
    return kind != nil
  }
}
