import BuiltinCodecs
import Foundation
import PacketKit
import Testing

@testable import PacketFuzz

@Suite struct MessageGeneratorTests {
  /// A file field (a camera frame's JPEG) is generated as JPEG-framed
  /// random bytes: FF D8 … FF D9, mostly small, one in sixteen 64–128 KiB.
  @Test func fileFieldsAreFramedJPEGsOfBothSizes() throws {
    let field = FieldSchema("imageData", kind: .file, help: "a JPEG")
    let generator = MessageGenerator()
    var rng = SplitMix64(seed: 7)
    var small = 0
    var large = 0
    for _ in 0..<2_000 {
      guard case .bytes(let bytes) = try #require(generator.value(for: field, rng: &rng)) else {
        Issue.record("a file field must be generated as bytes")
        continue
      }
      #expect(Array(bytes.prefix(2)) == [0xFF, 0xD8])
      #expect(Array(bytes.suffix(2)) == [0xFF, 0xD9])
      let body = bytes.count - 4
      if body < 256 {
        small += 1
      } else {
        #expect((64 * 1024..<128 * 1024).contains(body), "\(body) bytes")
        large += 1
        // Random: every byte value turns up in 64 KiB, and no run of eight
        // bytes repeats the one before it.
        var seen = [Bool](repeating: false, count: 256)
        for byte in bytes { seen[Int(byte)] = true }
        #expect(!seen.contains(false))
        let repeats = bytes.withUnsafeBytes { raw in
          stride(from: 2, to: bytes.count - 18, by: 8).filter {
            raw.loadUnaligned(fromByteOffset: $0, as: UInt64.self)
              == raw.loadUnaligned(fromByteOffset: $0 + 8, as: UInt64.self)
          }.count
        }
        #expect(repeats == 0)
      }
    }
    #expect(large > 60 && large < 200, "\(large) large of 2,000")
    #expect(small + large == 2_000)
  }

  /// Text under a base64 rule is base64 (as Foundation reads it) of a
  /// length the rule allows, at both edges and between, with every padding.
  @Test func textFollowsItsBase64Rule() throws {
    let field = FieldSchema("token", kind: .string, help: "a token", textRule: .base64(characters: 16...256))
    let generator = MessageGenerator()
    var rng = SplitMix64(seed: 11)
    var lengths = Set<Int>()
    var paddings = Set<Int>()
    for _ in 0..<2_000 {
      guard case .string(let text) = try #require(generator.value(for: field, rng: &rng)) else {
        Issue.record("a text field must be generated as a string")
        continue
      }
      #expect((16...256).contains(text.utf8.count), "\(text.utf8.count) characters")
      #expect(Data(base64Encoded: text) != nil, "\(text)")
      lengths.insert(text.utf8.count)
      paddings.insert(text.utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count)
    }
    #expect(lengths.contains(16) && lengths.contains(256))
    #expect(lengths.count > 40, "\(lengths.count) lengths")
    #expect(paddings == [0, 1, 2])
  }

  /// Every generated authRequest is one craft takes: its token has the
  /// server's shape (random text was refused, so the kind's round trip
  /// almost never ran).
  @Test func generatedAuthRequestsAreCrafted() throws {
    let codec = try #require(BuiltinCodecs.set.named("falconeye"))
    let schema = try #require(codec.info.message(named: "authRequest"))
    let generator = MessageGenerator()
    var rng = SplitMix64(seed: 5)
    var refused: [String] = []
    for _ in 0..<500 {
      let values = generator.values(for: schema.fields, rng: &rng)
      do {
        _ = try codec.craft("authRequest", values: values)
      } catch {
        refused.append("\(error.code) \(error.field ?? "")")
      }
    }
    let refusedCount = refused.count
    #expect(refusedCount == 0, "\(refusedCount) of 500 refused: \(Set(refused))")
  }

  /// The same seed gives the same values.
  @Test func aSeedRepeats() {
    let field = FieldSchema("imageData", kind: .file, help: "a JPEG")
    var a = SplitMix64(seed: 99)
    var b = SplitMix64(seed: 99)
    for _ in 0..<50 {
      #expect(MessageGenerator().value(for: field, rng: &a) == MessageGenerator().value(for: field, rng: &b))
    }
  }
}
