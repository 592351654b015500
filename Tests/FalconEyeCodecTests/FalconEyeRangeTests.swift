import FalconEyeCodec
import PacketKit
import Testing

/// Dissection ranges point into the wire bytes, and probe tells FalconEye
/// from other JSON.
@Suite struct FalconEyeRangeTests {
  let codec = FalconEyeCodec()

  static let inputs =
    Vectors.all + Vectors.real + [Vectors.cameraFrameInner, Vectors.escapedSlash]
    + [#"{"success":true,"success":false,"extra":{"a":[1,{"b":2}]}}"#]

  /// Walks the tree: every node's range lies inside the input, and a
  /// child's inside its parent's.
  func check(_ node: DissectionNode, within parent: Range<Int>, path: String) {
    #expect(node.range.lowerBound >= parent.lowerBound, "\(path)")
    #expect(node.range.upperBound <= parent.upperBound, "\(path)")
    for child in node.children { check(child, within: node.range, path: "\(path).\(child.name)") }
  }

  @Test(arguments: inputs)
  func everyNodeLiesInsideTheInput(text: String) throws {
    let decoded = try codec.decode(text.bytes)
    for node in decoded.fields { check(node, within: 0..<text.utf8.count, path: node.name) }
    for diagnostic in decoded.diagnostics {
      if let range = diagnostic.range { #expect(range.upperBound <= text.utf8.count) }
    }
  }

  /// intrinsics.fx lies at inner bytes [a, a+6); per docs/protocols.md it maps
  /// to base64 characters [4*(a/3), 4*((a+6+2)/3)) after the opening quote:
  //   python3 (second script in FalconEyeVectors.swift): "fx node range 283 295"
  @Test func innerRangesMapToTheirBase64Characters() throws {
    let decoded = try codec.decode(Vectors.cameraFrame.bytes)
    #expect(decoded.fields.first(named: "fx")?.range == 283..<295)
    // The payload group is the whole payload string, quotes included.
    let text = Vectors.cameraFrame
    let open = try #require(text.range(of: #""payload":""#)).upperBound.utf16Offset(in: text) - 1
    #expect(decoded.fields.first(named: "payload")?.range == open..<text.utf8.count - 1)
  }

  @Test func envelopeFieldRanges() throws {
    let decoded = try codec.decode(Vectors.heartbeatClient.bytes)
    // {"type":"heartbeat","timestamp":1700000003,"payload":"e30="}
    #expect(decoded.fields.first(named: "type")?.range == 8..<19)
    #expect(decoded.fields.first(named: "timestamp")?.range == 32..<42)
    #expect(decoded.fields.first(named: "timestamp")?.unit == "s")
  }

  // MARK: Probe

  @Test(arguments: Vectors.all + Vectors.real)
  func probeIsSureOfEnvelopes(text: String) {
    #expect(codec.probe(text.bytes) == 95)
  }

  @Test func probeOfBareAndForeignJSON() {
    #expect(codec.probe(Vectors.cameraFrameInner.bytes) == 70)
    #expect(codec.probe(#"{"success":true}"#.bytes) == 70)
    // Rider drive commands and other JSON are not FalconEye.
    #expect(codec.probe(#"{"left":50,"right":50,"timestamp":1}"#.bytes) == 0)
    #expect(codec.probe(#"[1,2,3]"#.bytes) == 0)
    #expect(codec.probe([0x01, 0x03, 0x02, 0x00, 0xDC, 0x05]) == 0)
    #expect(codec.probe([UInt8]()) == 0)
    // An envelope with a kind nobody knows, or cut short, is still probably ours.
    #expect(codec.probe(Vectors.videoFrame.bytes) == 40)
    #expect(codec.probe(Array(Vectors.authRequest.bytes.prefix(100))) == 30)
  }

  /// Decoding never traps on damaged input: every prefix and every one-byte
  /// corruption of a real message either decodes or throws a DecodeError.
  @Test func damagedInputNeverTraps() {
    let bytes = Vectors.authRequest.bytes
    for length in 0...bytes.count {
      _ = codec.decodeFrame(Array(bytes.prefix(length)))
      _ = codec.probe(Array(bytes.prefix(length)))
    }
    for index in stride(from: 0, to: bytes.count, by: 3) {
      for replacement: UInt8 in [0x00, 0x22, 0x5C, 0x7B, 0xFF] {
        var damaged = bytes
        damaged[index] = replacement
        if case .decoded(let frame) = codec.decodeFrame(damaged) {
          for node in frame.fields { check(node, within: 0..<damaged.count, path: node.name) }
        }
      }
    }
  }
}
