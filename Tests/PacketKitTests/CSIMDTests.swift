import CSIMD
import Foundation
import Testing

@testable import PacketKit

/// The C byte kernels, each answer checked against the rule applied byte
/// by byte or against Foundation's base64, on every path the machine has
/// (AVX2, SSSE3, scalar). Serialized: the limit is process-wide.
@Suite(.serialized) struct CSIMDTests {
  /// Every path this machine has: AVX2, SSSE3, scalar.
  private func eachPath(_ body: (String) -> Void) {
    for level in (0...csimd_machine_level()).reversed() {
      csimd_limit(level)
      body(["scalar", "SSSE3", "AVX2"][Int(level)])
    }
    csimd_limit(CSIMD_LEVEL_AVX2)
  }

  /// The kernel's decoding of whole groups: its answer and the bytes.
  private func decode(_ text: [UInt8]) -> (ok: Int32, bytes: [UInt8]) {
    var decoded = [UInt8](repeating: 0, count: text.count / 4 * 3 + 1)
    let ok = text.withUnsafeBufferPointer { input in
      decoded.withUnsafeMutableBufferPointer { out -> Int32 in
        guard let source = input.baseAddress, let target = out.baseAddress else {
          return text.isEmpty ? 1 : 0
        }
        return csimd_base64_decode(source, input.count, target)
      }
    }
    return (ok, Array(decoded.dropLast()))
  }

  private func alphabetPrefix(_ text: [UInt8]) -> Int {
    text.withUnsafeBufferPointer { $0.baseAddress.map { csimd_base64_alphabet_prefix($0, text.count) } ?? 0 }
  }

  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  @Test func thisMachineTakesTheVectorPath() {
    #if arch(x86_64)
      // Every x86_64 this project runs on has SSSE3 (2006 on): if this
      // fails, the vector path is not being measured or tested.
      #expect(csimd_machine_level() >= CSIMD_LEVEL_SSSE3)
    #endif
  }

  @Test func jsonPlainPrefixEndsAtTheFirstByteTheRuleRejects() {
    var random = SplitMix64(seed: 0x51D)
    let unusual: [UInt8] = [0x00, 0x1F, 0x20, 0x22, 0x5C, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
    eachPath { path in
      for _ in 0..<20_000 {
        let count = random.below(200)
        var bytes = (0..<count).map { _ in UInt8(0x23 + random.below(0x39)) }
        for _ in 0..<random.below(3) where count > 0 {
          bytes[random.below(count)] = unusual[random.below(unusual.count)]
        }
        for asciiOnly in [false, true] {
          let rule =
            bytes.firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || (asciiOnly && $0 >= 0x80) } ?? count
          let kernel = bytes.withUnsafeBufferPointer {
            $0.baseAddress.map { csimd_json_plain_prefix($0, count, asciiOnly ? 1 : 0) } ?? 0
          }
          let swift = bytes.withUnsafeBytes {
            $0.baseAddress.map { JSONWordScan.plainPrefix($0, count: count, asciiOnly: asciiOnly) } ?? 0
          }
          let plain = bytes.withUnsafeBytes {
            $0.baseAddress.map { JSONWordScan.isPlain($0, count: count, asciiOnly: asciiOnly) } ?? true
          }
          #expect(
            kernel == rule && swift == rule && plain == (rule == count),
            "\(path) \(bytes) asciiOnly \(asciiOnly)")
        }
      }
    }
  }

  /// The first words are read in Swift, and the word holding the end says
  /// where in it: a borrow from one special byte may flag the bytes after
  /// it, so words with several (every byte value next to the rule's
  /// bounds, a third of the bytes) must still end at the first.
  @Test func plainPrefixEndsAtTheFirstOfManySpecialBytes() {
    var random = SplitMix64(seed: 0x5BEC)
    let unusual: [UInt8] = [
      0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF,
    ]
    for _ in 0..<50_000 {
      let count = random.below(41)
      let bytes = (0..<count).map { _ in
        random.chance(1, in: 3) ? unusual[random.below(unusual.count)] : UInt8(0x23 + random.below(0x39))
      }
      for asciiOnly in [false, true] {
        let rule =
          bytes.firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || (asciiOnly && $0 >= 0x80) } ?? count
        let swift = bytes.withUnsafeBytes {
          $0.baseAddress.map { JSONWordScan.plainPrefix($0, count: count, asciiOnly: asciiOnly) } ?? 0
        }
        #expect(swift == rule, "\(bytes) asciiOnly \(asciiOnly)")
      }
    }
  }

  @Test func asciiPrefixEndsAtTheFirstByteAbove0x7F() {
    var random = SplitMix64(seed: 0xA5C)
    eachPath { path in
      for _ in 0..<20_000 {
        let count = random.below(300)
        var bytes = (0..<count).map { _ in UInt8(random.below(0x80)) }
        if count > 0, random.chance(3, in: 4) {
          bytes[random.below(count)] = UInt8(0x80 + random.below(0x80))
        }
        let rule = bytes.firstIndex { $0 >= 0x80 } ?? count
        let kernel = bytes.withUnsafeBufferPointer {
          $0.baseAddress.map { csimd_ascii_prefix($0, count) } ?? 0
        }
        #expect(kernel == rule, "\(path) \(bytes)")
      }
    }
  }

  @Test func base64EncodingIsFoundations() {
    var random = SplitMix64(seed: 0xB64)
    eachPath { path in
      for _ in 0..<5_000 {
        let bytes = (0..<random.below(400)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var text = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4)
        text.withUnsafeMutableBufferPointer { out in
          bytes.withUnsafeBufferPointer { input in
            if let source = input.baseAddress, let target = out.baseAddress {
              csimd_base64_encode(source, input.count, target)
            }
          }
        }
        #expect(
          String(decoding: text, as: UTF8.self) == Data(bytes).base64EncodedString(), "\(path) \(bytes)")
      }
    }
  }

  @Test func base64DecodingOfWholeGroupsIsFoundations() {
    var random = SplitMix64(seed: 0xDEC)
    eachPath { path in
      for _ in 0..<5_000 {
        // Whole groups only: the kernel leaves padding to its caller.
        let bytes = (0..<random.below(100) * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let text = Array(Data(bytes).base64EncodedString().utf8)
        let (ok, decoded) = decode(text)
        #expect(ok == 1 && decoded == bytes, "\(path) \(text.count) characters")
      }
    }
  }

  /// Each of the 256 byte values at each position of a 64-character text:
  /// refused by decode, and found by the alphabet prefix at its position,
  /// exactly when it is outside the alphabet; decoded to its value when inside.
  @Test func everyByteAtEveryPositionIsJudgedByTheAlphabet() {
    eachPath { path in
      for position in 0..<64 {
        for byte in 0...255 {
          var text = (0..<64).map { Self.alphabet[($0 * 7) % 64] }
          text[position] = UInt8(byte)
          let inAlphabet = Self.alphabet.contains(UInt8(byte))
          let (ok, decoded) = decode(text)
          let prefix = alphabetPrefix(text)
          #expect(prefix == (inAlphabet ? 64 : position), "\(path) byte \(byte) at \(position)")
          #expect(ok == (inAlphabet ? 1 : 0), "\(path) byte \(byte) at \(position)")
          if inAlphabet {
            let expected = Data(base64Encoded: Data(text)).map { [UInt8]($0) }
            #expect(decoded == expected, "\(path) byte \(byte) at \(position)")
          }
        }
      }
    }
  }

  /// Unmasking: each byte XORed with the key's byte at its offset mod 4.
  @Test func xorMaskAppliesTheKeyFromTheFirstByte() {
    var random = SplitMix64(seed: 0x3A5)
    eachPath { path in
      for _ in 0..<5_000 {
        let bytes = (0..<random.below(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let key = (0..<4).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var masked = bytes
        masked.withUnsafeMutableBufferPointer { buffer in
          key.withUnsafeBufferPointer { key in
            if let base = buffer.baseAddress { csimd_xor_mask(base, buffer.count, key.baseAddress) }
          }
        }
        #expect(
          masked == bytes.enumerated().map { $0.element ^ key[$0.offset % 4] }, "\(path) \(bytes.count)")
      }
    }
  }
}
