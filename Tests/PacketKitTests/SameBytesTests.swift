import PacketKit
import Testing

@Suite struct SameBytesTests {
  /// memcmp's answer is elementsEqual's for every pair of prefixes and
  /// one-byte changes of a short input, empty ones included.
  @Test func agreesWithElementsEqual() {
    let input: [UInt8] = [0x01, 0x10, 0x02, 0x00, 0xDC, 0x05, 0xFF]
    var variants: [[UInt8]] = (0...input.count).map { Array(input.prefix($0)) }
    for index in input.indices {
      var changed = input
      changed[index] ^= 0x80
      variants.append(changed)
    }
    for a in variants {
      for b in variants {
        let same = a.withUnsafeBytes { left in b.withUnsafeBytes { left.sameBytes(as: $0) } }
        #expect(same == a.elementsEqual(b), "\(a) vs \(b)")
      }
    }
    let empty = UnsafeRawBufferPointer(start: nil, count: 0)
    #expect(empty.sameBytes(as: empty))
    #expect(input.withUnsafeBytes { !empty.sameBytes(as: $0) })
  }
}
