import PacketKit

/// Byte-level mutations: bit flips, insert/delete/duplicate, truncate,
/// extend, interesting integers. It knows no protocol: putting a mutant's
/// length and check bytes right again is each codec's (`FrameResealing`).
public struct ByteMutator {
  public init() {}

  static let interesting: [UInt64] = [
    0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000,
    0xFFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 500, 2500, 65535, 1024, 16384,
  ]

  public func mutate(_ input: [UInt8], rng: inout SplitMix64, maxLength: Int = 1 << 20) -> [UInt8] {
    var bytes: [UInt8] = []
    mutate(input, into: &bytes, rng: &rng, maxLength: maxLength)
    return bytes
  }

  /// `mutate` written into `bytes` (its old contents replaced): the fuzz
  /// runner reuses one buffer for every input, instead of a new array each.
  public func mutate(
    _ input: [UInt8], into bytes: inout [UInt8], rng: inout SplitMix64, maxLength: Int = 1 << 20
  ) {
    bytes.removeAll(keepingCapacity: true)
    bytes.append(contentsOf: input)
    let rounds = 1 + rng.below(3)
    for _ in 0..<rounds {
      mutateOnce(&bytes, rng: &rng, maxLength: maxLength)
    }
  }

  private func mutateOnce(_ bytes: inout [UInt8], rng: inout SplitMix64, maxLength: Int) {
    switch rng.below(9) {
    case 0 where !bytes.isEmpty:  // bit flip
      let index = rng.below(bytes.count)
      bytes[index] ^= 1 << UInt8(rng.below(8))
    case 1 where bytes.count < maxLength:  // insert a byte
      bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: rng.below(bytes.count + 1))
    case 2 where !bytes.isEmpty:  // delete a run
      let start = rng.below(bytes.count)
      let count = 1 + rng.below(min(8, bytes.count - start))
      bytes.removeSubrange(start..<start + count)
    case 3 where !bytes.isEmpty && bytes.count < maxLength / 2:  // duplicate a run
      let start = rng.below(bytes.count)
      let count = 1 + rng.below(min(16, bytes.count - start))
      Self.duplicate(start..<start + count, in: &bytes)
    case 4 where !bytes.isEmpty:  // truncate
      bytes.removeLast(1 + rng.below(bytes.count))
    case 5 where bytes.count < maxLength:  // extend
      let count = min(1 + rng.below(16), maxLength - bytes.count)
      for _ in 0..<count { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
    case 6 where !bytes.isEmpty:  // an interesting integer, 1/2/4/8 bytes, either order
      let value = Self.interesting[rng.below(Self.interesting.count)]
      let width = 1 << rng.below(4)
      let start = rng.below(bytes.count)
      let bigEndian = rng.chance(1, in: 2)
      for i in 0..<width where start + i < bytes.count {
        let shift = bigEndian ? (width - 1 - i) * 8 : i * 8
        bytes[start + i] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
      }
    case 7 where !bytes.isEmpty:  // random byte
      bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
    default:  // swap two bytes
      guard bytes.count >= 2 else { return }
      bytes.swapAt(rng.below(bytes.count), rng.below(bytes.count))
    }
  }

  /// Inserts a second copy of `run` right after it. The array grows and
  /// its tail from `run.lowerBound` moves up by the run's length, which
  /// leaves the run there twice. (Inserting `bytes[run]` held a slice of
  /// the array while changing it, which copied the whole array first.)
  static func duplicate(_ run: Range<Int>, in bytes: inout [UInt8]) {
    precondition(run.lowerBound >= 0 && run.upperBound <= bytes.count)
    let tail = bytes.count - run.lowerBound
    bytes.append(contentsOf: repeatElement(0, count: run.count))
    bytes.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }  // nothing to move
      (base + run.upperBound).copyMemory(from: base + run.lowerBound, byteCount: tail)
    }
  }
}
