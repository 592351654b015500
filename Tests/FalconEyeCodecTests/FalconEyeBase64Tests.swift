import Foundation
import PacketKit
import Testing

@testable import FalconEyeCodec

/// pktbench's base64 against Foundation's, an independent implementation:
/// every length and byte value decodes to the bytes Foundation encoded, a
/// frame's image data keeps those bytes, and a single bad character
/// anywhere is refused (the image data then keeps the text).
@Suite struct FalconEyeBase64Tests {
  static func samples() -> [[UInt8]] {
    var rng = SplitMix64(seed: 99)
    var out: [[UInt8]] = (0..<70).map { length in
      (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }
    out.append((0..<300_001).map { _ in UInt8(truncatingIfNeeded: rng.next()) })  // a camera frame's size
    out.append([0xFF, 0xD8] + (0..<1000).map { _ in UInt8(truncatingIfNeeded: rng.next()) } + [0xFF, 0xD9])
    return out
  }

  @Test func decodesWhatFoundationEncodes() throws {
    for bytes in Self.samples() {
      let text = Data(bytes).base64EncodedString()
      #expect(try FalconEyeBase64.decode(text) == bytes, "\(bytes.count) bytes")
      #expect(try FalconEyeBase64.decode(Array(text.utf8)) == bytes, "\(bytes.count) bytes")
      #expect(FalconEyeImageData(text: text) == .bytes(bytes), "\(bytes.count) bytes")
      #expect(FalconEyeImageData.bytes(bytes).text == text, "\(bytes.count) bytes")
      #expect(FalconEyeBase64.encode(bytes) == text)
      // Straight into a writer (the payload), after what it already holds.
      var writer = JSONWriter()
      writer.raw("{\"payload\":\"")
      bytes.withUnsafeBytes { FalconEyeBase64.encode($0, into: &writer) }
      #expect(writer.text == "{\"payload\":\"" + text, "\(bytes.count) bytes")
    }
  }

  /// Every byte value, at many places in a camera-sized text: decoding (64
  /// characters at a time) takes exactly the alphabet, and a character it
  /// takes changes the image as Foundation's decode says.
  @Test func imageDecodingTakesExactlyTheAlphabet() throws {
    var rng = SplitMix64(seed: 64)
    let bytes = (0..<3000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let valid = Array(Data(bytes).base64EncodedString().utf8)
    let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    for value in 0..<128 {
      for _ in 0..<8 {
        var text = valid
        // Not in the padded last group: '=' is legal there.
        text[rng.below(text.count - 4)] = UInt8(value)
        let string = String(decoding: text, as: UTF8.self)
        if alphabet.contains(UInt8(value)) {
          let decoded = try #require(Data(base64Encoded: string))
          #expect(FalconEyeImageData(text: string) == .bytes([UInt8](decoded)), "\(value)")
        } else {
          #expect(throws: FalconEyeBase64.Failure.self, "byte \(value)") {
            try FalconEyeBase64.decode(string)
          }
          #expect(FalconEyeImageData(text: string) == .text(string), "byte \(value)")
        }
      }
    }
    // Bytes above 0x7F come as UTF-8 sequences of the same length as the characters they replace.
    for sequence in ["é", "ÿ", "€", "🤖"] {
      for _ in 0..<16 {
        var text = valid
        let utf8 = Array(sequence.utf8)
        let at = rng.below(text.count - 4 - utf8.count)
        text.replaceSubrange(at..<(at + utf8.count), with: utf8)
        let string = String(decoding: text, as: UTF8.self)
        #expect(string.utf8.count == valid.count)
        #expect(throws: FalconEyeBase64.Failure.self, "\(sequence)") { try FalconEyeBase64.decode(string) }
        #expect(FalconEyeImageData(text: string) == .text(string), "\(sequence)")
      }
    }
  }

  @Test func refusesOneBadCharacterAnywhere() {
    var rng = SplitMix64(seed: 5)
    for bytes in Self.samples().prefix(70) where !bytes.isEmpty {
      var text = Array(Data(bytes).base64EncodedString().utf8)
      let position = rng.below(text.count)
      text[position] = [UInt8(ascii: "!"), UInt8(ascii: "-"), UInt8(ascii: "_"), 0x80, 0x00][rng.below(5)]
      let string = String(decoding: text, as: UTF8.self)
      #expect(throws: FalconEyeBase64.Failure.self) { try FalconEyeBase64.decode(text) }
      #expect(FalconEyeImageData(text: string) == .text(string))
      #expect(Data(base64Encoded: string) == nil)
    }
  }

  /// Base64 whose padded last group has stray bits decodes (Foundation and
  /// the server's Python take it) to the bytes of the canonical text, but
  /// only the canonical text is kept as bytes: the rest keep their text, so
  /// a frame re-encodes as it was sent. Vectors from Python:
  /// base64.b64decode("/9j/2R==") == base64.b64decode("/9j/2Q==") == b"\xff\xd8\xff\xd9".
  @Test func onlyCanonicalTextBecomesBytes() throws {
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
    #expect(FalconEyeImageData(text: "/9j/2Q==") == .bytes(jpeg))
    for stray in ["/9j/2R==", "/9j/2f==", "/9j/2Z=="] {
      #expect(try FalconEyeBase64.decode(stray) == jpeg, "\(stray)")
      #expect([UInt8](try #require(Data(base64Encoded: stray))) == jpeg, "\(stray)")
      #expect(FalconEyeImageData(text: stray) == .text(stray), "\(stray)")
    }
    // One '=': python3 base64.b64decode("/9j/2Q0=") == b"\xff\xd8\xff\xd9\x0d".
    #expect(FalconEyeImageData(text: "/9j/2Q0=") == .bytes(jpeg + [0x0D]))
    #expect(FalconEyeImageData(text: "/9j/2Q1=") == .text("/9j/2Q1="))
    #expect(try FalconEyeBase64.decode("/9j/2Q1=") == jpeg + [0x0D])
    #expect(FalconEyeImageData(text: "") == .bytes([]))
  }

  /// A bad character deep in a camera-sized text is named at its index,
  /// on either side of the 4 KiB blocks the kernel passes whole.
  @Test func namesABadCharacterFarIntoALongText() throws {
    var rng = SplitMix64(seed: 21)
    let bytes = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let valid = Array(Data(bytes).base64EncodedString().utf8)
    for position in [0, 4095, 4096, 4097, 8191, 8192, 100_001, valid.count - 5] {
      for bad in [UInt8(ascii: "!"), UInt8(ascii: "="), 0x80] {
        var text = valid
        text[position] = bad
        #expect(Data(base64Encoded: Data(text)) == nil)
        do {
          _ = try FalconEyeBase64.decode(text)
          Issue.record("\(bad) at \(position) decoded")
        } catch {
          #expect(error.index == position, "\(bad) at \(position): \(error.reason)")
        }
      }
    }
  }
}
